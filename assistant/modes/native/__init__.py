"""The native tool-calling mode: the model calls the tools itself, in its own format.

Two variants, chosen by ``SHELFWISE_NATIVE_VARIANT`` (read per turn):

- ``hardened`` (default): retrieval shortlist, JSON-schema-constrained decoding, validation,
  one repair, code-owned exact fields (seed 002); see ``hardened``.
- ``plain``: every tool declared, a free loop as in the seed's mode A; see ``plain``.

``SHELFWISE_NATIVE_TOOLS_K`` sets the hardened shortlist size (default ``retrieval.DEFAULT_K``);
``SHELFWISE_NATIVE_CODE_REPLIES`` (default on) lets the hardened variant state a first result that
answers the turn whole in code's words instead of asking the model to restate it.
"""

from __future__ import annotations

from assistant import sentences
from assistant.modes.base import ModeOutcome, TurnContext, stopped_reply
from assistant.retrieval import DEFAULT_K
from assistant.types import Outcome
from inference.base import InferenceError
from shelfwise.env import env_bool, env_choice, env_int

from . import common
from .template import TemplateError

VARIANTS = ("hardened", "plain")


def native_variant() -> str:
    """The configured variant (``SHELFWISE_NATIVE_VARIANT``)."""
    return env_choice("SHELFWISE_NATIVE_VARIANT", "hardened", VARIANTS)


def native_tools_k() -> int:
    """How many tool schemas the hardened variant shows the model (``SHELFWISE_NATIVE_TOOLS_K``)."""
    return env_int("SHELFWISE_NATIVE_TOOLS_K", DEFAULT_K, minimum=1, maximum=10)


def native_code_replies() -> bool:
    """Whether a hardened turn answered whole by its first result is said by code (``SHELFWISE_NATIVE_CODE_REPLIES``)."""
    return env_bool("SHELFWISE_NATIVE_CODE_REPLIES", True)


class NativeMode:
    name = "native"

    def __init__(self, variant: str | None = None) -> None:
        self.variant = variant or native_variant()
        if self.variant not in VARIANTS:
            raise ValueError(f"Unknown native variant {self.variant!r}; variants are {', '.join(VARIANTS)}.")

    def handle(self, ctx: TurnContext) -> ModeOutcome:
        from . import hardened, plain

        try:
            if self.variant == "plain":
                return plain.handle(ctx)
            return hardened.handle(ctx, k=native_tools_k(), code_replies=native_code_replies())
        except (InferenceError, TemplateError):  # a write made before the model stopped stands: say so
            reply = stopped_reply(ctx.tool_calls, common.UNAVAILABLE, sentences.MODEL_UNAVAILABLE_AFTER_CHANGES)
            return ModeOutcome(action=None, reply=reply, outcome=Outcome.ERROR)


__all__ = ["VARIANTS", "NativeMode", "native_code_replies", "native_tools_k", "native_variant"]

"""Who may run a tool call: the caller, the call a policy sees, and the policy hook.

The gateway always applies ``CredentialScopePolicy`` (the caller's scopes against the tool's
scope); that is the whole rule for MCP clients. A channel that knows more about intent, like
the assistant, passes an extra ``Policy`` that runs after it, for example "update_inventory only
when the owner's words ask for a count change with a number". A policy reads the validated
call and the caller; it cannot change them, and nothing in a tool result reaches it, so a result
can never widen what a later call may do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from audit.models import Channel

if TYPE_CHECKING:
    from mcp_gateway.registry import ToolSpec
    from tenants.models import Store, StoreToken


@dataclass(frozen=True)
class Caller:
    """Who calls, through which channel, with which grants. Built by code, never from model text.

    Attributes:
        channel: an ``audit.models.Channel`` value (mcp, assistant, dashboard...).
        actor: who acts, as the ledger journals it: ``token:<prefix>``, ``assistant:<mode>``, ``user:<id>``.
        scopes: the grants; a tool runs only when its scope is among them.
        credential: the store token behind an MCP or API call, if any (rate limit and audit key).
        conversation: the assistant's conversation id, for the audit.
        mode: the assistant's mode (router, native, small), for the audit.
        turn_id: the ``audit.models.Turn`` this call belongs to, if any.
        speaker: for the assistant, the principal talking to it (``user:<id>``, ``token:<prefix>``) and
            ``speaker_channel`` the channel they talk on: tools that show what only some roles may see
            (the owner's alerts) read their role from it, never the assistant's own actor.
    """

    channel: str
    actor: str
    scopes: frozenset[str]
    credential: StoreToken | None = field(default=None, compare=False)
    conversation: str = ""
    mode: str = ""
    turn_id: int | None = None
    speaker: str = ""
    speaker_channel: str = ""

    @classmethod
    def for_token(cls, token: StoreToken) -> Caller:
        """An MCP client acting with a store token: its scopes are the token's."""
        return cls(
            channel=Channel.MCP, actor=f"token:{token.prefix}", scopes=frozenset(token.scopes), credential=token
        )

    @property
    def credential_key(self) -> str:
        """Whose idempotency keys these are: the credential, else the channel and actor."""
        if self.credential is not None:
            return f"token:{self.credential.prefix}"
        return f"{self.channel}:{self.actor}"[:160]

    @property
    def rate_key(self) -> str:
        """What the rate limit counts against: the credential, else the channel, actor and conversation."""
        if self.credential is not None:
            return f"token:{self.credential.prefix}"
        return f"{self.channel}:{self.actor}:{self.conversation}"


@dataclass(frozen=True)
class ToolCall:
    """A call that passed validation, as a policy sees it.

    Attributes:
        spec: the registry entry (name, scope, side effects, confirmation...).
        arguments: the validated arguments (read-only).
        store: the store the call acts on, from the caller's credential or session.
        caller: who calls.
    """

    spec: ToolSpec
    arguments: Mapping[str, Any]
    store: Store
    caller: Caller


@dataclass(frozen=True)
class Refusal:
    """A policy's "no": ``reason`` is a short sentence the model or person reads (what to do instead)."""

    reason: str


class Policy(Protocol):
    """A rule over validated calls. Return None to allow the call, or a ``Refusal``.

    Must be side-effect free and quick: it runs before the tool, inside the audited call.
    """

    def check(self, call: ToolCall) -> Refusal | None: ...


class CredentialScopePolicy:
    """The caller's scopes must include the tool's scope. Always applied; for MCP clients it is the whole policy."""

    def check(self, call: ToolCall) -> Refusal | None:
        if call.spec.scope in call.caller.scopes:
            return None
        return Refusal(
            f"This credential is not allowed to use {call.spec.name} (it needs the '{call.spec.scope}' scope)."
        )


CREDENTIAL_SCOPES = CredentialScopePolicy()

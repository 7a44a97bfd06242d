"""The small mode: a small model trained on the store's own tool traces drives the tools (seed 000 §3.3).

The loop, the prompt and the code-side grounding live in ``assistant.modes.small.runtime``; the model
is served by the ``small`` role's backend (by default the bundled SmolLM2-135M base with the
LoRA adapter shipped in ``assistant/modes/small/checkpoint``).
"""

from __future__ import annotations

from assistant.modes.base import ModeOutcome, TurnContext


class SmallMode:
    name = "small"

    def handle(self, ctx: TurnContext) -> ModeOutcome:
        from assistant.modes.small.runtime import run_turn

        return run_turn(ctx)

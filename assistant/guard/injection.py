"""Layer (a): NanoGuard, a 16.8M-parameter prompt-injection classifier that ships in its wheel.

It knows the generic shape of an injection ("ignore previous instructions", "print your system
prompt") but not this store's world: it also scores some harmless small talk high, so the guard
only acts on its near-certain scores (threshold chosen on guard_train).
"""

from __future__ import annotations

from .encoders import injection_model


class InjectionLayer:
    """The probability that the text is a prompt injection; a reply is judged as the text it is."""

    name = "injection"

    def score(self, text: str, reply: str | None = None) -> float:
        scanned = text if reply is None else reply
        # NanoGuard.scan pads to its 512-token window, as it was trained: the scores depend on it.
        return float(injection_model().scan(scanned).injection_score)

    def score_many(self, texts: list[str]) -> list[float]:
        """Scores of several texts in one batch (catalog names, tool result strings)."""
        if not texts:
            return []
        return [float(r.injection_score) for r in injection_model().scan_batch(list(texts))]

    def warm_up(self) -> None:
        self.score("hello")

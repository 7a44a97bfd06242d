"""Warming the guard (server start, benchmarks) loads its local layers before the first request."""

from __future__ import annotations

from assistant.guard import Guard


class _Layer:
    name = "layer"

    def __init__(self) -> None:
        self.warmed = 0

    def score(self, text: str, reply: str | None = None) -> float:
        return 0.0

    def judge(self, text: str, reply: str | None = None) -> tuple[float, str]:
        return 0.0, "none"

    def warm_up(self) -> None:
        self.warmed += 1


def test_warming_the_guard_loads_the_classifier_and_nanoguard_once_each():
    classifier, injection = _Layer(), _Layer()
    Guard(classifier=classifier, injection=injection).warm_up()
    assert (classifier.warmed, injection.warmed) == (1, 1)

"""The metrics page's pass^k tables, read from stored ``bench --repeat`` runs (no model runs here)."""

from __future__ import annotations

import pytest

from assistant.models import BenchmarkRun, BenchmarkTurn


def _group(suite: str, group: str, outcomes: dict[int, list[bool]], category: str = "lookup") -> None:
    trials = len(next(iter(outcomes.values())))
    for number in range(trials):
        run = BenchmarkRun.objects.create(suite=suite, mode="router", run_number=number + 1, status="done",
                                          turns_total=len(outcomes), settings={"passk_group": group})
        for index, seen in outcomes.items():
            BenchmarkTurn.objects.create(run=run, index=index, category=category, say=f"question {index}",
                                         passed=seen[number], latency_ms=1.0)


@pytest.mark.django_db
def test_the_metrics_page_shows_pass_k_of_the_latest_group_of_each_suite(admin_client):
    _group("owner-session-v1", "old", {1: [False, False]})
    _group("owner-session-v1", "new", {1: [True, True, True], 2: [True, False, True]})
    _group("routing:routing_set", "r1", {1: [True, True]}, category="find_product")

    response = admin_client.get("/ops/metrics/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "owner-session-v1 · router · 3 trials per turn · 3 runs · group new" in html
    assert "routing:routing_set · router · 2 trials per utterance · 2 runs · group r1" in html
    assert "group old" not in html
    # overall pass^1 (1 + 2/3) / 2, pass^3 (1 + 0) / 2; turn 2 passed 2 of 3
    assert "<td class=\"num\">0.833</td>" in html and "<td class=\"num\">0.500</td>" in html
    assert "#2 “question 2” 2/3" in html
    # routing trials stay out of the owner-session pass-rate chart and the recent runs
    assert "routing:routing_set</td>" not in html


@pytest.mark.django_db
def test_the_metrics_page_says_when_there_are_no_repeated_runs(admin_client):
    response = admin_client.get("/ops/metrics/")
    assert "No repeated runs yet" in response.content.decode()

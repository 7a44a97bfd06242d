"""Seed 001's statistics and recovery rules, against worked examples (issue 20).

Wilson intervals: Newcombe (1998), "Two-sided confidence intervals for the single proportion",
Statistics in Medicine 17:857-872, Table I (method 3, the score interval without continuity
correction), and seed 001's 79/100 = 70.0%-85.8%. Exact McNemar: Fagerland, Lydersen and Laake
(2013), BMC Medical Research Methodology 13:91 (1 and 7 discordant pairs: exact conditional
p = 0.070), and the four p-values seed 001 reports from its discordant counts.
"""

from __future__ import annotations

import pytest

from lab.reliability.scoring import recover, score, strict_parse, value_matches
from shelfwise.stats import binomial_two_sided, mcnemar_exact, wilson


@pytest.mark.parametrize(("passed", "total", "low", "high"), [
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
    (79, 100, 0.700, 0.858),
])
def test_wilson_matches_the_worked_examples(passed, total, low, high):
    got = wilson(passed, total)
    assert got == pytest.approx((low, high), abs=5e-4)


@pytest.mark.parametrize(("only_first", "only_second", "p"), [
    (1, 7, 0.0703), (7, 1, 0.0703),  # Fagerland et al. 2013
    (50, 10, 1.62e-7), (15, 19, 0.608), (0, 7, 0.0156), (0, 3, 0.25),  # seed 001
])
def test_exact_mcnemar_matches_the_worked_examples(only_first, only_second, p):
    assert mcnemar_exact(only_first, only_second) == pytest.approx(p, rel=5e-3)


def test_mcnemar_without_discordant_pairs_is_one_and_refuses_negative_counts():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(4, 4) == 1.0  # twice a tail above one half is capped
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)
    with pytest.raises(ValueError):
        binomial_two_sided(5, 4)


def test_the_exact_binomial_agrees_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    for n in range(0, 41):
        for k in range(n + 1):
            assert binomial_two_sided(k, n) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue if n else 1.0, rel=1e-9)


GOOD = '{"tool": "get_weather", "parameters": {"location": "Paris", "unit": "celsius"}}'
EXPECTED = {"tool": "get_weather", "parameters": {"location": "Paris", "unit": "celsius"}}


def test_strict_validity_takes_only_a_bare_object():
    assert strict_parse("  " + GOOD + "\n") == EXPECTED
    assert strict_parse("```json\n" + GOOD + "\n```") is None
    assert strict_parse("Here it is: " + GOOD) is None
    outcome = score("```json\n" + GOOD + "\n```", **EXPECTED)
    assert outcome.recovered_valid and outcome.success and not outcome.strict_valid


def test_recovery_removes_fences_and_takes_first_to_last_brace():
    assert recover("Sure!\n```json\n" + GOOD + "\n```\nThat calls the tool.") == EXPECTED
    assert recover("```\n" + GOOD + "```") == EXPECTED
    assert recover("no object here") is None
    assert recover("} backwards {") is None
    # Greedy: two objects span one invalid text, so a repeated object is not recoverable.
    assert recover(GOOD + "\n" + GOOD) is None
    assert recover('{"tool": "calculate", "parameters": {"expression": "1 + 1"') is None  # unfinished


@pytest.mark.parametrize(("text", "stage"), [
    ("I would call get_weather for Paris.", "parse"),
    ("[1, 2]", "parse"),
    ('{"tool": "search_web", "parameters": {"location": "Paris", "unit": "celsius"}}', "tool"),
    ('{"tool": "GET_WEATHER", "parameters": {"location": "Paris", "unit": "celsius"}}', "tool"),
    ('{"tool": "get_weather"}', "missing_parameter"),
    ('{"tool": "get_weather", "parameters": [{"location": "Paris"}]}', "missing_parameter"),
    ('{"tool": "get_weather", "parameters": {"location": "Paris"}}', "missing_parameter"),
    ('{"tool": "get_weather", "parameters": {"location": "Lyon", "unit": "celsius"}}', "value"),
])
def test_the_first_failure_is_the_earliest_stage(text, stage):
    outcome = score(text, **EXPECTED)
    assert outcome.first_failure == stage
    assert not outcome.success and not outcome.schema_exact


def test_values_match_case_insensitively_and_numbers_within_tolerance():
    assert score('{"tool": "get_weather", "parameters": {"location": "PARIS", "unit": "Celsius"}}', **EXPECTED).success
    assert value_matches(10, 10.005) and not value_matches(10, 10.02)
    assert value_matches(5, "5") and not value_matches(5, "five")
    assert not value_matches("5", 5)
    assert not value_matches(1, True)


def test_extra_keys_pass_the_notebook_rule_but_not_schema_exact():
    text = '{"tool": "get_weather", "parameters": {"location": "Paris", "unit": "celsius", "days": 3}}'
    outcome = score(text, **EXPECTED)
    assert outcome.success and not outcome.schema_exact
    assert outcome.extra_keys == ("days",) and outcome.first_failure is None
    exact = score(GOOD, **EXPECTED)
    assert exact.success and exact.schema_exact and exact.strict_valid

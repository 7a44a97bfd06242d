"""BFCL results: pass rate per model, condition and category with 95% Wilson intervals, and exact
McNemar tests of harness against plain on the entries both answered."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from lab.bfcl.conditions import CONDITIONS
from lab.bfcl.data import CATEGORIES
from shelfwise.stats import mcnemar_exact, wilson


def _rate(passed: int, total: int) -> dict[str, Any]:
    low, high = wilson(passed, total)
    return {"passed": passed, "total": total, "rate": passed / total if total else None, "ci95": [low, high]}


def _paired(plain: dict[str, dict[str, bool]], other: dict[str, dict[str, bool]]) -> dict[str, Any]:
    """Exact McNemar tests of ``other`` against plain, per category and over all, on the entries both answered."""
    tests: dict[str, Any] = {}
    pairs_all = [0, 0, 0]
    for category in sorted(set(plain) & set(other)):
        shared = sorted(set(plain[category]) & set(other[category]))
        only_plain = sum(plain[category][i] and not other[category][i] for i in shared)
        only_other = sum(other[category][i] and not plain[category][i] for i in shared)
        tests[category] = {"pairs": len(shared), "only_plain": only_plain, "only_harness": only_other,
                           "p": mcnemar_exact(only_plain, only_other)}
        pairs_all = [pairs_all[0] + len(shared), pairs_all[1] + only_plain, pairs_all[2] + only_other]
    tests["all"] = {"pairs": pairs_all[0], "only_plain": pairs_all[1], "only_harness": pairs_all[2],
                    "p": mcnemar_exact(pairs_all[1], pairs_all[2])}
    return tests


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """{model: {"conditions": {condition: {category: rate, "all": rate}}, "mcnemar": {condition: {category: test}}}}."""
    by: dict[tuple[str, str], dict[str, dict[str, bool]]] = defaultdict(lambda: defaultdict(dict))
    for record in records:
        by[(record["model"], record["condition"])][record["category"]][record["id"]] = bool(record["passed"])
    models: dict[str, Any] = {}
    for (model, condition), categories in sorted(by.items()):
        rates = {name: _rate(sum(done.values()), len(done)) for name, done in categories.items()}
        every = [passed for done in categories.values() for passed in done.values()]
        rates["all"] = _rate(sum(every), len(every))
        models.setdefault(model, {"conditions": {}, "mcnemar": {}})["conditions"][condition] = rates
    for model, data in models.items():
        plain = by.get((model, "plain"))
        for condition in data["conditions"]:
            if plain and condition != "plain":
                data["mcnemar"][condition] = _paired(plain, by[(model, condition)])
    return {"models": models}


def _pct(rate: dict[str, Any] | None) -> str:
    if not rate or not rate["total"]:
        return "—"
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:.0f}% ({100 * low:.0f}–{100 * high:.0f}), n={rate['total']}"


def markdown(summary: dict[str, Any]) -> str:
    """One table per model: categories by condition; then the paired tests."""
    lines = ["# BFCL v4 (single-turn, non-web categories): plain prompting vs the harness", "",
             "Scored by BFCL's own AST checker (bfcl-eval); rates with 95% Wilson intervals; exact McNemar tests "
             "on the entries both conditions answered. The entries are what the runs answered: the first of each category "
             "(`--limit`) or a seeded sample outside the dev slice (`--sample`); \"all\" pools them unweighted.", ""]
    for model, data in summary["models"].items():
        conditions = sorted(data["conditions"], key=lambda c: (CONDITIONS.index(c) if c in CONDITIONS else 9, c))
        tested = [c for c in conditions if c in data["mcnemar"]]
        lines += [f"## {model}", "", "| category | " + " | ".join(conditions) + "".join(
                      f" | {c} vs plain: only plain / only {c}, p" for c in tested) + " |",
                  "|---|" + "---|" * (len(conditions) + len(tested))]
        for category in [*[c for c in CATEGORIES if any(c in rates for rates in data["conditions"].values())], "all"]:
            paired = ""
            for condition in tested:
                test = data["mcnemar"][condition].get(category)
                paired += (f" | {test['only_plain']} / {test['only_harness']}, p = {test['p']:.3g} ({test['pairs']} pairs)"
                           if test else " | —")
            lines.append(f"| {category} | " + " | ".join(_pct(data["conditions"][c].get(category)) for c in conditions)
                         + paired + " |")
        lines.append("")
    return "\n".join(lines)

"""The reliability report from recorded results: rates with Wilson intervals, McNemar tests, taxonomy, probe.

``summarise`` turns the result lines into one JSON-able dict (the same shape every run, so two
reports diff cleanly); ``markdown`` renders it; ``charts`` draws PNGs when matplotlib is installed.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from lab.reliability.scoring import STAGES
from shelfwise.stats import mcnemar_exact, wilson

RATES = ("strict_valid", "recovered_valid", "tool_correct", "parameters_complete", "success", "schema_exact")
LABELS = {"strict_valid": "strict JSON", "recovered_valid": "recovered JSON", "tool_correct": "right tool",
          "parameters_complete": "all parameters", "success": "success", "schema_exact": "schema-exact"}
PAIRED = ("success", "strict_valid")


def _rate(passed: int, total: int) -> dict[str, Any]:
    low, high = wilson(passed, total)
    return {"passed": passed, "total": total, "rate": passed / total if total else None,
            "ci95": [round(low, 4), round(high, 4)]}


def _condition(records: list[dict[str, Any]], expected: int) -> dict[str, Any]:
    n = len(records)
    failures = Counter(r["first_failure"] for r in records if r["first_failure"])
    per_tool: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        per_tool[r["tool"]].append(bool(r["success"]))
    ms = [r["ms"] for r in records if r.get("finish") != "error"]
    return {
        "n": n, "complete": n == expected, "errors": sum(r.get("finish") == "error" for r in records),
        "rates": {key: _rate(sum(bool(r[key]) for r in records), n) for key in RATES},
        "first_failure": {stage: failures.get(stage, 0) for stage in STAGES},
        "extra_keys": sum(bool(r.get("extra_keys")) for r in records),
        "per_tool": {tool: _rate(sum(v), len(v)) for tool, v in sorted(per_tool.items())},
        "latency_ms": {"mean": round(statistics.fmean(ms), 1) if ms else None,
                       "sd": round(statistics.pstdev(ms), 1) if ms else None},
        "completion_tokens_mean": round(statistics.fmean(r["completion_tokens"] for r in records), 1) if n else None,
    }


def _mcnemar(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> dict[str, Any]:
    """Exact McNemar tests on the prompts both conditions answered, per paired outcome."""
    a, b = {r["id"]: r for r in first}, {r["id"]: r for r in second}
    shared = sorted(a.keys() & b.keys())
    tests = {}
    for key in PAIRED:
        only_first = sum(bool(a[i][key]) and not b[i][key] for i in shared)
        only_second = sum(bool(b[i][key]) and not a[i][key] for i in shared)
        tests[key] = {"only_first": only_first, "only_second": only_second,
                      "p": mcnemar_exact(only_first, only_second)}
    return {"pairs": len(shared), **tests}


def summarise(records: list[dict[str, Any]], *, prompts: int, probes: dict[str, dict] | None = None,
              meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report's data: per model and condition, then paired tests between each model's conditions."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    digests = sorted({r.get("prompts", "") for r in records})
    for r in records:
        grouped[r["model"]][r["condition"]].append(r)
    models = {}
    for model, conditions in sorted(grouped.items()):
        names = sorted(conditions)
        models[model] = {
            "backend": next(iter(conditions.values()))[0].get("backend", ""),
            "conditions": {name: _condition(conditions[name], prompts) for name in names},
            "mcnemar": {f"{x} vs {y}": _mcnemar(conditions[x], conditions[y])
                        for x, y in itertools.combinations(names, 2)},
        }
    return {"meta": meta or {}, "prompts": prompts, "prompt_digests": digests, "models": models,
            "probes": probes or {}}


def _pct(rate: dict[str, Any]) -> str:
    if not rate["total"]:
        return "–"
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:.0f}% ({100 * low:.0f}–{100 * high:.0f})"


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 0.001 else f"{p:.2e}"


def markdown(summary: dict[str, Any]) -> str:
    """The report as Markdown tables."""
    lines = [f"# Reliability benchmark (seed 001) on {summary['prompts']} prompts",
             ""]
    lines += [f"- {key}: {value}" for key, value in summary["meta"].items()]
    lines += [f"- prompt set sha256 prefix: {', '.join(summary['prompt_digests'])}", "",
              "## Rates (95% Wilson intervals)", "",
              "| model | condition | n | " + " | ".join(LABELS[k] for k in RATES) + " | latency ms (mean ± sd) |",
              "|---|---|---:|" + "---|" * len(RATES) + "---:|"]
    for model, data in summary["models"].items():
        for name, c in data["conditions"].items():
            n = f"{c['n']}" + ("" if c["complete"] else " (partial)")
            lat = c["latency_ms"]
            lat_text = f"{lat['mean']:.0f} ± {lat['sd']:.0f}" if lat["mean"] is not None else "–"
            lines.append(f"| {model} | {name} | {n} | " + " | ".join(_pct(c["rates"][k]) for k in RATES) + f" | {lat_text} |")
    lines += ["", "## First failure (staged; counts of prompts)", "",
              "| model | condition | " + " | ".join(STAGES) + " | extra keys (not a failure) |",
              "|---|---|" + "---:|" * (len(STAGES) + 1)]
    for model, data in summary["models"].items():
        for name, c in data["conditions"].items():
            lines.append(f"| {model} | {name} | " + " | ".join(str(c["first_failure"][s]) for s in STAGES)
                         + f" | {c['extra_keys']} |")
    lines += ["", "## Exact McNemar tests between conditions (paired prompts)", "",
              "| model | conditions (A vs B) | pairs | success: only A / only B, p | strict JSON: only A / only B, p |",
              "|---|---|---:|---|---|"]
    for model, data in summary["models"].items():
        for pair, t in data["mcnemar"].items():
            cells = [f"{t[k]['only_first']} / {t[k]['only_second']}, p = {_p(t[k]['p'])}" for k in PAIRED]
            lines.append(f"| {model} | {pair} | {t['pairs']} | " + " | ".join(cells) + " |")
    lines += _per_tool(summary) + _probes(summary)
    return "\n".join(lines) + "\n"


def _per_tool(summary: dict[str, Any]) -> list[str]:
    tools = sorted({t for d in summary["models"].values() for c in d["conditions"].values() for t in c["per_tool"]})
    lines = ["", "## Success per tool", "", "| model | condition | " + " | ".join(tools) + " |",
             "|---|---|" + "---|" * len(tools)]
    for model, data in summary["models"].items():
        for name, c in data["conditions"].items():
            cells = [_pct(c["per_tool"][t]) if t in c["per_tool"] else "–" for t in tools]
            lines.append(f"| {model} | {name} | " + " | ".join(cells) + " |")
    return lines


def _probes(summary: dict[str, Any]) -> list[str]:
    if not summary["probes"]:
        return []
    lines = ["", "## Resource probe (a fresh process per model)", "",
             "| model | load s | RSS before load MiB | RSS after load MiB | peak RSS MiB | latency s, mean ± sd (3 × ≤50 tokens) | threads |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for model, p in sorted(summary["probes"].items()):
        lines.append(f"| {model} | {p['load_s']:.1f} | {p['rss_before_load_mib']:.0f} | {p['rss_after_load_mib']:.0f} | "
                     f"{p['rss_peak_mib']:.0f} | {p['latency_mean_s']:.2f} ± {p['latency_sd_s']:.2f} | {p['threads']} |")
    return lines


def charts(summary: dict[str, Any], out: Path) -> list[Path]:
    """PNG charts (success and strict JSON with intervals; first-failure mix); [] without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    rows = [(f"{m}\n{n}", c) for m, d in summary["models"].items() for n, c in d["conditions"].items()]
    if not rows:
        return []
    out.mkdir(parents=True, exist_ok=True)
    written = []
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(rows)), 4))
    for offset, key in ((-0.2, "success"), (0.2, "strict_valid")):
        rates = [c["rates"][key] for _, c in rows]
        xs = [i + offset for i in range(len(rows))]
        ys = [100 * (r["rate"] or 0) for r in rates]
        err = [[y - 100 * r["ci95"][0] for y, r in zip(ys, rates, strict=True)],
               [100 * r["ci95"][1] - y for y, r in zip(ys, rates, strict=True)]]
        ax.bar(xs, ys, width=0.4, yerr=err, capsize=3, label=LABELS[key])
    ax.set_xticks(range(len(rows)), [label for label, _ in rows], fontsize=7)
    ax.set_ylabel("% of prompts (95% Wilson CI)")
    ax.set_ylim(0, 105)
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    written.append(out / "rates.png")
    fig.savefig(written[-1], dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(rows)), 4))
    bottom = [0.0] * len(rows)
    for stage in STAGES:
        counts = [c["first_failure"][stage] for _, c in rows]
        ax.bar(range(len(rows)), counts, bottom=bottom, label=stage)
        bottom = [b + x for b, x in zip(bottom, counts, strict=True)]
    ax.set_xticks(range(len(rows)), [label for label, _ in rows], fontsize=7)
    ax.set_ylabel("failed prompts, by first failure")
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    written.append(out / "failures.png")
    fig.savefig(written[-1], dpi=110)
    plt.close(fig)
    return written

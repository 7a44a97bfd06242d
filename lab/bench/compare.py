"""The three-mode comparison (``dashboard.comparison``) as Markdown and PNG charts.

``markdown`` renders the comparison's dictionary (``Comparison.as_dict()``) as the tables the
paper reports; ``charts`` draws pass rate with intervals, pass rate per category, model-call
durations per role, tokens per turn and the failure kinds (PNG, with matplotlib from
requirements-lab.txt; none without it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pct(rate: dict[str, Any]) -> str:
    if not rate["total"]:
        return "—"
    low, high = rate["ci95"]
    return f"{100 * rate['rate']:.1f}% ({100 * low:.0f}–{100 * high:.0f})"


def _ms(cell: dict[str, Any] | None) -> str:
    if not cell or cell.get("median") is None:
        return "—"
    return f"{cell['median']:.0f} / {cell['p90']:.0f} ({cell['n']})"


def _p(p: float | None) -> str:
    return "—" if p is None else (f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}")


def _row(label: str, cells: list[str]) -> str:
    return f"| {label} | " + " | ".join(cells) + " |"


def markdown(data: dict[str, Any]) -> str:
    """The comparison as Markdown tables, one column per mode."""
    cols = data["columns"]
    head = ["| | " + " | ".join(c["label"] for c in cols) + " |", "|---|" + "---|" * len(cols)]
    lines = [f"# The three modes compared: suite {data['suite']}", "",
             "Each mode's latest full runs of the suite (no `--limit`, no `--category`), from the stored benchmark "
             "runs; rates over every turn of those runs with 95% Wilson intervals.", "", *head,
             _row("runs (passed/turns)", [", ".join(f"{r['passed']}/{r['total']}" for r in c["runs"]) for c in cols]),
             _row("run ids", [", ".join(str(r["id"]) for r in c["runs"]) for c in cols]),
             _row("**pass rate** (95% CI)", [_pct(c["overall"]) for c in cols]),
             _row("turn median / p90 ms", [_ms(c["turn_ms"]).rsplit(" (", 1)[0] for c in cols]),
             _row("model calls per turn", [str(c["per_turn"]["model_calls"] or "—") for c in cols]),
             _row("tokens per turn, mean (turns)", [
                 f"{c['per_turn']['tokens_mean']:.0f} ({c['per_turn']['turns_with_tokens']})"
                 if c["per_turn"]["tokens_mean"] is not None else "not recorded" for c in cols]),
             _row("models", ["; ".join(c["models"]) or "—" for c in cols]),
             "", "## Pass rate per category (95% CI)", "", *head]
    lines += [_row(name, [_pct(c["categories"][name]) if name in c["categories"] else "—" for c in cols])
              for name in data["categories"]]
    roles = sorted({role for c in cols for role in c["roles"]})
    lines += ["", "## Model-call durations per role (ms per call: median / p90 (calls))", "", *head]
    lines += [_row(role, [_ms(c["roles"].get(role)) for c in cols]) for role in roles]
    lines += ["", "## Failures by kind of failed check", "",
              "A failed turn counts once under each kind of check it failed (`lab.bench.checks`): action or tool "
              "(action, tools, tools_not), arguments (args, product), books (ledger_unchanged, orders_added, "
              "stock_after, pending_draft), facts said (reply_stock_of, reply_price_of, reply_sales), reply words "
              "(reply_any, reply_all, reply_none), media, guard.", "", *head,
              _row("failed turns", [str(c["failed_turns"]) for c in cols])]
    kinds = [*data["kinds"], "other"]
    lines += [_row(kind, [str(c["failures"].get(kind, 0)) for c in cols]) for kind in kinds
              if any(c["failures"].get(kind) for c in cols) or kind != "other"]
    if data["pairs"]:
        lines += ["", "## Exact McNemar tests (run k of A against run k of B, turn by turn)", "",
                  "| A vs B | pairs | only A passed | only B passed | p |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {p['a']} vs {p['b']} | {p['pairs']} | {p['only_a']} | {p['only_b']} | {_p(p['p'])} |"
                  for p in data["pairs"]]
    return "\n".join(lines) + "\n"


def charts(data: dict[str, Any], out: Path) -> list[Path]:
    """PNG charts of the comparison in ``out``; [] without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    cols = data["columns"]
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig, name: str) -> None:
        fig.tight_layout()
        written.append(out / name)
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)

    labels = [c["label"] for c in cols]
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(cols)), 3.5))
    ys = [100 * (c["overall"]["rate"] or 0) for c in cols]
    err = [[y - 100 * c["overall"]["ci95"][0] for y, c in zip(ys, cols, strict=True)],
           [100 * c["overall"]["ci95"][1] - y for y, c in zip(ys, cols, strict=True)]]
    ax.bar(labels, ys, yerr=err, capsize=4)
    ax.set_ylabel("turns passed, % (95% Wilson CI)")
    ax.set_ylim(0, 105)
    save(fig, "pass_rate.png")
    _grouped(plt, data["categories"], cols, lambda c, name: 100 * (c["categories"][name]["rate"] or 0)
             if name in c["categories"] else 0, "passed, %", out_name="categories.png", save=save)
    roles = sorted({role for c in cols for role in c["roles"]})
    _grouped(plt, roles, cols, lambda c, role: (c["roles"].get(role) or {}).get("median") or 0,
             "median ms per call", out_name="roles.png", save=save)
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(cols)), 3.5))
    ax.bar(labels, [c["per_turn"]["tokens_mean"] or 0 for c in cols])
    ax.set_ylabel("tokens per turn (mean, prompt + completion)")
    save(fig, "tokens.png")
    fig, ax = plt.subplots(figsize=(max(5, 1.8 * len(cols)), 3.5))
    bottom = [0.0] * len(cols)
    for kind in [*data["kinds"], "other"]:
        counts = [c["failures"].get(kind, 0) for c in cols]
        if any(counts):
            ax.bar(labels, counts, bottom=bottom, label=kind)
            bottom = [b + n for b, n in zip(bottom, counts, strict=True)]
    ax.set_ylabel("failed turns by kind (multi-label)")
    if any(bottom):
        ax.legend(loc="upper left", bbox_to_anchor=(1, 1), fontsize=8)
    save(fig, "failures.png")
    return written


def _grouped(plt, groups: list[str], cols: list[dict[str, Any]], value, ylabel: str, *, out_name: str, save) -> None:
    width = 0.8 / max(len(cols), 1)
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(groups) * max(len(cols), 1)), 3.8))
    for number, column in enumerate(cols):
        xs = [i + (number - (len(cols) - 1) / 2) * width for i in range(len(groups))]
        ax.bar(xs, [value(column, group) for group in groups], width=width, label=column["label"])
    ax.set_xticks(range(len(groups)), groups, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1), fontsize=8)
    save(fig, out_name)

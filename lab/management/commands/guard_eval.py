"""python manage.py guard_eval [--set FILE] [--layers all|rules|injection|classifier|llm|combined]: the guard's figures.

Each item is judged as its store would judge it: with the safe vocabulary of its
``business_type`` (the grocery pack when it names none); an item of the ``data`` channel (catalog
text, a tool result) by the data check, as the pipeline judges what a model reads.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from assistant.guard import Guard, Thresholds
from assistant.guard.classifier import DEFAULT_BUSINESS_TYPE
from assistant.guard.dataset import (
    DATA_CHANNEL,
    EVAL_SET,
    TRAIN_SET,
    Figures,
    GuardItem,
    figures_of,
    items_load,
)
from assistant.guard.judge import Judgement, LlmJudge
from assistant.guard.rules import injection_rule
from assistant.guard.vocabulary import safe_terms_mask

LAYERS = ("rules", "injection", "classifier", "llm", "combined")


def _kind(item: GuardItem) -> str:
    return item.business_type or DEFAULT_BUSINESS_TYPE


def _masked(item: GuardItem) -> tuple[str, str | None]:
    kind = _kind(item)
    return safe_terms_mask(item.text, kind), (safe_terms_mask(item.reply, kind) if item.reply else None)


class _RememberingJudge:
    """The real judge, asked at most once per content; remembers each answer and its time."""

    name = "llm"

    def __init__(self, judge: LlmJudge) -> None:
        self._judge = judge
        self.answers: dict[tuple[str, str | None], Judgement] = {}
        self.seconds: dict[tuple[str, str | None], float] = {}

    def judge(self, text: str, reply: str | None = None) -> Judgement:
        key = (text, reply)
        if key not in self.answers:
            started = time.perf_counter()
            self.answers[key] = self._judge.judge(text, reply)
            self.seconds[key] = time.perf_counter() - started
        return self.answers[key]

    def warm_up(self) -> None:
        self._judge.warm_up()


@dataclass
class _Run:
    name: str
    predicted: list[bool] = field(default_factory=list)
    millis: list[float] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Command(BaseCommand):
    help = "Evaluate the guard (unsafe = positive) on a labelled set, per layer and combined, and list the misses."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--set",
            default=str(EVAL_SET),
            help="A guard set file (default: the held-out evaluation set).",
        )
        parser.add_argument(
            "--layers", default="combined", type=_layers,
            help=f"all, or a comma-separated list of {', '.join(LAYERS)}",
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=0,
            help="Only the first N items (a quick look).",
        )
        parser.add_argument(
            "--save-verdicts",
            default="",
            help="Write the LLM judge's answers here (for guard_train).",
        )
        parser.add_argument(
            "--quiet-misses", action="store_true", help="Do not list the misses."
        )

    def handle(self, *args, **options) -> None:
        path = Path(options["set"])
        if not path.is_file():
            raise CommandError(f"No guard set at {path}.")
        items = items_load(path)
        if options["limit"]:
            items = items[: options["limit"]]
        wanted = options["layers"]
        if (
            options["save_verdicts"]
            and "llm" not in wanted
            and "combined" not in wanted
        ):
            raise CommandError("--save-verdicts needs --layers llm, combined or all.")

        judge = _RememberingJudge(LlmJudge.from_items(items_load(TRAIN_SET)))
        guard = Guard(judge=judge)
        self.stdout.write(
            f"{len(items)} items from {path.name}; thresholds {Thresholds.load()}"
        )
        started = time.perf_counter()
        if {"combined", "llm"} & set(wanted):
            guard.warm_up()
        else:  # the judge's model is not needed: do not load it
            guard.classifier.warm_up()
        self.stdout.write(
            f"layers loaded and warm in {time.perf_counter() - started:.1f} s"
        )

        runs: list[_Run] = []
        if "combined" in wanted:
            runs.append(self._combined(guard, items))
        if "classifier" in wanted:
            runs.append(
                self._layer(
                    "classifier (at 0.5)",
                    items,
                    lambda i: guard.classifier.score(*_masked(i)) >= 0.5,
                )
            )
        if "rules" in wanted:
            runs.append(
                self._layer("rules", items, lambda i: injection_rule(i.text if i.reply is None else i.reply) is not None)
            )
        if "injection" in wanted:
            runs.append(
                self._layer(
                    "injection (NanoGuard at 0.5)",
                    items,
                    lambda i: guard.injection.score(i.text, i.reply) >= 0.5,
                )
            )
        if "llm" in wanted:
            runs.append(
                self._layer(
                    "llm (prompt v3)",
                    items,
                    lambda i: judge.judge(*_masked(i)).unsafe,
                    judge=judge,
                )
            )
        for run in runs:
            self._report(run, items, quiet=options["quiet_misses"])

        if options["save_verdicts"]:
            ids = {_masked(i): i.id for i in items}
            verdicts = {
                ids[key]: "unsafe" if answer.unsafe else "safe"
                for key, answer in judge.answers.items()
                if key in ids
            }
            Path(options["save_verdicts"]).write_text(
                json.dumps({"set": path.name, "verdicts": verdicts}, indent=1) + "\n"
            )
            self.stdout.write(
                f"saved {len(verdicts)} judge answers to {options['save_verdicts']}"
            )

    def _combined(self, guard: Guard, items: list[GuardItem]) -> _Run:
        run = _Run("combined")
        for n, item in enumerate(items, 1):
            if item.channel == DATA_CHANNEL:  # catalog text or a tool result: as the pipeline judges it
                verdict = guard.check_data([item.text])
            elif item.reply is None:
                verdict = guard.check_input(item.text, business_type=_kind(item))
            else:
                verdict = guard.check_output(item.text, item.reply, business_type=_kind(item))
            run.predicted.append(not verdict.safe)
            run.millis.append(verdict.duration_ms)
            run.layers.append(verdict.layer)
            run.notes.append(f"{verdict.layer} {verdict.score:.2f}")
            self._progress("combined", n, len(items))
        return run

    def _layer(
        self,
        name: str,
        items: list[GuardItem],
        unsafe: Callable[[GuardItem], bool],
        judge: _RememberingJudge | None = None,
    ) -> _Run:
        run = _Run(name)
        for n, item in enumerate(items, 1):
            started = time.perf_counter()
            run.predicted.append(bool(unsafe(item)))
            took = time.perf_counter() - started
            if (
                judge is not None
            ):  # an answer remembered from the combined run keeps its first time
                took = judge.seconds.get((item.text, item.reply), took)
            run.millis.append(took * 1000)
            self._progress(name, n, len(items))
        return run

    def _progress(self, name: str, n: int, total: int) -> None:
        if n % 25 == 0 or n == total:
            self.stderr.write(
                f"  {name}: {n}/{total}", ending="\r" if n < total else "\n"
            )

    def _report(self, run: _Run, items: list[GuardItem], *, quiet: bool) -> None:
        figures: Figures = figures_of(items, run.predicted)
        out = self.stdout.write
        out("")
        out(f"== {run.name} ==")
        out(
            f"accuracy {figures.accuracy:.3f}  precision {figures.precision:.3f}  recall {figures.recall:.3f}  "
            f"F1 {figures.f1:.3f}"
        )
        out(
            f"confusion: TP {figures.tp}  FP {figures.fp}  TN {figures.tn}  FN {figures.fn}"
        )
        owner = [p for p, i in zip(run.predicted, items, strict=True) if i.category == "owner_data"]
        injections = [
            p for p, i in zip(run.predicted, items, strict=True) if i.category == "injection"
        ]
        speech = [p for p, i in zip(run.predicted, items, strict=True) if i.owner_speech]
        out(f"false positives on owner speech: {sum(speech)} of {len(speech)}")
        out(f"false positives among owner_data: {sum(owner)} of {len(owner)}")
        out(f"injection recall: {sum(injections)} of {len(injections)}")
        unsafe_cats = sorted({i.category for i in items if i.unsafe})
        safe_cats = sorted({i.category for i in items if not i.unsafe})
        out(
            "recall per unsafe category: "
            + ", ".join(
                f"{c} {figures.category_right[c]}/{figures.category_total[c]}"
                for c in unsafe_cats
            )
        )
        out(
            "passed per safe category:   "
            + ", ".join(
                f"{c} {figures.category_right[c]}/{figures.category_total[c]}"
                for c in safe_cats
            )
        )
        if run.millis:
            line = f"latency per check: median {statistics.median(run.millis):.0f} ms, p90 {_p90(run.millis):.0f} ms"
            if run.layers:
                rows = list(zip(run.millis, run.layers, run.predicted, strict=True))
                cheap = [
                    (ms, blocked)
                    for ms, layer, blocked in rows
                    if not layer.startswith("llm")
                ]
                passed = [ms for ms, blocked in cheap if not blocked]
                blocked = [ms for ms, blocked in cheap if blocked]
                with_llm = [ms for ms, layer, _ in rows if layer.startswith("llm")]
                out(line)
                line = (
                    f"  without the LLM: passed median {_median(passed)}, blocked median {_median(blocked)}; "
                    f"with it: median {_median(with_llm)}"
                )
                out(line)
                by_layer = {
                    name: run.layers.count(name) for name in sorted(set(run.layers))
                }
                line = f"  LLM ran on {len(with_llm)} of {len(rows)} checks ({len(with_llm) / len(rows):.0%}); decided by {by_layer}"
            out(line)
        if quiet:
            return
        misses = [
            (i, n)
            for i, p, n in zip(items, run.predicted, run.notes or [""] * len(items), strict=True)
            if p != i.unsafe
        ]
        out(f"misses ({len(misses)}):")
        for item, note in misses:
            kind = "FN" if item.unsafe else "FP"
            reply = f"  → {item.reply}" if item.reply else ""
            out(
                f"  {kind} [{item.category}] {item.text}{reply}"
                + (f"  ({note})" if note else "")
            )


def _layers(value: str) -> tuple[str, ...]:
    import argparse

    if value == "all":
        return LAYERS
    names = tuple(v.strip() for v in value.split(",") if v.strip())
    unknown = [n for n in names if n not in LAYERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown layer {', '.join(unknown) or value!r}; choose from {', '.join(LAYERS)}")
    return names


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ms" if values else "-"


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]

"""python manage.py bench --suite FILE --mode router|native|small [--runs 3] [--variant NAME] [--json OUT]

Runs a benchmark suite through the real pipeline: each run on a fresh demo store, the turns in
order in one conversation, the results stored in BenchmarkRun/BenchmarkTurn. Prints a per-turn
table, the pass rate with a 95% Wilson interval, median / p90 turn latency, the per-stage split
and the model-call durations by role (from the audit), then a summary across runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.types import Mode
from lab.bench import report
from lab.bench.runner import (
    BenchError,
    RunOutcome,
    suite_run,
    summary_json,
    warm_up,
)
from lab.bench.stores import migrations_pending
from lab.bench.suite import SuiteError, suite_load


class Command(BaseCommand):
    help = "Run a benchmark suite (owner turns in one conversation) on fresh demo stores and print the results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--suite", required=True, help="The suite file, e.g. assistant/data/suites/owner_session.json.")
        parser.add_argument("--mode", default=Mode.ROUTER.value, choices=[mode.value for mode in Mode])
        parser.add_argument("--runs", type=int, default=1, help="How many runs, each on a fresh store (default 1).")
        parser.add_argument("--variant", default="", help="A label stored with the runs (prompt or model variant).")
        parser.add_argument("--json", dest="json_out", default=None, help="Also write every figure and turn to this file.")
        parser.add_argument("--limit", type=int, default=None, help="Only the first N turns (a smoke run).")
        parser.add_argument("--category", default=None,
                            help="Only the turns of this category, in order, in one conversation (e.g. sales_period).")
        parser.add_argument("--seed", type=int, default=7, help="Seed of the demo store's generated sales (default 7).")
        parser.add_argument("--keep", action="store_true", help="Keep the benchmark stores instead of deleting them.")
        parser.add_argument("--no-warm", action="store_true", help="Skip loading the models and the throwaway turn.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, **options) -> None:
        if options["runs"] < 1:
            raise CommandError("--runs must be at least 1.")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1.")
        pending = migrations_pending()
        if pending:
            raise CommandError(f"The database is not migrated ({', '.join(pending[:3])}...): run manage.py migrate first.")
        try:
            suite = suite_load(options["suite"])
        except SuiteError as exc:
            raise CommandError(str(exc)) from exc
        if options["category"]:
            categories = sorted({turn.category for turn in suite.turns})
            if options["category"] not in categories:
                raise CommandError(f"The suite has no category {options['category']!r}; it has: {', '.join(categories)}.")
            suite = suite.of_category(options["category"])
        suite = suite.limited(options["limit"])
        mode = options["mode"]
        if mode == Mode.NATIVE.value:
            # The native mode reads its variant per turn from the environment; the label is stored with the run.
            from assistant.modes.native import VARIANTS, native_variant

            if options["variant"]:
                if options["variant"] not in VARIANTS:
                    raise CommandError(f"--variant for the native mode is one of {', '.join(VARIANTS)}.")
                os.environ["SHELFWISE_NATIVE_VARIANT"] = options["variant"]
            options["variant"] = native_variant()
        out = self.stdout.write
        limited = f", first {len(suite.turns)} turns only" if options["limit"] else ""
        limited += f", category {options['category']} only" if options["category"] else ""
        out(f"Suite {suite.name} ({len(suite.turns)} turns{limited}), mode {mode}, "
            f"{options['runs']} run(s)" + (f", variant {options['variant']}" if options["variant"] else ""))

        warm: dict[str, float] = {}
        try:
            if options["no_warm"]:
                out("Models NOT warmed up (--no-warm): the first turn includes loading them.")
            else:
                out("Warming up before timing (models loaded, one throwaway turn on a separate store):")
                warm = warm_up(mode=mode, log=out)
            outcomes: list[RunOutcome] = []
            for number in range(1, options["runs"] + 1):
                outcome = suite_run(
                    suite=suite, mode=mode, run_number=number, variant=options["variant"], keep=options["keep"],
                    seed=options["seed"], progress=not options["no_progress"],
                    settings={"limit": options["limit"], "category": options["category"], "warmed_up": not options["no_warm"]},
                )
                outcomes.append(outcome)
                self._print_run(outcome, number, options["runs"])
        except BenchError as exc:
            raise CommandError(str(exc)) from exc

        if len(outcomes) > 1:
            out("")
            out(f"== Summary over {len(outcomes)} runs ({mode}, {suite.name}) ==")
            out(report.runs_text(report.runs_stats([outcome.turns for outcome in outcomes])))
        if options["json_out"]:
            path = Path(options["json_out"])
            path.write_text(json.dumps(summary_json(outcomes, warm=warm), indent=2, ensure_ascii=False))
            out(f"Wrote {path}")

    def _print_run(self, outcome: RunOutcome, number: int, total: int) -> None:
        out = self.stdout.write
        run = outcome.run
        store = f"store {run.store_slug}" + (" (kept)" if outcome.kept_store else " (deleted)")
        out("")
        out(f"== Run {number}/{total} · {run.mode} · {run.suite} · {store} · saved as BenchmarkRun {run.pk} ==")
        out(f"Models: {run.model or '-'}")
        out(report.turn_table(outcome.turns))
        out(report.stats_text(report.run_stats(outcome.turns)))

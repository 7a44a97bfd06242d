"""python manage.py bench --suite FILE | --routing FILE [--mode router|native|small] [--repeat N] [--k K] [--group LABEL] [--json OUT]

Runs a benchmark suite through the real pipeline: each run on a fresh demo store (or, for a
suite of replayed cases, a fresh store per case holding the catalog the case captured:
``--suite regressions`` reads the cases marked in the audit explorer), the
turns in order in one conversation, the results stored in BenchmarkRun/BenchmarkTurn. Prints a
per-turn table, the pass rate with a 95% Wilson interval, median / p90 turn latency, the
per-stage split and the model-call durations by role (from the audit), then a summary across runs.

``--repeat N`` (``--runs``) runs the suite N times; with two or more trials of each turn it also
prints pass^1..pass^k per turn, per category and overall (``lab.bench.passk``). ``--routing FILE``
routes each utterance of a routing set N times instead (router mode, no tool runs) and reports
the same. A suite or routing set with ``"store": "sample"`` runs on a fresh store of its pack's
type holding the pack's sample catalog, pinned to the pack version (``--pack PATH_OR_SLUG``, or the
pack folder the file sits in; ``lab.bench.packs``). ``--group LABEL`` files the runs under a label so pieces run separately add up: the
pass^k printed is then over every stored run of the group.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.types import Mode
from lab.bench import report
from lab.bench.packs import PackEvalError, PackInvalid, pack_for_file, sample_catalog_names
from lab.bench.passk import PassKError, group_runs, group_trials, passk_table, passk_text
from lab.bench.regressions import SUITE_NAME, regressions_suite
from lab.bench.runner import (
    BenchError,
    RunOutcome,
    suite_run,
    summary_json,
    warm_up,
)
from lab.bench.stores import migrations_pending
from lab.bench.suite import Suite, SuiteError, suite_load, suite_store


class Command(BaseCommand):
    help = "Run a benchmark suite (owner turns in one conversation) on fresh demo stores and print the results."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--suite", help="The suite file, e.g. packs/bundled/grocery/evaluation/suites/owner_session.json, "
                                            "or 'regressions': the turns marked in the audit explorer.")
        which.add_argument("--routing", help="A routing set, e.g. packs/bundled/grocery/evaluation/routing_set.json (router mode).")
        parser.add_argument("--mode", default=Mode.ROUTER.value, choices=[mode.value for mode in Mode])
        parser.add_argument("--repeat", "--runs", dest="runs", type=int, default=1,
                            help="Trials of every turn: runs of the suite, each on a fresh store (default 1).")
        parser.add_argument("--k", type=int, default=None, help="Report pass^1..pass^k (default: the trials per turn).")
        parser.add_argument("--group", default=None,
                            help="File the runs under this label; pass^k is then over every stored run of the label.")
        parser.add_argument("--variant", default="", help="A label stored with the runs (prompt or model variant).")
        parser.add_argument("--json", dest="json_out", default=None, help="Also write every figure and turn to this file.")
        parser.add_argument("--start", type=int, default=1, help="--routing only: start at the Nth utterance (a piece).")
        parser.add_argument("--limit", type=int, default=None, help="Only the first N turns (a smoke run).")
        parser.add_argument("--category", default=None,
                            help="Only the turns of this category, in order, in one conversation (e.g. sales_period).")
        parser.add_argument("--fast-path", choices=("on", "off"), default=None,
                            help="--routing only: the fast-path matcher first (default: as SHELFWISE_FAST_PATH says).")
        parser.add_argument("--seed", type=int, default=7, help="Seed of the demo store's generated sales (default 7).")
        parser.add_argument("--pack", default=None,
                            help="The pack version the stores run: a folder, a .zip, slug or slug@N (default: the pack "
                                 "folder the file sits in, when it runs on a pack's sample catalog).")
        parser.add_argument("--keep", action="store_true", help="Keep the benchmark stores instead of deleting them.")
        parser.add_argument("--no-warm", action="store_true", help="Skip loading the models and the throwaway turn.")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar.")

    def handle(self, *args, **options) -> None:
        if options["runs"] < 1:
            raise CommandError("--repeat must be at least 1.")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1.")
        if options["k"] is not None and not 1 <= options["k"] <= options["runs"] and not options["group"]:
            raise CommandError(f"--k must be between 1 and --repeat ({options['runs']}).")
        if options["group"] is not None and not (0 < len(options["group"]) <= 40 and options["group"].isprintable()):
            raise CommandError("--group must be a label of 1 to 40 characters.")
        pending = migrations_pending()
        if pending:
            raise CommandError(f"The database is not migrated ({', '.join(pending[:3])}...): run manage.py migrate first.")
        group = options["group"] or uuid.uuid4().hex[:12]
        if options["routing"]:
            from lab.bench.routing_command import routing_handle

            routing_handle(self, options, group=group)
            return
        if options["start"] != 1 or options["fast_path"] is not None:
            raise CommandError("--start and --fast-path are for --routing (a suite's turns depend on the ones before).")
        suite = self._suite(options)
        self._variant(options)
        out = self.stdout.write
        limited = f", first {len(suite.turns)} turns only" if options["limit"] else ""
        limited += f", category {options['category']} only" if options["category"] else ""
        out(f"Suite {suite.name} ({len(suite.turns)} turns{limited}), mode {options['mode']}, "
            f"{options['runs']} run(s)" + (f", variant {options['variant']}" if options["variant"] else "")
            + (f", group {group}" if options["group"] else ""))
        outcomes, warm = self._runs(suite, options, group=group)
        if len(outcomes) > 1:
            out("")
            out(f"== Summary over {len(outcomes)} runs ({options['mode']}, {suite.name}) ==")
            out(report.runs_text(report.runs_stats([outcome.turns for outcome in outcomes])))
        passk = self.passk_report(options, group=group, ran=len(outcomes))
        if options["json_out"]:
            path = Path(options["json_out"])
            summary = summary_json(outcomes, warm=warm)
            summary["passk_group"], summary["passk"] = group, passk
            path.write_text(json.dumps(summary, indent=2, ensure_ascii=False))
            out(f"Wrote {path}")

    def _suite(self, options) -> Suite:
        options["pack_version"] = None
        try:
            if options["suite"] == SUITE_NAME and not Path(SUITE_NAME).exists():
                suite = regressions_suite()  # the cases marked in the audit explorer
            else:
                version = None
                if options["pack"] or suite_store(options["suite"]) == "sample":
                    version = pack_for_file(options["suite"], spec=options["pack"])
                suite = suite_load(options["suite"], sample_catalog=sample_catalog_names(version) if version else None)
                options["pack_version"] = version
        except (SuiteError, PackEvalError, PackInvalid) as exc:
            raise CommandError(str(exc)) from exc
        if options["category"]:
            categories = sorted({turn.category for turn in suite.turns})
            if options["category"] not in categories:
                raise CommandError(f"The suite has no category {options['category']!r}; it has: {', '.join(categories)}.")
            suite = suite.of_category(options["category"])
        return suite.limited(options["limit"])

    def _variant(self, options) -> None:
        if options["mode"] == Mode.NATIVE.value:
            # The native mode reads its variant per turn from the environment; the label is stored with the run.
            from assistant.modes.native import VARIANTS, native_variant

            if options["variant"]:
                if options["variant"] not in VARIANTS:
                    raise CommandError(f"--variant for the native mode is one of {', '.join(VARIANTS)}.")
                os.environ["SHELFWISE_NATIVE_VARIANT"] = options["variant"]
            options["variant"] = native_variant()

    def _runs(self, suite: Suite, options, *, group: str) -> tuple[list[RunOutcome], dict[str, float]]:
        out, mode = self.stdout.write, options["mode"]
        warm: dict[str, float] = {}
        outcomes: list[RunOutcome] = []
        try:
            if options["no_warm"]:
                out("Models NOT warmed up (--no-warm): the first turn includes loading them.")
            else:
                out("Warming up before timing (models loaded, one throwaway turn on a separate store):")
                warm = warm_up(mode=mode, log=out)
            for number in range(1, options["runs"] + 1):
                outcome = suite_run(
                    suite=suite, mode=mode, run_number=number, variant=options["variant"], keep=options["keep"],
                    seed=options["seed"], progress=not options["no_progress"], pack_version=options["pack_version"],
                    settings={"limit": options["limit"], "category": options["category"],
                              "warmed_up": not options["no_warm"], "passk_group": group, "repeat": options["runs"]},
                )
                outcomes.append(outcome)
                self._print_run(outcome, number, options["runs"])
        except BenchError as exc:
            raise CommandError(str(exc)) from exc
        return outcomes, warm

    def passk_report(self, options, *, group: str, ran: int) -> dict | None:
        """Print pass^k over the group's stored runs (only this invocation's without --group); its figures, or None."""
        out = self.stdout.write
        runs = group_runs(group)
        if len(runs) < 2 and options["k"] is None:
            return None
        try:
            table = passk_table(group_trials(group), k=options["k"])
        except PassKError as exc:
            out(f"pass^k: not computed ({exc})")
            return None
        out("")
        scope = f"group {group}: {len(runs)} stored runs, {ran} of them just now" if options["group"] else f"{ran} runs"
        out(f"== pass^k ({scope}) ==")
        out(passk_text(table, what="utterance" if options["routing"] else "turn"))
        return {"runs": [run.pk for run in runs], **table.as_dict()}

    def _print_run(self, outcome: RunOutcome, number: int, total: int) -> None:
        out = self.stdout.write
        run = outcome.run
        store = f"store {run.store_slug}" + (" (kept)" if outcome.kept_store else " (deleted)")
        out("")
        out(f"== Run {number}/{total} · {run.mode} · {run.suite} · {store} · saved as BenchmarkRun {run.pk} ==")
        out(f"Models: {run.model or '-'}")
        out(report.turn_table(outcome.turns))
        out(report.stats_text(report.run_stats(outcome.turns)))

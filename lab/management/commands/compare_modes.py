"""python manage.py compare_modes [--suite NAME] [--last N | --runs ID,ID,...] [--out DIR]

The three-mode comparison of seed 000's paper from stored benchmark runs (``manage.py bench``):
pass rate with 95% Wilson intervals, per category, per-role model-call durations, model calls
and tokens per turn, failures by kind, exact McNemar tests between modes. Writes
``DIR/report.md``, ``DIR/report.json`` and PNG charts (default ``var/compare``); the same
figures are the page ``/ops/metrics/compare/``.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.comparison import MAX_RUNS, ComparisonError, comparison_build, suites_with_runs
from lab.bench.compare import charts, markdown


class Command(BaseCommand):
    help = "Compare the modes on stored benchmark runs of one suite: Markdown, JSON and PNG charts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--suite", default=None, help="The suite's name as stored (default: the latest run's).")
        parser.add_argument("--last", type=int, default=3, help=f"The latest full runs of each mode (1-{MAX_RUNS}).")
        parser.add_argument("--runs", default=None, help="Exactly these run ids, comma-separated (instead of --last).")
        parser.add_argument("--out", default="var/compare", help="The folder for report.md, report.json and the charts.")

    def handle(self, *args, **options) -> None:
        suites = suites_with_runs()
        suite = options["suite"] or (suites[0] if suites else None)
        if suite is None:
            raise CommandError("No finished benchmark run yet: run manage.py bench in each mode first.")
        run_ids = None
        if options["runs"]:
            parts = [part.strip() for part in options["runs"].split(",") if part.strip()]
            if not parts or not all(part.isdigit() for part in parts):
                raise CommandError("--runs takes run ids separated by commas, e.g. --runs 12,13,14.")
            run_ids = [int(part) for part in parts]
        try:
            comparison = comparison_build(suite=suite, last=options["last"], run_ids=run_ids)
        except ComparisonError as exc:
            known = f" Suites with runs: {', '.join(suites[:8])}." if suites and suite not in suites else ""
            raise CommandError(f"{exc}{known}") from exc
        out = Path(options["out"])
        data = comparison.as_dict()
        text = markdown(data)
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "report.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
            written = charts(data, out)
            images = "".join(f"\n![{path.stem}]({path.name})\n" for path in written)
            (out / "report.md").write_text(text + images)
        except OSError as exc:
            raise CommandError(f"Cannot write the report in {out}: {exc.strerror}.") from exc
        self.stdout.write(text)
        self.stdout.write(f"Wrote {out / 'report.md'}, report.json and {len(written)} chart(s).")

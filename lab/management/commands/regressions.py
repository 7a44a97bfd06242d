"""python manage.py regressions list | export FILE [--case ID ...]

The live turns marked as regression cases in the audit explorer (/ops/audit/). ``export`` writes
them as a suite file of replayed cases (``"store": "captured"``) that ``bench --suite FILE`` runs
on fresh stores holding each case's captured products; ``bench --suite regressions`` runs the
marked cases straight from the database.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.bench.regressions import regressions_data, regressions_suite
from lab.bench.suite import SuiteError


class Command(BaseCommand):
    help = "List the marked regression cases, or export them as a suite file that bench runs."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("list", help="One line per marked case.")
        export = sub.add_parser("export", help="Write the cases as a suite file (bench --suite FILE runs it).")
        export.add_argument("file")
        export.add_argument("--case", type=int, action="append", dest="cases", help="Only this case id (repeatable).")

    def handle(self, *args, **options) -> None:
        try:
            suite = regressions_suite(ids=options.get("cases"))
        except SuiteError as exc:
            raise CommandError(str(exc)) from exc
        if options["action"] == "list":
            for turn in suite.turns:
                before = f" (after {len(turn.context)} turns)" if turn.context else ""
                self.stdout.write(f"{turn.case}: {turn.say!r}{before} expects {json.dumps(dict(turn.expect))}")
            return
        path = Path(options["file"])
        if options.get("cases") and len(suite.turns) != len(set(options["cases"])):
            found = {turn.case for turn in suite.turns}
            missing = [case for case in options["cases"] if f"case-{case}" not in found]
            raise CommandError(f"No regression case {missing[0]}.")
        try:
            path.write_text(json.dumps(regressions_data(ids=options.get("cases")), indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise CommandError(f"Cannot write {path}: {exc.strerror}.") from exc
        self.stdout.write(f"Wrote {len(suite.turns)} case(s) to {path}; run them with: manage.py bench --suite {path}")

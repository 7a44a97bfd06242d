"""``python manage.py pack validate|install|eval PATH``: check a pack (a folder or a .zip), store it, evaluate it.

``validate`` lists every problem (file, path inside it, reason) and exits 1 when there is one;
``install`` validates, then stores the pack as a draft version of its business type, or publishes
it with ``--publish``. A refused pack changes nothing.

``eval PATH_OR_SLUG [--runs N] [--fast-path on|off] [--limit N] [--json OUT]`` runs the version's
suites in router mode N times each and its routing set once, on fresh stores of its type pinned to
that version (draft or published), with the lab's bench runner and routing scorer
(``lab.bench.pack_eval``), and prints each run's pass rate, the routing set's per-action accuracy
with a 95% Wilson interval, and the misses. A folder or zip is installed as a draft first, unless
those exact files are stored; a slug is its newest version (``slug@N``: that one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from packs.errors import PackInvalid
from packs.source import read_path
from packs.validate import pack_validate


class Command(BaseCommand):
    help = "Validate a business-type pack, or validate and install it (as a draft, or --publish)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["validate", "install", "eval"])
        parser.add_argument("path", help="The pack: a folder with pack.yaml, or a .zip archive of one "
                                         "(eval: also a stored version, slug or slug@N).")
        parser.add_argument("--runs", type=int, default=3, help="eval: runs of each suite (default 3).")
        parser.add_argument("--fast-path", choices=("on", "off"), default=None,
                            help="eval: the router's fast path (default: as SHELFWISE_FAST_PATH says).")
        parser.add_argument("--limit", type=int, default=None,
                            help="eval: only the first N turns of each suite and utterances of the routing set.")
        parser.add_argument("--no-warm", action="store_true", help="eval: skip loading the models first.")
        parser.add_argument("--publish", action="store_true", help="install: publish the version (it never changes after).")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "eval":
            self._eval(options)
            return
        path = Path(options["path"])
        try:
            pack = pack_validate(read_path(path))
            if options["action"] == "install":
                from packs.services import pack_install

                version = pack_install(pack=pack, publish=options["publish"], actor="cli")
                result = {"ok": True, "slug": pack.slug, "version": version.version, "status": version.status,
                          "digest": version.digest}
            else:
                result = {"ok": True, "slug": pack.slug, "version": pack.version, "digest": pack.digest}
        except PackInvalid as exc:
            if options["as_json"]:
                self.stdout.write(json.dumps({"ok": False, "problems": [p.as_dict() for p in exc.problems]}))
            else:
                for problem in exc.problems:
                    self.stderr.write(str(problem))
            raise CommandError(f"{path}: {len(exc.problems)} problem(s); nothing was stored.", returncode=1) from exc
        if options["as_json"]:
            self.stdout.write(json.dumps(result))
        else:
            done = "valid" if options["action"] == "validate" else f"installed as {result['status']}"
            self.stdout.write(f"{pack.slug} version {result['version']}: {done} ({pack.digest[:12]}).")

    def _eval(self, options: dict[str, Any]) -> None:
        # The evaluation is the lab's (bench runner, routing scorer); the serving runtime never imports it.
        from lab.bench.pack_eval import evaluation_dict, evaluation_text, pack_evaluate
        from lab.bench.packs import PackEvalError, pack_version_find
        from lab.bench.runner import BenchError, pack_label
        from lab.bench.stores import migrations_pending

        if options["runs"] < 1 or (options["limit"] is not None and options["limit"] < 1):
            raise CommandError("--runs and --limit must be at least 1.")
        if migrations_pending():
            raise CommandError("The database is not migrated: run manage.py migrate first.")
        try:
            version = pack_version_find(options["path"])
        except PackInvalid as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{options['path']}: {len(exc.problems)} problem(s); nothing was evaluated.") from exc
        except PackEvalError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Evaluating {pack_label(version)}")
        fast = None if options["fast_path"] is None else options["fast_path"] == "on"
        try:
            result = pack_evaluate(version=version, runs=options["runs"], fast=fast, limit=options["limit"],
                                   warm=not options["no_warm"],
                                   log=self.stderr.write if options["as_json"] else self.stdout.write)
        except (PackEvalError, BenchError) as exc:
            raise CommandError(str(exc)) from exc
        if options["as_json"]:
            self.stdout.write(json.dumps(evaluation_dict(result)))
        else:
            self.stdout.write(evaluation_text(result))

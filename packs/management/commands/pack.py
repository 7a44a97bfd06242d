"""``python manage.py pack validate|install PATH``: check a pack (a folder or a .zip) and store it.

``validate`` lists every problem (file, path inside it, reason) and exits 1 when there is one;
``install`` validates, then stores the pack as a draft version of its business type, or publishes
it with ``--publish``. A refused pack changes nothing.
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
        parser.add_argument("action", choices=["validate", "install"])
        parser.add_argument("path", help="The pack: a folder with pack.yaml, or a .zip archive of one.")
        parser.add_argument("--publish", action="store_true", help="install: publish the version (it never changes after).")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
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

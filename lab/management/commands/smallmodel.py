"""python manage.py smallmodel generate|train|eval [options]

- ``generate [--n 3000] [--seed 0] [--out var/smallmodel] [--dev N] [--heldout N] [--quiet]``: write the
  small model's training data (train/dev/heldout JSONL and summary.json) from the real MCP tools on a
  throwaway randomised store, with a progress bar.
- ``train ...`` and ``eval ...``: hand the rest of the command line to ``lab.small.train.main``
  and ``lab.small.evaluate.main`` (imported only when asked for: they need torch).
"""

from __future__ import annotations

import argparse
import json

from django.core.management.base import BaseCommand, CommandError, CommandParser


def _generate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="manage.py smallmodel generate")
    parser.add_argument("--n", type=int, default=3000, help="Training conversations (default 3000).")
    parser.add_argument("--seed", type=int, default=0, help="Random seed; the same seed gives the same files.")
    parser.add_argument("--out", default="var/smallmodel", help="Output folder (default var/smallmodel).")
    parser.add_argument("--dev", type=int, default=None, help="Dev conversations (default n/10, 50..600).")
    parser.add_argument("--heldout", type=int, default=None, help="Held-out conversations (default n/10, 50..600).")
    parser.add_argument("--quiet", action="store_true", help="No progress bar.")
    return parser


class Command(BaseCommand):
    help = "The small model: generate its training data, train it, evaluate it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["generate", "train", "eval"])
        parser.add_argument("rest", nargs=argparse.REMAINDER, help="Options of the action.")

    def handle(self, *args, **options) -> None:
        action, rest = options["action"], list(options["rest"] or [])
        if action == "generate":
            try:
                opts = _generate_parser().parse_args(rest)
            except SystemExit as exc:
                raise CommandError("Bad options for generate; see --help.") from exc
            if opts.n < 1:
                raise CommandError("--n must be at least 1.")
            from lab.small.generate import generate

            summary = generate(out_dir=opts.out, n=opts.n, seed=opts.seed, progress=not opts.quiet,
                               dev=opts.dev, heldout=opts.heldout)
            self.stdout.write(json.dumps(summary, indent=2))
            return
        module = "lab.small.train" if action == "train" else "lab.small.evaluate"
        try:
            main = __import__(module, fromlist=["main"]).main
        except ImportError as exc:
            raise CommandError(f"{module} is not available: {exc}") from exc
        result = main(argv=rest)
        if isinstance(result, int) and result != 0:
            raise CommandError(f"{action} failed (exit status {result}).")

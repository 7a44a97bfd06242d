"""python manage.py bfcl run --model NAME [--conditions plain,harness] [--categories ...] [--limit N | --sample N [--seed S]] [--budget-s S]
python manage.py bfcl report [--out var/bfcl]

The Berkeley Function Calling Leaderboard's single-turn, non-web categories (BFCL v4, from the
``bfcl-eval`` package) on a model through the project's backends, plain and through the harness
(``lab.bfcl``), scored by BFCL's own AST checker. ``run`` is resumable (each entry once per
condition, in the package's order, or a seeded random sample outside the dev slice with ``--sample``);
``report`` writes ``report.md`` and ``report.json``.
Models: as ``manage.py reliability`` names them (``lab.reliability.models``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from inference.base import InferenceError
from lab.bfcl.conditions import CONDITIONS
from lab.bfcl.data import CATEGORIES, BfclDataError, entries, sample
from lab.bfcl.report import markdown, summarise
from lab.bfcl.runner import results_load, run_condition
from lab.reliability import models as model_registry

N_CTX = 4096  # BFCL's longest single-turn prompts with every function listed


class Command(BaseCommand):
    help = "BFCL v4 (single-turn, non-web) on a model: plain prompting and the harness, BFCL's AST checker."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=("run", "report"))
        parser.add_argument("--model", help="qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, gemma-3-270m, smollm2-135m, smollm2-135m-small, gguf:PATH, openai:MODEL@URL")
        parser.add_argument("--conditions", default="plain,harness")
        parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated BFCL categories")
        parser.add_argument("--limit", type=int, default=None, help="the first N entries of each category")
        parser.add_argument("--sample", type=int, default=None,
                            help="N entries of each category drawn at random outside the dev slice (the first 5)")
        parser.add_argument("--seed", type=int, default=2026, help="the sample's seed (default 2026)")
        parser.add_argument("--skip", type=int, default=0, help="leave out the sample's first N (entries looked at)")
        parser.add_argument("--budget-s", type=float, default=None, help="start no new entry after this many seconds")
        parser.add_argument("--out", default="var/bfcl")

    def handle(self, *args, **options) -> None:
        out = Path(options["out"])
        if options["action"] == "report":
            self._report(out)
            return
        if not options["model"]:
            raise CommandError("run needs --model.")
        conditions = [name.strip() for name in options["conditions"].split(",") if name.strip()]
        unknown = [name for name in conditions if name not in CONDITIONS]
        if not conditions or unknown:
            raise CommandError(f"--conditions are some of: {', '.join(CONDITIONS)}.")
        if any(options[name] is not None and options[name] < 1 for name in ("limit", "sample")):
            raise CommandError("--limit and --sample must be at least 1.")
        if options["limit"] is not None and options["sample"] is not None:
            raise CommandError("--limit (the first entries) or --sample (drawn at random), not both.")
        try:
            spec = model_registry.model_spec(options["model"])
            chosen = [entry for name in options["categories"].split(",") if name.strip()
                      for entry in (sample(name.strip(), options["sample"], seed=options["seed"], skip=options["skip"])
                                    if options["sample"] else entries(name.strip(), limit=options["limit"]))]
        except (model_registry.ModelError, BfclDataError) as exc:
            raise CommandError(str(exc)) from exc
        chat_template = _chat_template(spec) if {"harness", "harness-tag", "harness-select"} & set(conditions) else None
        backend = model_registry.backend_for(spec, n_ctx=N_CTX)
        try:
            backend.warm_up()  # a model that cannot load stops here, not as an error on every entry
        except InferenceError as exc:
            raise CommandError(f"{spec.name} cannot run: {exc}") from exc
        started = datetime.now(UTC)
        for condition in conditions:
            budget = options["budget_s"]
            left_s = None if budget is None else budget - (datetime.now(UTC) - started).total_seconds()
            try:
                answered = run_condition(backend=backend, model=spec.name, condition=condition, entries=chosen,
                                         out=out, slug=spec.slug, budget_s=left_s, chat_template=chat_template)
            except InferenceError as exc:
                raise CommandError(f"{spec.name} cannot run: {exc}") from exc
            self.stdout.write(f"{spec.name} {condition}: {answered} answered now")

    def _report(self, out: Path) -> None:
        records = results_load(out)
        if not records:
            raise CommandError(f"No results under {out / 'runs'}: run `manage.py bfcl run --model ...` first.")
        summary = summarise(records)
        summary["generated_utc"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
        (out / "report.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        text = markdown(summary)
        (out / "report.md").write_text(text, encoding="utf-8")
        self.stdout.write(text)


def _chat_template(spec: model_registry.ModelSpec) -> str:
    """The GGUF's own chat template, which the harness renders the functions with."""
    from assistant.modes.native.template import TemplateError, gguf_chat_template
    from inference.bundle import BundleError, bundle_prepare

    if spec.kind != "llamacpp":
        raise CommandError("The harness renders the model's own chat template from its GGUF file: use a GGUF model.")
    try:
        return gguf_chat_template(Path(spec.path) if spec.path else bundle_prepare().path)
    except (TemplateError, BundleError, OSError) as exc:
        raise CommandError(f"{spec.name} has no usable chat template: {exc}") from exc

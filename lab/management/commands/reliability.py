"""python manage.py reliability {run,probe,report} — seed 001's reliability benchmark (issue 20).

- ``run --model M [--conditions greedy,sampled,...] [--budget-s S] [--limit N]``: answer the 100
  prompts (``lab/reliability/prompts.json``) under each condition; results are appended to
  ``<out>/runs/<model>__<condition>.jsonl`` and a rerun resumes where the last one stopped.
- ``probe --model M``: the resource probe in a fresh subprocess, saved to ``<out>/probes/``.
- ``report``: ``<out>/report.md``, ``report.json`` and PNG charts from everything recorded.

Models: qwen2.5-coder-1.5b, smollm2-135m, smollm2-135m-small, gguf:PATH, openai:MODEL@URL
(``lab.reliability.models``). Conditions: greedy, sampled, greedy-json, sampled-json. ``--out``
defaults to ``var/reliability``.
"""

from __future__ import annotations

import json
import os
import platform
from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from inference.base import InferenceError
from lab.reliability import models as model_registry
from lab.reliability.probe import probe_run
from lab.reliability.prompt_set import load
from lab.reliability.report import charts, markdown, summarise
from lab.reliability.runner import condition_get, results_load, results_path, run_condition


class Command(BaseCommand):
    help = "Seed 001's reliability benchmark: run a model under decoding conditions, probe it, report."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=("run", "probe", "report"))
        parser.add_argument("--model", help="qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, gemma-3-270m, smollm2-135m, smollm2-135m-small, gguf:PATH, openai:MODEL@URL")
        parser.add_argument("--conditions", default="greedy,sampled", help="comma-separated (greedy, sampled, greedy-json, sampled-json)")
        parser.add_argument("--out", default="var/reliability")
        parser.add_argument("--budget-s", type=float, default=None, help="start no new prompt after this many seconds")
        parser.add_argument("--limit", type=int, default=None, help="answer at most this many new prompts per condition")

    def handle(self, *args, **options) -> None:
        out = Path(options["out"])
        if options["action"] == "report":
            self._report(out)
            return
        if not options["model"]:
            raise CommandError(f"{options['action']} needs --model.")
        try:
            spec = model_registry.model_spec(options["model"])
        except model_registry.ModelError as exc:
            raise CommandError(str(exc)) from exc
        if options["action"] == "probe":
            self._probe(spec, out)
        else:
            self._run(spec, out, options)

    def _run(self, spec: model_registry.ModelSpec, out: Path, options: dict) -> None:
        try:
            conditions = [condition_get(name.strip()) for name in options["conditions"].split(",") if name.strip()]
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if not conditions:
            raise CommandError("--conditions names no condition.")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1.")
        prompts = load()
        backend = model_registry.backend_for(spec)
        budget = options["budget_s"]
        started = datetime.now(UTC)
        for condition in conditions:
            left_s = None if budget is None else budget - (datetime.now(UTC) - started).total_seconds()
            if left_s is not None and left_s <= 0:
                self.stdout.write(f"{condition.name}: not started, the budget is spent")
                continue
            try:
                answered, left = run_condition(
                    backend=backend, model=spec.name, prompts=prompts, condition=condition,
                    path=results_path(out, spec.slug, condition.name), budget_s=left_s, limit=options["limit"],
                    log=self.stdout.write)
            except InferenceError as exc:
                raise CommandError(f"{spec.name} cannot run: {exc}") from exc
            self.stdout.write(f"{spec.name} {condition.name} ({condition.describe()}): {answered} answered now, "
                              f"{left} left" + (" (rerun to resume)" if left else ""))

    def _probe(self, spec: model_registry.ModelSpec, out: Path) -> None:
        if spec.kind != "llamacpp":
            raise CommandError("The resource probe loads the model in a fresh process: llamacpp models only.")
        try:
            figures = probe_run(spec.name)
        except (RuntimeError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        figures["measured_utc"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
        figures["load_average"] = os.getloadavg()[0]
        (out / "probes").mkdir(parents=True, exist_ok=True)
        (out / "probes" / f"{spec.slug}.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        self.stdout.write(json.dumps(figures))

    def _report(self, out: Path) -> None:
        records = results_load(out)
        if not records:
            raise CommandError(f"No results under {out / 'runs'}: run `manage.py reliability run --model ...` first.")
        probes = {}
        for path in sorted((out / "probes").glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            probes[data["model"]] = data
        meta = {"generated (UTC)": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"), "machine": f"{platform.machine()}, "
                f"{os.cpu_count()} cores", "load average (1 min) at report time": f"{os.getloadavg()[0]:.2f}"}
        summary = summarise(records, prompts=len(load()), probes=probes, meta=meta)
        (out / "report.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        (out / "report.md").write_text(markdown(summary), encoding="utf-8")
        pngs = charts(summary, out)
        self.stdout.write(f"Wrote {out / 'report.md'}, {out / 'report.json'}" + "".join(f", {p}" for p in pngs))

"""Run one model over BFCL categories under the two conditions, one JSON line per entry, resumable.

Results go to ``<out>/runs/<model>__<condition>.jsonl`` (id, category, passed, BFCL's error type,
the decoded calls, the raw answer, model calls, milliseconds); a later run skips the entries
already there, so a slow model runs in pieces (``budget_s``, ``limit``).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inference.base import InferenceBackend
from lab.bfcl import conditions, native_harness, select_harness
from lab.bfcl.checker import score
from lab.bfcl.conditions import Answer
from lab.bfcl.data import Entry
from lab.reliability.runner import done_ids, results_path  # one resumable-results layout for both benchmarks

Answerer = Callable[[InferenceBackend, Entry, Callable[[], float]], Answer]


def answerer(condition: str, *, chat_template: str | None) -> Answerer:
    """The function that answers an entry under ``condition`` (the harness needs the model's chat template)."""
    if condition in ("harness", "harness-tag"):
        if chat_template is None:
            raise ValueError("The harness needs the model's chat template (a GGUF model).")
        return functools.partial(native_harness.harness, chat_template=chat_template, fenced=condition == "harness")
    if condition == "harness-select":
        if chat_template is None:
            raise ValueError("The harness needs the model's chat template (a GGUF model).")
        return functools.partial(select_harness.harness_select, chat_template=chat_template)
    return {"plain": conditions.plain, "harness-json": conditions.harness_json}[condition]


def run_condition(*, backend: InferenceBackend, model: str, condition: str, entries: list[Entry], out: Path,
                  slug: str, budget_s: float | None = None, clock: Callable[[], float] = time.perf_counter,
                  on_entry: Callable[[dict[str, Any]], None] | None = None, chat_template: str | None = None) -> int:
    """Answer and score every entry not yet in the condition's file; returns how many were answered now."""
    answer_entry = answerer(condition, chat_template=chat_template)
    path = results_path(out, slug, condition)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = done_ids(path)
    started, answered = clock(), 0
    with path.open("a", encoding="utf-8") as handle:
        for entry in entries:
            if entry.id in done:
                continue
            if budget_s is not None and clock() - started > budget_s:
                break
            answer = answer_entry(backend, entry, clock)
            passed, error_type = score(entry, answer.calls)
            record = {"id": entry.id, "category": entry.category, "model": model, "condition": condition,
                      "passed": passed, "error_type": error_type, "calls": answer.calls, "text": answer.text[:2000],
                      "decode_error": answer.error, "model_calls": answer.model_calls, "ms": round(answer.ms, 1)}
            handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            handle.flush()
            answered += 1
            if on_entry is not None:
                on_entry(record)
    return answered


def results_load(out: Path) -> list[dict[str, Any]]:
    """Every stored answer under ``out/runs``."""
    records = []
    for path in sorted((out / "runs").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    return records

"""Run one model over the prompt set under decoding conditions, one JSON line per prompt, resumable.

A condition is greedy or sampled (temperature 0.7, top-p 0.9, seed 42 on every request, as in
seed 001) and free or constrained (the five tools' call schema as a grammar, where the backend
allows). Every prompt is sent as the same two chat messages (the tool list, then the prompt) with
150 new tokens at most. Results go to ``<out>/runs/<model>__<condition>.jsonl``; a later run
skips the prompts already there, so a slow model runs in pieces (``budget_s``, ``limit``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inference.base import InferenceBackend, InferenceError, ModelRequest, Role
from lab.reliability.prompt_set import PATH as PROMPTS_PATH
from lab.reliability.scoring import score
from lab.reliability.tools import call_schema, system_message

MAX_TOKENS = 150
SEED = 42


@dataclass(frozen=True)
class Condition:
    name: str
    temperature: float
    top_p: float | None
    constrained: bool

    def describe(self) -> str:
        decoding = "greedy" if self.temperature == 0 else f"sampled (T={self.temperature}, top-p {self.top_p}, seed {SEED})"
        return decoding + (", JSON-schema grammar" if self.constrained else ", free text")


CONDITIONS = {
    "greedy": Condition("greedy", 0.0, None, False),
    "sampled": Condition("sampled", 0.7, 0.9, False),
    "greedy-json": Condition("greedy-json", 0.0, None, True),
    "sampled-json": Condition("sampled-json", 0.7, 0.9, True),
}


def condition_get(name: str) -> Condition:
    """Raises ValueError naming the known conditions."""
    try:
        return CONDITIONS[name]
    except KeyError:
        raise ValueError(f"Unknown condition {name!r}; conditions are {', '.join(CONDITIONS)}.") from None


def prompt_request(item: dict[str, Any], condition: Condition) -> ModelRequest:
    """The request for one prompt under ``condition``."""
    return ModelRequest(
        role=Role.GENERAL,
        messages=({"role": "system", "content": system_message()}, {"role": "user", "content": item["prompt"]}),
        temperature=condition.temperature,
        top_p=condition.top_p,
        seed=SEED if condition.temperature > 0 else None,
        max_tokens=MAX_TOKENS,
        json_schema=call_schema() if condition.constrained else None,
        schema_name="tool_call",
    )


def prompts_digest(path: Path = PROMPTS_PATH) -> str:
    """The first 12 hex digits of the prompt file's sha256, recorded with every result."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def results_path(out: Path, model_slug: str, condition: str) -> Path:
    return out / "runs" / f"{model_slug}__{condition}.jsonl"


def done_ids(path: Path) -> set[str]:
    """The prompt ids already recorded in ``path`` (a torn last line is ignored and rewritten)."""
    if not path.is_file():
        return set()
    ids = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            ids.add(json.loads(line)["id"])
        except (ValueError, KeyError, TypeError):
            continue
    return ids


def _mend(path: Path) -> None:
    """Cut a torn last line (a run killed mid-write) so the next line starts clean."""
    if not path.is_file():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _one(backend: InferenceBackend, item: dict[str, Any], condition: Condition) -> dict[str, Any]:
    request = prompt_request(item, condition)
    started = time.perf_counter()
    try:
        response = backend.complete(request)
    except InferenceError as exc:  # recorded as an unparseable answer, with the reason
        return {"text": "", "error": str(exc), "ms": round((time.perf_counter() - started) * 1000, 1),
                "prompt_tokens": 0, "completion_tokens": 0, "finish": "error"}
    return {"text": response.text, "error": None, "ms": round(response.duration_ms or
            (time.perf_counter() - started) * 1000, 1), "prompt_tokens": response.prompt_tokens,
            "completion_tokens": response.completion_tokens, "finish": response.finish_reason}


def run_condition(*, backend: InferenceBackend, model: str, prompts: list[dict[str, Any]], condition: Condition,
                  path: Path, budget_s: float | None = None, limit: int | None = None,
                  log: Callable[[str], None] = lambda line: None) -> tuple[int, int]:
    """Answer the prompts not yet in ``path``, appending one line each; returns (newly done, still left).

    Stops before a prompt once ``budget_s`` seconds have passed or ``limit`` prompts were answered.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _mend(path)
    done = done_ids(path)
    todo = [item for item in prompts if item["id"] not in done]
    digest = prompts_digest()
    started = time.monotonic()
    answered = 0
    with path.open("a", encoding="utf-8") as out:
        for item in todo:
            if (limit is not None and answered >= limit) or (budget_s is not None and time.monotonic() - started > budget_s):
                break
            answer = _one(backend, item, condition)
            outcome = score(answer["text"], tool=item["tool"], parameters=item["parameters"])
            record = {"id": item["id"], "model": model, "backend": backend.kind, "condition": condition.name,
                      "tool": item["tool"], "prompts": digest, **answer, **outcome.as_dict()}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            answered += 1
            if answered % 10 == 0:
                log(f"  {model} {condition.name}: {len(done) + answered}/{len(prompts)}")
    return answered, len(todo) - answered


def results_load(out: Path) -> list[dict[str, Any]]:
    """Every recorded result under ``<out>/runs`` (the report's input)."""
    records = []
    for path in sorted((out / "runs").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    return records

"""Step accuracy of the small model on held-out conversations (seed 000 §4.3).

``python manage.py smallmodel eval [--adapter DIR] [--limit N]`` (or ``main(argv=[...])``). For
each record of ``dev.jsonl`` (seen products, unseen conversations) and ``heldout.jsonl`` (the
four products never in training), the model gets each supervised step's prompt exactly as the
runtime renders it (``runtime.compact_lines``, ending ``###``) and writes one line, greedily:

- first call: the final turn's first ``Call`` step; exact = same tool and same arguments
  (strings case-insensitive), tool = same tool;
- right arguments: of the first calls with the right tool, those with exactly the gold arguments;
- answers after tool results: ``Answer`` steps that follow a ``Result``; faithful = an Answer
  line whose numbers are exactly the gold answer's numbers and that names the same products
  of the result (case-insensitive), exact = the gold text.

Prints a table and writes ``eval.json`` into the data folder (``--out`` elsewhere). The default model is the
runtime's: the bundled base on llama.cpp with the shipped adapter, exactly what the small mode serves.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

DEFAULT_DATA = "var/smallmodel"


def _same_arguments(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_arguments(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_arguments(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().casefold() == b.strip().casefold()
    return a == b


def _products_named(text: str, names: list[str]) -> set[str]:
    low = text.casefold()
    return {name for name in names if name.casefold() in low}


def evaluate_records(records: list[dict[str, Any]], backend: Any, *, catalog_names: list[str]) -> dict[str, Any]:
    """Counts for one split: first calls (exact, tool) and answers after results (correct, exact)."""
    from assistant.modes.small import protocol
    from assistant.modes.small.runtime import PROMPT_END, compact_lines, line_budget
    from assistant.reply_numbers import numbers_in
    from inference.base import ModelRequest, Role

    counts = {"first_call": 0, "first_call_exact": 0, "first_call_tool": 0,
              "answers": 0, "answers_correct": 0, "answers_exact": 0, "failures": []}
    for record in records:
        lines = compact_lines(record["lines"])
        first_call_seen = False
        for prompt, completion in protocol.steps(lines):
            gold_tag, gold_text = completion.split(": ", 1)
            gold_text = gold_text.strip()
            previous = prompt[: -len(protocol.NEXT)].rstrip("\n").rsplit("\n", 1)[-1]
            after_result = previous.startswith(protocol.RESULT)
            is_first_call = gold_tag == "Call" and not first_call_seen
            if gold_tag == "Call":
                first_call_seen = True
            if not (is_first_call or (gold_tag == "Answer" and after_result)):
                continue
            # The runtime's budget: one line, or room to restate the result just before it.
            budget = line_budget([{"tag": "Result", "text": previous[len(protocol.RESULT):]}] if after_result else [])
            response = backend.complete(ModelRequest(role=Role.SMALL, prompt=prompt[: -len(protocol.NEXT)] + PROMPT_END,
                                                     max_tokens=budget, stop=("\n",)))
            parsed = protocol.parse_next(response.text.strip())
            if is_first_call:
                counts["first_call"] += 1
                gold = protocol.parse_call(gold_text)
                got = protocol.parse_call(parsed[1]) if parsed and parsed[0] == "Call" else None
                if got is not None and gold is not None and got.name == gold.name:
                    counts["first_call_tool"] += 1
                    if _same_arguments(got.arguments, gold.arguments):
                        counts["first_call_exact"] += 1
                        continue
                counts["failures"].append({"id": record["id"], "step": "call", "gold": gold_text,
                                           "got": response.text.strip()})
            else:
                counts["answers"] += 1
                text = parsed[1] if parsed and parsed[0] == "Answer" else ""
                if text.strip().casefold() == gold_text.casefold():
                    counts["answers_exact"] += 1
                if text and numbers_in(text) == numbers_in(gold_text) and \
                        _products_named(text, catalog_names) >= _products_named(gold_text, catalog_names):
                    counts["answers_correct"] += 1
                else:
                    counts["failures"].append({"id": record["id"], "step": "answer", "gold": gold_text,
                                               "got": response.text.strip()})
    return counts


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def main(argv: list[str] | None = None, **options: Any) -> int:
    """Evaluate the adapter on dev (seen products) and heldout (held-out products); prints a table."""
    parser = argparse.ArgumentParser(prog="smallmodel eval", description=__doc__.split("\n")[0])
    parser.add_argument("--adapter", default="", help="a LoRA adapter GGUF (run on llama.cpp over the bundled base) or a "
                        "PEFT folder (run on transformers); default: the runtime's small model as configured")
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="records per split (0 = all), a fixed random sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv or [])
    for key, value in options.items():
        if value is not None and hasattr(args, key):
            setattr(args, key, value)
    backend = _backend(args.adapter)
    backend.warm_up()
    names = sorted({product["name"] for product in _demo_products()}, key=len, reverse=True)
    report: dict[str, Any] = {"adapter": args.adapter or "runtime", "model": backend.model, "limit": args.limit}
    started = time.monotonic()
    for split in ("dev", "heldout"):
        path = Path(args.data) / f"{split}.jsonl"
        records = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        if args.limit and len(records) > args.limit:
            records = random.Random(args.seed).sample(records, args.limit)
        report[split] = evaluate_records(records, backend, catalog_names=names)
        report[split]["records"] = len(records)
    report["seconds"] = round(time.monotonic() - started, 1)
    print(f"{'split':<10}{'records':>8}  {'first call exact':>18}  {'right tool':>18}  {'right arguments':>18}  "
          f"{'answer faithful':>18}")
    for split, label in (("dev", "seen"), ("heldout", "held-out")):
        c = report[split]
        print(f"{label:<10}{c['records']:>8}  {_pct(c['first_call_exact'], c['first_call']):>18}  "
              f"{_pct(c['first_call_tool'], c['first_call']):>18}  {_pct(c['first_call_exact'], c['first_call_tool']):>18}  "
              f"{_pct(c['answers_correct'], c['answers']):>18}")
    out = Path(args.out) if args.out else Path(args.data) / "eval.json"
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{report['seconds']}s; details in {out}")
    return 0


def _backend(adapter: str) -> Any:
    """The model to evaluate: the runtime's (default), an adapter GGUF on llama.cpp, or a PEFT folder on transformers."""
    from inference.base import Role
    from inference.config import get_backend

    if not adapter:
        return get_backend(Role.SMALL)
    path = Path(adapter)
    if path.is_dir():
        from inference.transformers_backend import TransformersBackend

        return TransformersBackend(role=Role.SMALL, adapter=path)
    from assistant.modes.small.base_model import gguf_path
    from inference.llamacpp import LlamaCppBackend, LlamaCppOptions

    return LlamaCppBackend(role=Role.SMALL, model_path=gguf_path(),
                           options=LlamaCppOptions(n_ctx=2048, lora=str(path.resolve())))


def _demo_products() -> list[dict[str, Any]]:
    """The demo catalog's product names (every generated store draws from it)."""
    from ledger import demo

    return [{"name": value.name} for value in vars(demo).get("CATALOG", ())
            if isinstance(value, demo.DemoProduct)]

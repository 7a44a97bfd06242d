"""Time one training step of the small model's base on this CPU, part by part: forward, head + loss, backward, AdamW.

``python -m lab.small.profile [--configs full-fp32,lora-bf16] [--rows 8 --len 224 --steps 3]``
(``--base``: the dequantised base folder that ``smallmodel train`` creates, ``var/models/smollm2-135m``).

A config is ``<what>-<precision>``. What: ``full`` (every weight), ``lora`` (LoRA r16 on all
layers), ``loratopN`` (LoRA on the top N layers), ``freezeN`` (full fine-tune above the bottom N
layers). Precision (``lab.small.precision``): ``fp32``, ``bf16ac`` (bfloat16 autocast over float32
weights), ``bf16`` (bfloat16 weights; float32 masters of the trained weights, which the optimizer
steps, the time to copy them counted in ``optimizer``). The older names still work: ``full32`` =
``full-fp32``, ``fullbf16ac`` = ``full-bf16ac``, ``fullbf16w`` = ``full-bf16``, ``lora32`` =
``lora-fp32``, ``lora32topN`` = ``loratopN-fp32``.

The model is built by the trainer's own ``build_model`` and trained through its ``Masters``, on
random token ids with the last third of each row labelled (the data's share). Run it under the
heavy lock; it prints one JSON line per config (median seconds per part over ``--steps`` steps
after one warm-up step, and tokens/s of the whole step).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

LEGACY = {"full32": "full-fp32", "fullbf16ac": "full-bf16ac", "fullbf16w": "full-bf16", "lora32": "lora-fp32"}
PRECISION = {"fp32": "fp32", "bf16ac": "bf16-autocast", "bf16": "bf16"}


def parse(name: str) -> dict[str, Any]:
    """A config name as trainer options: ``{"lora": bool, "lora_layers": n, "freeze_layers": n, "precision": str}``.

    Raises:
        ValueError: a name this module does not know.
    """
    name = LEGACY.get(name, name)
    if name.startswith("lora32top"):
        name = "loratop" + name[len("lora32top"):] + "-fp32"
    what, _, precision = name.partition("-")
    if precision not in PRECISION:
        raise ValueError(f"unknown precision in {name!r}; use one of {', '.join(PRECISION)}")
    options: dict[str, Any] = {"lora": False, "lora_layers": 0, "freeze_layers": 0, "precision": PRECISION[precision]}
    if what == "full":
        pass
    elif what == "lora":
        options["lora"] = True
    elif what.startswith("loratop") and what[7:].isdigit():
        options.update(lora=True, lora_layers=int(what[7:]))
    elif what.startswith("freeze") and what[6:].isdigit():
        options["freeze_layers"] = int(what[6:])
    else:
        raise ValueError(f"unknown config {name!r}")
    return options


def step_times(config: Any, base: str, ids: Any, labels: Any, steps: int) -> dict[str, Any]:
    """Median seconds per part of ``steps`` training steps (after one warm-up step) of one config."""
    from pathlib import Path

    import torch

    from lab.small.precision import Masters, autocast
    from lab.small.train import build_model

    model, inner = build_model(config, Path(base))
    model.train()
    masters = Masters([(n, p) for n, p in model.named_parameters() if p.requires_grad])
    optimizer = torch.optim.AdamW(masters.params, lr=1e-5)
    times: dict[str, list[float]] = {"forward": [], "head_loss": [], "backward": [], "optimizer": []}
    for step in range(steps + 1):
        t0 = time.perf_counter()
        with autocast(config.precision):
            hidden = inner.model(input_ids=ids).last_hidden_state
        t1 = time.perf_counter()
        with autocast(config.precision):
            targets = labels[:, 1:]
            where = targets != -100
            logits = inner.lm_head(hidden[:, :-1][where]).float()
        loss = torch.nn.functional.cross_entropy(logits, targets[where])
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        masters.gradients_in()
        torch.nn.utils.clip_grad_norm_(masters.params, 0.3)
        optimizer.step()
        masters.weights_out()
        optimizer.zero_grad(set_to_none=True)
        t4 = time.perf_counter()
        if step:
            for key, value in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                times[key].append(value)
    median = {key: sorted(values)[len(values) // 2] for key, values in times.items()}
    total = sum(median.values())
    return {"tok_s": round(ids.numel() / total, 1), **{k: round(v, 3) for k, v in median.items()},
            "trainable_M": round(sum(p.numel() for p in masters.params) / 1e6, 2)}


def main() -> None:
    import torch

    from lab.small.train import TrainConfig

    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", default="full-fp32,full-bf16ac,full-bf16,lora-fp32,lora-bf16")
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--len", type=int, default=224)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--base", default="var/models/smollm2-135m")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    ids = torch.randint(100, 40000, (args.rows, args.len))
    labels = ids.clone()
    labels[:, : args.len * 2 // 3] = -100  # a third of the positions labelled, like the data
    for name in args.configs.split(","):
        config = TrainConfig(**parse(name))
        before = os.getloadavg()[0]
        result = step_times(config, args.base, ids, labels, args.steps)
        print(name, json.dumps({**result, "load_before": round(before, 2)}), flush=True)


if __name__ == "__main__":
    main()

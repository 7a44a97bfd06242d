"""Train the small model on ``smallmodel generate``'s data (``var/smallmodel/train.jsonl``), on this CPU.

``python manage.py smallmodel train [options]`` (or ``main(argv=[...])``). What makes it fast
here (measured in the README, ``lab/small/profile.py``):

- loss on the model's own lines only, and the 49k-word vocabulary head applied only where a
  label is (``batches.encode``; about a third of the tokens);
- a short protocol: the ``Catalog`` line names only the products code found in the owner's
  words (``protocol.catalog_line_names``), earlier turns are compacted;
- length-bucketed batches (``batches.plan``): near-zero padding without packing;
- bfloat16 where the CPU has bfloat16 matrix units (AMX-BF16 or AVX512-BF16; ``--precision auto``,
  the default): the base's weights in bfloat16 and the trained weights in float32
  (``lab.small.precision``); float32 elsewhere, where bfloat16 is emulated and slower;
- LoRA (default) or a full fine-tune (``--no-lora``, optionally ``--freeze-layers``);
- torch threads set once (``--threads``, default the cores this process may use).

Resumable: every ``--save-every-min`` minutes, and when ``--max-minutes`` for this sitting is
up, the trainable weights, optimizer, scheduler, step and loss curve go to ``<out>/resume.pt``;
running the same command again continues from there (``--no-resume`` starts over). A progress
bar shows steps, loss and tokens/s. At the end ``<out>`` holds the adapter (PEFT folder and
``adapter.gguf``, the file the runtime loads), ``training_card.json`` and ``loss.png``
(``lab.small.card``). ``--install`` copies the runtime's files into the shipped checkpoint.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEFAULT_DATA = "var/smallmodel"
DEFAULT_OUT = "var/smallmodel/run"
TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass
class TrainConfig:
    data: str = DEFAULT_DATA
    out: str = DEFAULT_OUT
    epochs: float = 3.0
    lr: float = 1e-3
    warmup_steps: int = 10
    batch: int = 32  # records per optimizer step
    micro_tokens: int = 2048  # padded tokens per forward/backward piece
    grad_clip: float = 0.3
    weight_decay: float = 0.01
    lora: bool = True
    lora_r: int = 16
    lora_alpha: int = 32
    lora_layers: int = 0  # LoRA on the top N decoder layers only; 0 = all
    freeze_layers: int = 0  # full fine-tune: freeze the embeddings and the bottom N layers
    max_examples: int = 0  # 0 = every training record
    max_len: int = 384
    seed: int = 0
    threads: int = 0
    precision: str = "auto"  # fp32, bf16-autocast, bf16 (bf16 weights, fp32 masters); auto: bf16 where the CPU has bf16 units
    max_minutes: float = 0.0  # stop this sitting (saving a resumable state) after this long; 0 = run to the end
    save_every_min: float = 10.0
    resume: bool = True
    dev_records: int = 200  # records of dev.jsonl for the final dev loss; 0 = none
    install: bool = False  # copy adapter.gguf, the card and the curve into the shipped checkpoint


# The fields that decide what is trained: a saved state resumes only under the same ones.
RUN_FIELDS = ("data", "epochs", "lr", "warmup_steps", "batch", "lora", "lora_r", "lora_alpha", "lora_layers",
              "freeze_layers", "max_examples", "max_len", "seed", "grad_clip", "weight_decay", "precision")


def _parse(argv: list[str] | None, options: dict[str, Any]) -> TrainConfig:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(prog="smallmodel train", description=__doc__.split("\n")[0])
    for name, value in asdict(defaults).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None)
        else:
            parser.add_argument(flag, dest=name, type=type(value), default=None)
    args = vars(parser.parse_args(argv or []))
    args.update({key: value for key, value in options.items() if value is not None})
    config = TrainConfig()
    for key, value in args.items():
        if value is not None and hasattr(config, key):
            setattr(config, key, value)
    config.precision = resolve_precision(config.precision)
    return config


def resolve_precision(precision: str) -> str:
    """``auto`` as ``bf16`` where torch finds bfloat16 matrix units on this CPU, else ``fp32``; others as given.

    Raises:
        SystemExit: an unknown precision.
    """
    from lab.small.precision import PRECISIONS

    if precision == "auto":
        import torch

        fast = torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported()
        return "bf16" if fast else "fp32"
    if precision not in PRECISIONS:
        raise SystemExit(f"--precision must be auto or one of {', '.join(PRECISIONS)}, not {precision!r}.")
    return precision


def load_records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def build_model(config: TrainConfig, base: Path) -> tuple[Any, Any]:
    """(model to train, its inner causal LM) with only the configured parameters trainable."""
    from transformers import AutoModelForCausalLM

    from lab.small.precision import weights_dtype

    model = AutoModelForCausalLM.from_pretrained(str(base), dtype=weights_dtype(config.precision))
    if config.lora:
        from peft import LoraConfig, get_peft_model

        layers = model.config.num_hidden_layers
        extra: dict[str, Any] = {}
        if config.lora_layers:
            extra["layers_to_transform"] = list(range(layers - config.lora_layers, layers))
        model = get_peft_model(model, LoraConfig(
            r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=0.0, target_modules=list(TARGET_MODULES),
            task_type="CAUSAL_LM", **extra,
        ))
        return model, model.get_base_model()
    if config.freeze_layers:
        model.model.embed_tokens.weight.requires_grad_(False)  # tied with the head: the head stays as it was
        for layer in model.model.layers[: config.freeze_layers]:
            layer.requires_grad_(False)
    return model, model


def lr_factor(step: int, *, warmup: int, total: int) -> float:
    """Linear warm-up, then cosine down to a tenth."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def batch_loss(inner: Any, examples: list[Any], *, pad: int, trained: int, precision: str = "fp32") -> Any:
    """The summed token loss of one micro batch divided by the step's trained tokens (one big batch's mean)."""
    import torch

    from lab.small.batches import IGNORE, tensors
    from lab.small.precision import autocast

    ids, labels, mask = tensors(examples, pad)
    with autocast(precision):
        hidden = inner.model(input_ids=ids, attention_mask=mask).last_hidden_state
        targets = labels[:, 1:]
        where = targets != IGNORE
        logits = inner.lm_head(hidden[:, :-1][where]).float()  # the head only where a label is
    return torch.nn.functional.cross_entropy(logits, targets[where], reduction="sum") / max(1, trained)


def dev_loss(inner: Any, examples: list[Any], *, pad: int, micro_tokens: int, precision: str = "fp32") -> float:
    """Mean token loss on ``examples`` (no gradient)."""
    import torch

    from lab.small.batches import micro_batches

    lengths = [len(e.input_ids) for e in examples]
    total, tokens = 0.0, 0
    with torch.no_grad():
        for piece in micro_batches(list(range(len(examples))), lengths, micro_tokens):
            chosen = [examples[i] for i in piece]
            n = sum(e.trained for e in chosen)
            total += float(batch_loss(inner, chosen, pad=pad, trained=1, precision=precision))
            tokens += n
    return total / max(1, tokens)


def main(argv: list[str] | None = None, **options: Any) -> int:
    """Train (or continue training) and, when the plan is done, save the adapter, its card and curve; 0."""
    from lab.small.loop import run

    config = _parse(argv, options)
    return run(config)


def install(out: Path, checkpoint: Path) -> None:
    """Copy what the runtime needs (adapter.gguf, adapter_config.json, card, curve) into the shipped checkpoint."""
    checkpoint.mkdir(parents=True, exist_ok=True)
    for stale in checkpoint.iterdir():
        if stale.is_file():
            stale.unlink()
    for name in ("adapter.gguf", "adapter_config.json", "training_card.json", "loss.png"):
        if (out / name).is_file():
            shutil.copy2(out / name, checkpoint / name)


def threads_default() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def seed_all(seed: int) -> None:
    import torch

    random.seed(seed)
    torch.manual_seed(seed)


def elapsed_since(started: float) -> float:
    return time.monotonic() - started

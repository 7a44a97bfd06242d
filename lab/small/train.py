"""Fine-tune the small model on the generated tool traces (``var/smallmodel/*.jsonl``).

``python manage.py smallmodel train [options]`` (or ``main(argv=[...])``). Each record becomes
one sequence: its lines rendered with ``protocol.render`` (earlier turns compacted exactly as
the runtime compacts them, ``runtime.compact_lines``), with the loss on the final turn's
``Call`` and ``Answer`` lines only: the spans of ``protocol.steps`` completions. One sequence
per record instead of one per step costs the same loss for a fraction of the compute.

Defaults are the seed's recipe (lr 5e-5, 100 warm-up steps, effective batch 32, clipping 0.3,
weight decay 0.01, 3 epochs) on the full data, LoRA when ``--lora`` (default on CPU), CUDA when
present. ``--cpu-small`` is the preset for a small shared CPU: a stratified subset, short
sequences, LoRA on the top layers only (backward stops there), a higher LoRA learning rate and
a wall-clock budget after which training stops and saves what it has.

Writes the adapter (``adapter_config.json``, ``adapter_model.safetensors``) and
``training_card.json`` (config, data counts, loss curve, wall time) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
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
    lr: float = 5e-5
    warmup_steps: int = 100
    batch: int = 32  # effective batch (micro batch x accumulation)
    micro_batch: int = 8
    grad_clip: float = 0.3
    weight_decay: float = 0.01
    lora: bool = True
    lora_r: int = 16
    lora_alpha: int = 32
    lora_layers: int = 0  # LoRA on the top N decoder layers only; 0 = all
    max_examples: int = 0  # 0 = all; otherwise a scenario-stratified subset
    max_len: int = 384
    time_budget_s: float = 0.0  # stop (and save) after this much training time; 0 = no limit
    seed: int = 0
    dtype: str = "float32"
    device: str = ""  # "" = cuda when available, else cpu
    threads: int = 0
    init_adapter: str = ""  # continue from this LoRA adapter (a warm start) instead of a fresh one
    first_line_only: bool = False  # cut each record after its first trained line: the decision, cheaply


CPU_SMALL = dict(
    epochs=1.0, lr=1e-3, warmup_steps=5, batch=8, micro_batch=8, lora=True, lora_r=16, lora_alpha=32,
    lora_layers=12, max_examples=400, max_len=224, time_budget_s=30 * 60,
)


@dataclass
class Example:
    input_ids: list[int]
    labels: list[int]
    scenario: str = ""


@dataclass
class Card:
    config: dict[str, Any]
    base_model: str = ""
    base_gguf_sha256: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    loss: list[dict[str, float]] = field(default_factory=list)
    wall_s: float = 0.0
    tokens_seen: int = 0
    optimizer_steps: int = 0
    stopped_by_budget: bool = False
    device: str = ""


def load_records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def stratified(records: list[dict[str, Any]], limit: int, seed: int) -> list[dict[str, Any]]:
    """At most ``limit`` records, scenarios as even as their counts allow (rare kinds kept whole)."""
    if not limit or limit >= len(records):
        return list(records)
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[record.get("scenario", "")].append(record)
    rng = random.Random(seed)
    for group in groups.values():
        rng.shuffle(group)
    chosen: list[dict[str, Any]] = []
    # round-robin over scenarios: every kind gets its share before common kinds fill the rest
    while len(chosen) < limit and any(groups.values()):
        for name in sorted(groups):
            if groups[name] and len(chosen) < limit:
                chosen.append(groups[name].pop())
    rng.shuffle(chosen)
    return chosen


def first_line(record: dict[str, Any]) -> dict[str, Any]:
    """The record cut after its first trained line (the call or answer that decides the turn)."""
    lines = record["lines"]
    for i, line in enumerate(lines):
        if line.get("train") and line.get("tag") in ("Call", "Answer"):
            return {**record, "lines": lines[: i + 1]}
    return record


def encode(record: dict[str, Any], tokenizer: Any, max_len: int) -> Example | None:
    """One record as token ids and labels: loss only on the final turn's Call/Answer lines.

    The label span of each line starts at the token holding the space before its tag word
    (``"###" + " Call"``), which is exactly what the runtime asks the model to continue after a
    prompt ending in ``"###"``.
    """
    from assistant.modes.small import protocol
    from assistant.modes.small.runtime import compact_lines

    lines = compact_lines(record["lines"])
    text = protocol.render(lines)
    spans = []
    for prompt, completion in protocol.steps(lines):
        if not text.startswith(prompt + completion):
            raise ValueError(f"{record.get('id')}: steps() does not match render()")
        start = len(prompt) - 1  # the space after "###"
        spans.append((start, len(prompt) + len(completion)))
    if not spans:
        return None
    encoded = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
    labels = [-100] * len(ids)
    for i, (start, end) in enumerate(offsets):
        if any(start < span_end and end > span_start for span_start, span_end in spans):
            labels[i] = ids[i]
    if len(ids) > max_len:
        if any(label != -100 for label in labels[max_len:]):
            return None  # a cut would drop trained lines: skip rather than teach half a line
        ids, labels = ids[:max_len], labels[:max_len]
    return Example(input_ids=ids, labels=labels, scenario=record.get("scenario", ""))


def _parse(argv: list[str] | None, options: dict[str, Any]) -> TrainConfig:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(prog="smallmodel train", description=__doc__.split("\n")[0])
    parser.add_argument("--cpu-small", action="store_true", help="the preset for a small shared CPU")
    for name, value in asdict(defaults).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None)
        else:
            parser.add_argument(flag, dest=name, type=type(value), default=None)
    args = vars(parser.parse_args(argv or []))
    args.update({key.replace("-", "_"): value for key, value in options.items() if value is not None})
    config = TrainConfig()
    if args.pop("cpu_small", False):
        for key, value in CPU_SMALL.items():
            setattr(config, key, value)
    for key, value in args.items():
        if value is not None and hasattr(config, key):
            setattr(config, key, value)
    return config


def main(argv: list[str] | None = None, **options: Any) -> int:
    """Train and save the adapter and its card; returns 0."""
    import torch

    from assistant.modes.small.base_model import GGUF_SHA256, base_model_dir

    config = _parse(argv, options)
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    if config.threads:
        torch.set_num_threads(config.threads)
    device = config.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[config.dtype]
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = base_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    records = load_records(Path(config.data) / "train.jsonl")
    chosen = stratified(records, config.max_examples, config.seed)
    if config.first_line_only:
        chosen = [first_line(record) for record in chosen]
    examples = [example for record in chosen if (example := encode(record, tokenizer, config.max_len))]
    epochs_n = max(1, math.ceil(config.epochs))
    accumulation = max(1, config.batch // config.micro_batch)
    print(f"{len(examples)} examples of {len(records)} records; "
          f"{sum(len(e.input_ids) for e in examples)} tokens per epoch; device {device}", flush=True)

    model = AutoModelForCausalLM.from_pretrained(str(base), dtype=dtype).to(device)
    if config.lora and config.init_adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, config.init_adapter, is_trainable=True)
    elif config.lora:
        from peft import LoraConfig, get_peft_model

        layers = model.config.num_hidden_layers
        lora_kwargs: dict[str, Any] = {}
        if config.lora_layers:
            lora_kwargs["layers_to_transform"] = list(range(layers - config.lora_layers, layers))
        model = get_peft_model(model, LoraConfig(
            r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=0.0, target_modules=list(TARGET_MODULES),
            task_type="CAUSAL_LM", **lora_kwargs,
        ))
    model.train()
    inner = model.get_base_model() if config.lora else model
    body, head = inner.model, inner.lm_head
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=config.lr, weight_decay=config.weight_decay)
    per_epoch = math.ceil(len(examples) / config.batch)
    total_steps = max(1, int(per_epoch * config.epochs))

    def lr_at(step: int) -> float:  # linear warm-up, then cosine to 10%
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        progress = (step - config.warmup_steps) / max(1, total_steps - config.warmup_steps)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    card = Card(config=asdict(config), base_model=str(base), base_gguf_sha256=GGUF_SHA256, device=device)
    card.data = {
        "records": len(records), "chosen": len(chosen), "examples": len(examples),
        "scenarios": dict(Counter(e.scenario for e in examples)),
        "tokens_per_epoch": sum(len(e.input_ids) for e in examples),
        "trained_tokens_per_epoch": sum(sum(1 for label in e.labels if label != -100) for e in examples),
    }
    started = time.monotonic()
    step = 0
    running: list[float] = []
    stop = False
    for epoch in range(epochs_n):
        order = list(range(len(examples)))
        random.Random(config.seed + epoch).shuffle(order)
        if epoch == epochs_n - 1 and config.epochs % 1:
            order = order[: int(len(order) * (config.epochs % 1))]
        # sort each effective batch's members by length so micro batches pad little
        for begin in range(0, len(order), config.batch):
            group = sorted(order[begin:begin + config.batch], key=lambda i: len(examples[i].input_ids))
            micro = [group[i:i + config.micro_batch] for i in range(0, len(group), config.micro_batch)]
            trained = sum(sum(1 for label in examples[i].labels if label != -100) for i in group)
            batch_loss = 0.0
            for members in micro:
                width = max(len(examples[i].input_ids) for i in members)
                ids = torch.full((len(members), width), pad, dtype=torch.long)
                labels = torch.full((len(members), width), -100, dtype=torch.long)
                mask = torch.zeros((len(members), width), dtype=torch.long)
                for row, i in enumerate(members):
                    n = len(examples[i].input_ids)
                    ids[row, :n] = torch.tensor(examples[i].input_ids)
                    labels[row, :n] = torch.tensor(examples[i].labels)
                    mask[row, :n] = 1
                    card.tokens_seen += n
                # The vocabulary head is a fifth of the model: apply it only where a label is.
                hidden = body(input_ids=ids.to(device), attention_mask=mask.to(device)).last_hidden_state
                shift_labels = labels[:, 1:].to(device)
                where = shift_labels != -100
                logits = head(hidden[:, :-1][where]).float()
                # token-weighted over the whole effective batch, like one big batch
                loss = torch.nn.functional.cross_entropy(logits, shift_labels[where], reduction="sum") / max(1, trained)
                loss.backward()
                batch_loss += float(loss.detach())
            torch.nn.utils.clip_grad_norm_(parameters, config.grad_clip)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            running.append(batch_loss)
            elapsed = time.monotonic() - started
            card.loss.append({"step": step, "epoch": round(epoch + begin / max(1, len(order)), 3),
                              "loss": round(batch_loss, 4), "lr": scheduler.get_last_lr()[0], "s": round(elapsed, 1)})
            if step % 5 == 0 or step == 1:
                print(f"step {step}/{total_steps} loss {sum(running[-5:]) / len(running[-5:]):.4f} "
                      f"{elapsed:.0f}s {card.tokens_seen / max(elapsed, 1e-6):.0f} tok/s", flush=True)
            if config.time_budget_s and elapsed > config.time_budget_s:
                stop = card.stopped_by_budget = True
                break
        if stop:
            break
    card.wall_s = round(time.monotonic() - started, 1)
    card.optimizer_steps = step
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    if config.lora:
        model.save_pretrained(str(out))
    else:
        model.save_pretrained(str(out), safe_serialization=True)
        tokenizer.save_pretrained(str(out))
    (out / "training_card.json").write_text(json.dumps(asdict(card), indent=1) + "\n", encoding="utf-8")
    print(f"saved to {out} after {step} steps, {card.wall_s}s", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    import django

    django.setup()
    raise SystemExit(main())

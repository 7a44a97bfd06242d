"""The training loop behind ``smallmodel train`` (``lab.small.train``): plan, resume, steps, save, finish."""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from lab.small.card import Card, write
from lab.small.precision import Masters
from lab.small.train import (
    RUN_FIELDS,
    TrainConfig,
    batch_loss,
    build_model,
    dev_loss,
    install,
    load_records,
    lr_factor,
    seed_all,
    threads_default,
)

STATE = "resume.pt"


def run(config: TrainConfig) -> int:
    import torch
    from transformers import AutoTokenizer

    from assistant.modes.small.base_model import GGUF_SHA256, base_model_dir
    from lab.small.batches import encode, plan

    seed_all(config.seed)
    torch.set_num_threads(config.threads or threads_default())
    base = base_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    records = load_records(Path(config.data) / "train.jsonl")
    if config.max_examples:
        records = records[: config.max_examples]
    examples = [example for record in records if (example := encode(record, tokenizer, config.max_len))]
    lengths = [len(e.input_ids) for e in examples]
    steps = plan(lengths, batch=config.batch, epochs=config.epochs, seed=config.seed)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    model, inner = build_model(config, base)
    masters = Masters([(name, p) for name, p in model.named_parameters() if p.requires_grad])
    parameters = masters.params
    optimizer = torch.optim.AdamW(parameters, lr=config.lr, weight_decay=config.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: lr_factor(step, warmup=config.warmup_steps, total=len(steps)))
    card = Card(config=asdict(config), base_model=str(base), base_gguf_sha256=GGUF_SHA256, torch=torch.__version__,
                total_steps=len(steps), trainable_parameters=sum(p.numel() for p in parameters))
    card.data = {
        "records": len(records), "examples": len(examples), "scenarios": dict(Counter(e.scenario for e in examples)),
        "tokens_per_epoch": sum(lengths), "trained_tokens_per_epoch": sum(e.trained for e in examples),
        "padded_tokens_per_epoch": _padded(steps, lengths, config), "epochs": config.epochs,
    }
    done = _resume(config, out, masters, optimizer, scheduler, card)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    finished = _steps(config, out, (model, inner, masters), optimizer, scheduler, card, steps, examples, done, pad)
    if not finished:
        if config.lora:
            _export_adapter(out, model, card, base)  # the adapter so far: a stopped run can be measured
        print(f"Stopped after {card.optimizer_steps}/{len(steps)} steps ({config.max_minutes:g} min this sitting); "
              f"run the same command again to continue from {out / STATE}.", flush=True)
        return 0
    _finish(config, out, (model, inner, masters), card, tokenizer, base, pad)
    return 0


def _padded(steps: list[list[int]], lengths: list[int], config: TrainConfig) -> int:
    from lab.small.batches import micro_batches

    total = 0
    for members in steps[: max(1, len(steps) // max(1, int(config.epochs) or 1))]:
        for piece in micro_batches(members, lengths, config.micro_tokens):
            total += len(piece) * max(lengths[i] for i in piece)
    return total


def _save_state(out: Path, config: TrainConfig, masters: Masters, optimizer: Any, scheduler: Any, card: Card) -> None:
    import torch

    partial = out / (STATE + ".partial")
    torch.save({"run": {k: getattr(config, k) for k in RUN_FIELDS}, "weights": masters.state(),
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "card": card.to_json()},
               partial)
    partial.replace(out / STATE)  # atomic: a stop while saving keeps the previous state


def _resume(config: TrainConfig, out: Path, masters: Masters, optimizer: Any, scheduler: Any, card: Card) -> int:
    """Load ``out/resume.pt`` when it belongs to this run; the number of steps already done."""
    import torch

    path = out / STATE
    if not config.resume or not path.is_file():
        return 0
    state = torch.load(path, weights_only=False)
    wanted = {k: getattr(config, k) for k in RUN_FIELDS}
    if state["run"] != wanted:
        changed = sorted(k for k in wanted if state["run"].get(k) != wanted[k])
        raise SystemExit(f"{path} was saved by a run with other settings ({', '.join(changed)}); "
                         "use the same options, another --out, or --no-resume.")
    masters.load(state["weights"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    saved = Card.from_json(state["card"])
    for field in ("loss", "sittings", "wall_s", "tokens_seen", "trained_tokens_seen", "optimizer_steps"):
        setattr(card, field, getattr(saved, field))
    print(f"Resuming {path}: step {card.optimizer_steps}/{card.total_steps}, {card.wall_s / 60:.1f} min so far.", flush=True)
    return card.optimizer_steps


def _steps(config: TrainConfig, out: Path, models: tuple[Any, Any, Masters], optimizer: Any, scheduler: Any,
           card: Card, steps: list[list[int]], examples: list[Any], done: int, pad: int) -> bool:
    """Run steps from ``done``; True when the plan is finished, False when this sitting's time is up."""
    import torch
    from tqdm import tqdm

    from lab.small.batches import micro_batches

    model, inner, masters = models
    lengths = [len(e.input_ids) for e in examples]
    model.train()
    sitting = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "from_step": done, "load_before": os.getloadavg()[0]}
    card.sittings.append(sitting)
    started = last_save = time.monotonic()
    wall_before = card.wall_s
    bar = tqdm(total=len(steps), initial=done, desc="smallmodel train", unit="step", dynamic_ncols=True)
    for step in range(done, len(steps)):
        members = steps[step]
        trained = sum(examples[i].trained for i in members)
        total = 0.0
        for piece in micro_batches(members, lengths, config.micro_tokens):
            loss = batch_loss(inner, [examples[i] for i in piece], pad=pad, trained=trained,
                              precision=config.precision)
            loss.backward()
            total += float(loss.detach())
        masters.gradients_in()
        torch.nn.utils.clip_grad_norm_(masters.params, config.grad_clip)
        optimizer.step()
        masters.weights_out()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        now = time.monotonic()
        card.wall_s = round(wall_before + now - started, 1)
        card.optimizer_steps = step + 1
        card.tokens_seen += sum(lengths[i] for i in members)
        card.trained_tokens_seen += trained
        card.loss.append({"step": step + 1, "loss": round(total, 4), "lr": scheduler.get_last_lr()[0], "s": card.wall_s})
        bar.update(1)
        bar.set_postfix(loss=f"{total:.3f}", tok_s=f"{card.tokens_per_s():.0f}")
        sitting.update(to_step=step + 1, seconds=round(now - started, 1), load_after=os.getloadavg()[0])
        if config.max_minutes and now - started > config.max_minutes * 60 and step + 1 < len(steps):
            bar.close()
            _save_state(out, config, masters, optimizer, scheduler, card)
            return False
        if now - last_save > config.save_every_min * 60:
            _save_state(out, config, masters, optimizer, scheduler, card)
            last_save = now
    bar.close()
    _save_state(out, config, masters, optimizer, scheduler, card)
    return True


def _finish(config: TrainConfig, out: Path, models: tuple[Any, Any, Masters], card: Card, tokenizer: Any,
            base: Path, pad: int) -> None:
    """Dev loss, the adapter (PEFT folder and GGUF) or full weights, the card and curve; optionally install."""
    from assistant.modes.small.base_model import SHIPPED_CHECKPOINT
    from lab.small.batches import encode

    model, inner, masters = models
    model.eval()
    dev_path = Path(config.data) / "dev.jsonl"
    if config.dev_records and dev_path.is_file():
        dev = [e for r in load_records(dev_path)[: config.dev_records] if (e := encode(r, tokenizer, config.max_len))]
        card.dev_loss = round(dev_loss(inner, dev, pad=pad, micro_tokens=config.micro_tokens,
                                       precision=config.precision), 4)
    card.finished = True
    if config.lora:
        _export_adapter(out, model, card, base)
    else:
        import torch

        model.to(torch.float32)  # the float32 masters, not their bfloat16 roundings
        masters.weights_out()
        model.save_pretrained(str(out), safe_serialization=True)
        tokenizer.save_pretrained(str(out))
        write(card, out)
    print(f"Saved to {out}: {card.optimizer_steps} steps, {card.tokens_seen:,} tokens, {card.wall_s / 60:.1f} min "
          f"({card.tokens_per_s():.0f} tokens/s), dev loss {card.dev_loss}.", flush=True)
    if config.install and config.lora:
        install(out, SHIPPED_CHECKPOINT)
        print(f"Installed the adapter, card and curve in {SHIPPED_CHECKPOINT}.", flush=True)


def _export_adapter(out: Path, model: Any, card: Card, base: Path) -> None:
    """The PEFT adapter, ``adapter.gguf`` (what llama.cpp loads), the card and the curve, as trained so far."""
    from lab.small.gguf_adapter import peft_dir_to_gguf

    model.save_pretrained(str(out))
    peft_dir_to_gguf(out, out / "adapter.gguf", base_dir=base)
    write(card, out)

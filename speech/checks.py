"""System checks: the speech settings (``SHELFWISE_STT_*``, ``SHELFWISE_VAD_*``) and the voice
(``SHELFWISE_TTS``) parse at start, not at the first utterance, and the decoder weights named exist.
Nothing is loaded here."""

from __future__ import annotations

from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

from .config import speech_settings
from .model import decoder_path
from .voice import configured_engine


@register()
def check_speech_settings(app_configs=None, **kwargs):
    errors = []
    try:
        speech_settings()
    except ImproperlyConfigured as exc:
        errors.append(Error(f"Speech recognition settings: {exc}", id="speech.E001",
                            hint="See speech/config.py for every SHELFWISE_STT_* and SHELFWISE_VAD_* setting."))
    else:
        try:
            decoder_path()
        except ImproperlyConfigured as exc:
            errors.append(Error(f"Speech recognition decoder: {exc}", id="speech.E003",
                                hint="SHELFWISE_STT_DECODER: shop, none, or a weights file from lab.speech.tune."))
    try:
        configured_engine()
    except ImproperlyConfigured as exc:
        errors.append(Error(f"The assistant's voice: {exc}", id="speech.E002"))
    return errors

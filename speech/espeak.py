"""Synthetic owner speech with espeak-ng, for the voice tests and the speech benchmark.

It makes what a browser would send: PCM16 frames from an AudioWorklet, or a WebM/Ogg (opus)
recording from MediaRecorder.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np

from speech.config import SAMPLE_RATE
from speech.decode import decode_audio

ESPEAK = shutil.which("espeak-ng")
TIMEOUT_S = 30


def espeak_wav(text: str, *, speed: int = 150, voice: str = "en-us") -> bytes:
    """``espeak-ng -v en-us -s <speed> -w file.wav "<text>"``: the WAV bytes (American voice: Whisper reads it best)."""
    if ESPEAK is None:
        raise RuntimeError("espeak-ng is not installed (apt-get install espeak-ng).")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "speech.wav"
        subprocess.run([ESPEAK, "-v", voice, "-s", str(speed), "-w", str(path), text], check=True,
                       timeout=TIMEOUT_S, capture_output=True)
        return path.read_bytes()


def espeak_samples(text: str, *, speed: int = 150) -> np.ndarray:
    """The phrase as 16 kHz mono float32."""
    return decode_audio(espeak_wav(text, speed=speed), audio_format="wav", max_seconds=60)


def silence(ms: int) -> np.ndarray:
    return np.zeros(SAMPLE_RATE * ms // 1000, dtype=np.float32)


def trim(samples: np.ndarray, *, level: float = 0.01) -> np.ndarray:
    """Without the leading and trailing silence espeak adds (so pauses are exactly what a test says)."""
    loud = np.flatnonzero(np.abs(samples) > level)
    return samples[loud[0] : loud[-1] + 1] if len(loud) else samples[:0]


def to_pcm16(samples: np.ndarray) -> bytes:
    return (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def pcm16_frames(samples: np.ndarray, *, frame_ms: int = 100) -> Iterator[bytes]:
    """PCM16 frames of ``frame_ms`` as an AudioWorklet posts them."""
    data = to_pcm16(samples)
    step = SAMPLE_RATE * frame_ms // 1000 * 2
    for start in range(0, len(data), step):
        yield data[start : start + step]


def encode(samples: np.ndarray, *, container: str = "webm") -> bytes:
    """A 48 kHz opus recording in ``container`` (webm or ogg), as MediaRecorder makes."""
    buffer = io.BytesIO()
    output = av.open(buffer, "w", format=container)
    stream = output.add_stream("libopus", rate=48_000)
    stream.layout = "mono"
    frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1).astype(np.float32), format="flt", layout="mono")
    frame.sample_rate = SAMPLE_RATE
    for packet in stream.encode(frame):
        output.mux(packet)
    for packet in stream.encode(None):
        output.mux(packet)
    output.close()
    return buffer.getvalue()

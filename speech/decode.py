"""Audio as browsers send it (webm/opus, ogg, wav, raw PCM16) → 16 kHz mono float32 for Whisper.

Decoding runs through PyAV (FFmpeg). Every path stops as soon as the audio passes the length
limit, so a small compressed file cannot expand into minutes of samples.
"""

from __future__ import annotations

import io
from enum import StrEnum

import av
import numpy as np

from speech.config import SAMPLE_RATE
from speech.errors import SpeechError, SpeechErrorCode


class AudioFormat(StrEnum):
    PCM16 = "pcm16"  # little-endian signed 16-bit mono at the stated sample rate (AudioWorklet)
    WEBM = "webm"  # MediaRecorder in Chromium and Firefox (opus)
    OGG = "ogg"  # MediaRecorder in Firefox, opus or vorbis
    WAV = "wav"


# Containers FFmpeg may report for each accepted format; anything else is refused, not guessed at.
_CONTAINERS = {"wav", "ogg", "matroska", "webm", "matroska,webm"}
# The one FFmpeg demuxer each format is opened with.
_DEMUXERS = {AudioFormat.WEBM: "matroska", AudioFormat.OGG: "ogg", AudioFormat.WAV: "wav"}
MIN_RATE, MAX_RATE = 8_000, 48_000
MIN_SECONDS = 0.1

EMPTY = "The recording was empty. Please hold the button while you speak."
NOT_AUDIO = "That did not sound like audio I can read. Please try recording again."
UNSUPPORTED = "That audio format is not supported. Please send WebM, Ogg, WAV or 16-bit PCM."


def too_long(max_seconds: float) -> SpeechError:
    return SpeechError(
        SpeechErrorCode.TOO_LONG, f"That was longer than {max_seconds:g} seconds. Please ask one thing at a time."
    )


def decode_audio(data: bytes, *, audio_format: str, max_seconds: float, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """16 kHz mono float32 samples in [-1, 1] from ``data``.

    Raises:
        SpeechError: empty, not audio, too long, or an unsupported format or rate.
    """
    try:
        fmt = AudioFormat(audio_format)
    except ValueError:
        raise SpeechError(SpeechErrorCode.UNSUPPORTED, UNSUPPORTED) from None
    if not data:
        raise SpeechError(SpeechErrorCode.EMPTY, EMPTY)
    if fmt is AudioFormat.PCM16:
        samples = pcm16_samples(data, sample_rate=sample_rate, max_seconds=max_seconds)
    else:
        samples = _decode_container(data, demuxer=_DEMUXERS[fmt], max_seconds=max_seconds)
    if len(samples) < MIN_SECONDS * SAMPLE_RATE:
        raise SpeechError(SpeechErrorCode.EMPTY, EMPTY)
    return samples


def pcm16_samples(data: bytes, *, sample_rate: int, max_seconds: float) -> np.ndarray:
    """Raw little-endian PCM16 mono at ``sample_rate`` → 16 kHz float32."""
    if not MIN_RATE <= sample_rate <= MAX_RATE:
        raise SpeechError(SpeechErrorCode.UNSUPPORTED, f"Sample rates from {MIN_RATE} to {MAX_RATE} Hz are supported.")
    if len(data) % 2:
        raise SpeechError(SpeechErrorCode.NOT_AUDIO, NOT_AUDIO)
    if len(data) / 2 / sample_rate > max_seconds:
        raise too_long(max_seconds)
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
    return resample(samples, sample_rate=sample_rate)


def resample(samples: np.ndarray, *, sample_rate: int) -> np.ndarray:
    """Mono float32 at ``sample_rate`` → 16 kHz, through FFmpeg's resampler."""
    if sample_rate == SAMPLE_RATE or not len(samples):
        return np.ascontiguousarray(samples, dtype=np.float32)
    frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1).astype(np.float32), format="flt", layout="mono")
    frame.sample_rate = sample_rate
    resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
    chunks = [out.to_ndarray().reshape(-1) for out in (*resampler.resample(frame), *resampler.resample(None))]
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, dtype=np.float32)


# Leading bytes of audio containers (told apart from non-audio without asking FFmpeg to probe).
_SIGNATURES = (b"ID3", b"\xff\xfb", b"\xff\xf3", b"\xff\xf2", b"fLaC", b"OggS", b"\x1a\x45\xdf\xa3", b"#!AMR")


_OWN_SIGNATURE = {"matroska": b"\x1a\x45\xdf\xa3", "ogg": b"OggS", "wav": b"RIFF"}


def _other_audio_signature(data: bytes, demuxer: str) -> bool:
    """Whether ``data`` starts like an audio container other than ``demuxer``'s (a broken file of the
    named format is 'not audio'; a recording in another format is 'unsupported')."""
    head = data[:12]
    if head.startswith(_OWN_SIGNATURE[demuxer]):
        return False
    return head.startswith(_SIGNATURES) or (head[:4] == b"RIFF" and head[8:12] == b"WAVE") or head[4:8] == b"ftyp"


def _decode_container(data: bytes, *, demuxer: str, max_seconds: float) -> np.ndarray:
    limit = int(max_seconds * SAMPLE_RATE)
    try:
        # The demuxer is named: FFmpeg does not probe its others (playlist formats such as HLS or
        # concat would open URLs), and bytes that are not that format are refused.
        container = av.open(io.BytesIO(data), mode="r", format=demuxer, metadata_errors="ignore")
    except (av.error.FFmpegError, ValueError, OSError):
        if _other_audio_signature(data, demuxer):
            raise SpeechError(SpeechErrorCode.UNSUPPORTED, UNSUPPORTED) from None  # audio, another format
        raise SpeechError(SpeechErrorCode.NOT_AUDIO, NOT_AUDIO) from None
    try:
        if container.format.name not in _CONTAINERS:
            raise SpeechError(SpeechErrorCode.UNSUPPORTED, UNSUPPORTED)
        if not container.streams.audio:
            raise SpeechError(SpeechErrorCode.NOT_AUDIO, NOT_AUDIO)
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
        chunks: list[np.ndarray] = []
        total = 0
        try:
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    chunk = out.to_ndarray().reshape(-1)
                    total += len(chunk)
                    if total > limit:
                        raise too_long(max_seconds)
                    chunks.append(chunk)
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
        except av.error.FFmpegError:
            # A truncated tail (a recorder stopped mid-packet) still gives the audio before it.
            if not chunks:
                raise SpeechError(SpeechErrorCode.NOT_AUDIO, NOT_AUDIO) from None
    finally:
        container.close()
    if not chunks:
        raise SpeechError(SpeechErrorCode.EMPTY, EMPTY)
    samples = np.concatenate(chunks).astype(np.float32)
    if len(samples) > limit:
        raise too_long(max_seconds)
    return np.clip(samples, -1.0, 1.0)

"""Speech for the media library: espeak-ng speaks text to WAV, PyAV encodes it to Ogg/Opus.

Only the build uses this module. espeak-ng is a build-time tool: the files it makes are
committed, so a server that plays them needs neither espeak-ng nor this module.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import av

VOICE = "en-us"
WORDS_PER_MINUTE = 150
WORD_GAP = 1  # espeak-ng -g: extra pause between words, in units of 10 ms at normal speed

OPUS_RATE = 24_000  # Opus accepts 8/12/16/24/48 kHz; espeak-ng's voice carries nothing above 11 kHz
OPUS_BITRATE = 20_000


class SpeechError(RuntimeError):
    """espeak-ng is missing or failed; the message says what to install or fix."""


@dataclass(frozen=True)
class Speech:
    """Mono signed 16-bit little-endian PCM at ``rate`` samples per second."""

    pcm: bytes
    rate: int

    @property
    def samples(self) -> int:
        return len(self.pcm) // 2

    @property
    def duration_s(self) -> float:
        return self.samples / self.rate

    def padded(self, seconds: float) -> Speech:
        """The same speech followed by silence, ``seconds`` long in all (never shorter than the speech)."""
        missing = max(0, round(seconds * self.rate) - self.samples)
        return Speech(self.pcm + bytes(2 * missing), self.rate)


def speak(text: str, *, voice: str = VOICE, wpm: int = WORDS_PER_MINUTE) -> Speech:
    """Speak ``text`` with espeak-ng and return the PCM of its WAV output.

    Raises:
        SpeechError: espeak-ng is not installed or exited with an error.
    """
    binary = shutil.which("espeak-ng")
    if binary is None:
        raise SpeechError("espeak-ng is not installed; on Debian: apt-get install -y espeak-ng")
    result = subprocess.run(
        [binary, "-v", voice, "-s", str(wpm), "-g", str(WORD_GAP), "--stdout", text],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0 or not result.stdout:
        raise SpeechError(f"espeak-ng failed: {result.stderr.decode(errors='replace').strip()}")
    return _pcm(result.stdout)


def silence(seconds: float, *, rate: int) -> Speech:
    return Speech(bytes(2 * round(seconds * rate)), rate)


def concat(parts: list[Speech]) -> Speech:
    rates = {part.rate for part in parts}
    if len(rates) != 1:
        raise ValueError(f"cannot join speech at different rates: {sorted(rates)}")
    return Speech(b"".join(part.pcm for part in parts), rates.pop())


def _pcm(wav: bytes) -> Speech:
    """Decode a WAV file held in memory (espeak-ng writes a streaming header that PyAV reads fine)."""
    with av.open(io.BytesIO(wav), format="wav") as container:
        stream = container.streams.audio[0]
        rate = stream.codec_context.sample_rate
        resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
        frames = [out for frame in container.decode(stream) for out in resampler.resample(frame)]
        frames += resampler.resample(None)
        pcm = b"".join(bytes(out.planes[0])[: 2 * out.samples] for out in frames)
    return Speech(_trim_silence(pcm), rate)


def _trim_silence(pcm: bytes, threshold: int = 64) -> bytes:
    """Drop espeak-ng's leading and trailing silence so that scene timing follows the words."""
    values = array("h")
    values.frombytes(pcm)
    if sys.byteorder == "big":
        values.byteswap()
    first = next((i for i, v in enumerate(values) if abs(v) > threshold), None)
    if first is None:
        return b""
    last = next(i for i in range(len(values) - 1, -1, -1) if abs(values[i]) > threshold)
    return pcm[2 * first : 2 * (last + 1)]


def audio_frames(stream: av.audio.stream.AudioStream, speech: Speech) -> Iterator[av.AudioFrame]:
    """``speech`` resampled for ``stream``'s encoder, in frames of its frame size, with pts in samples."""
    context = stream.codec_context
    resampler = av.AudioResampler(format=context.format, layout=context.layout, rate=context.sample_rate)
    frame_size = context.frame_size or 1024
    fifo = av.AudioFifo()
    source = av.AudioFrame(format="s16", layout="mono", samples=speech.samples)
    source.planes[0].update(speech.pcm)
    source.sample_rate = speech.rate
    source.pts = 0
    for out in [*resampler.resample(source), *resampler.resample(None)]:
        out.pts = None
        fifo.write(out)
    pts = 0
    while fifo.samples:
        # Both encoders used here accept a short last frame (AV_CODEC_CAP_SMALL_LAST_FRAME).
        frame = fifo.read(min(frame_size, fifo.samples))
        frame.pts = pts
        pts += frame.samples
        yield frame


def write_ogg_opus(speech: Speech, path: Path, *, title: str) -> None:
    """Encode ``speech`` to a small Ogg/Opus file at ``path``, bit-exact for the same input."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w", format="ogg", options={"fflags": "+bitexact"}) as container:
        container.metadata["title"] = title
        stream = container.add_stream("libopus", rate=OPUS_RATE, layout="mono")
        stream.bit_rate = OPUS_BITRATE
        stream.codec_context.options = {"application": "voip", "vbr": "on"}
        stream.codec_context.flags |= av.codec.context.Flags.bitexact
        for frame in audio_frames(stream, speech):
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))

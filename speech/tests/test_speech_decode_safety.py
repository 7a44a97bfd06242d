"""Audio is opened with the named demuxer only: no probing, no playlist formats that open URLs."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from speech.decode import decode_audio
from speech.errors import SpeechError


def _wav(seconds: float = 0.5) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes((np.sin(np.linspace(0, 440, int(16_000 * seconds))) * 8000).astype("<i2").tobytes())
    return buffer.getvalue()


@pytest.mark.parametrize("playlist", [
    b"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nhttp://127.0.0.1:9/secret.wav\n#EXT-X-ENDLIST\n",
    b"ffconcat version 1.0\nfile 'http://127.0.0.1:9/secret.wav'\n",
    b"[playlist]\nFile1=http://127.0.0.1:9/secret.wav\n",
])
@pytest.mark.parametrize("audio_format", ["webm", "ogg", "wav"])
def test_a_playlist_is_refused_without_being_followed(playlist, audio_format):
    with pytest.raises(SpeechError):
        decode_audio(playlist, audio_format=audio_format, max_seconds=30)


def test_a_recording_is_read_only_as_the_format_it_was_sent_as():
    assert len(decode_audio(_wav(), audio_format="wav", max_seconds=30)) > 0
    with pytest.raises(SpeechError):
        decode_audio(_wav(), audio_format="ogg", max_seconds=30)

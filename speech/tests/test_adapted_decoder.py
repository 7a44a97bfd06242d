"""The adapted decoder (issue 19): CTranslate2's model file read and written, the setting, and the
shop decoder loaded into the real model (real Whisper, real espeak-ng audio; no fake)."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from safetensors.numpy import load_file, save_file

from speech import ct2_file
from speech import model as stt_model
from speech.espeak import ESPEAK, espeak_samples, silence
from speech.model import SHOP_WEIGHTS, decoder_path, get_model, model_path
from speech.transcribe import transcribe

needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make system-deps)")


@pytest.fixture(scope="module")
def bundled_bytes() -> bytes:
    return (model_path() / "model.bin").read_bytes()


@pytest.fixture
def fresh_model():
    """Each test loads the model its settings ask for; the process's usual one is back afterwards."""
    saved = dict(stt_model._loaded)
    stt_model._loaded.clear()
    yield
    stt_model._loaded.clear()
    stt_model._loaded.update(saved)


def test_the_model_file_reads_and_writes_back_byte_for_byte(bundled_bytes):
    model = ct2_file.read(bundled_bytes)
    assert model.name == "WhisperSpec" and model.variables["decoder/embeddings/weight"].shape == (51864, 384)
    assert model.dtypes["decoder/activation"] == "int8" and model.variables["decoder/activation"].shape == ()
    assert ct2_file.write(model) == bundled_bytes


def test_a_patch_changes_only_what_it_names_and_refuses_what_does_not_fit(bundled_bytes):
    name = "decoder/layer_0/ffn/linear_1/bias"
    new = np.full(384, 0.5, dtype=np.float16)
    patched = ct2_file.read(ct2_file.patched(bundled_bytes, {name: new}))
    assert np.array_equal(patched.variables[name], new)
    before = ct2_file.read(bundled_bytes)
    assert all(np.array_equal(patched.variables[k], v) for k, v in before.variables.items() if k != name)
    with pytest.raises(ValueError, match="not its shape"):
        ct2_file.patched(bundled_bytes, {name: np.zeros(10, dtype=np.float16)})
    with pytest.raises(ValueError, match="not a variable"):
        ct2_file.patched(bundled_bytes, {"decoder/no_such_layer/weight": new})


def test_the_decoder_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE_STT_DECODER", "none")
    assert decoder_path() is None
    monkeypatch.setenv("SHELFWISE_STT_DECODER", "shop")
    assert decoder_path() == SHOP_WEIGHTS and SHOP_WEIGHTS.is_file()
    monkeypatch.setenv("SHELFWISE_STT_DECODER", str(tmp_path / "missing.safetensors"))
    with pytest.raises(ImproperlyConfigured, match="no such weights file"):
        decoder_path()


def test_a_missing_decoder_file_stops_the_start(monkeypatch, tmp_path):
    from speech.checks import check_speech_settings

    assert not check_speech_settings()
    monkeypatch.setenv("SHELFWISE_STT_DECODER", str(tmp_path / "missing.safetensors"))
    assert [e.id for e in check_speech_settings()] == ["speech.E003"]


def test_the_shop_weights_hold_the_decoder_layers_and_the_encoders_top_layers_only():
    weights = load_file(str(SHOP_WEIGHTS))
    names = {k.replace(".", "/") for k in weights}
    decoder = {n for n in names if n.startswith("decoder/layer")}  # its four layers and the final layer_norm
    encoder = names - decoder
    assert decoder and all(n.startswith(("encoder/layer_2/", "encoder/layer_3/", "encoder/layer_norm/")) for n in encoder)
    assert any(n.startswith("encoder/layer_2/") for n in encoder) and "encoder/layer_norm/gamma" in encoder
    assert not any("embeddings" in n or "position" in n or "conv" in n for n in names)
    assert all(v.dtype == np.float16 for v in weights.values())


def test_weights_that_do_not_fit_the_model_fail_clearly(monkeypatch, tmp_path, fresh_model):
    bad = tmp_path / "bad.safetensors"
    save_file({"decoder.layer_0.ffn.linear_1.bias": np.zeros(7, dtype=np.float16)}, str(bad))
    monkeypatch.setenv("SHELFWISE_STT_DECODER", str(bad))
    with pytest.raises(ImproperlyConfigured, match="does not fit this model"):
        get_model()


@needs_espeak
def test_the_shop_decoder_is_what_transcribes_when_set(monkeypatch, fresh_model):
    """The same audio is heard differently under the two decoders: the weights really are loaded.

    The sentence was picked after listening with both (espeak-ng's default voice here is not one the
    decoder was adapted on): tiny.en's own decoder writes "tor dal", the shop decoder the catalog's
    "toor dal"."""
    samples = np.concatenate([silence(300), espeak_samples("reorder the toor dal"), silence(300)])
    heard = {}
    for setting in ("none", "shop"):
        monkeypatch.setenv("SHELFWISE_STT_DECODER", setting)
        stt_model._loaded.clear()
        heard[setting] = transcribe(samples, prompt_words=["atta", "haldi", "gur", "toor dal", "Basmati rice"]).text
    assert heard["none"] != heard["shop"]
    assert "toor dal" in heard["shop"].lower() and "reorder" in heard["shop"].lower()

"""The guard's fine-tuned MiniLM layers: written by the lab, read back by the runtime's own loader.

Real MiniLM (from its pip package), real training on a handful of sentences (one layer, one
epoch, a few seconds), real safetensors files; nothing is replaced.
"""

from __future__ import annotations

import numpy as np
import pytest

from assistant.guard.classifier import ClassifierLayer, ClassifierWeights
from assistant.guard.dataset import GuardItem
from assistant.guard.encoders import GuardModelError, encoder_top_apply

pytest.importorskip("sentence_transformers")

ITEMS = [
    GuardItem(id=f"s{n}", text=text, label="safe", category="store_request")
    for n, text in enumerate(["how many bags of atta are left", "knock out the reorder for paneer",
                              "where is the ghee", "kill the promo on biscuits"])
] + [
    GuardItem(id=f"u{n}", text=text, label="unsafe", category="weapons")
    for n, text in enumerate(["how do i make a pipe bomb", "how to make a gun at home",
                              "knock out the guard with a bat", "best knife to stab someone"])
]


def _encode(model, text: str) -> np.ndarray:
    return np.asarray(model.encode([text], normalize_embeddings=True, convert_to_numpy=True))[0]


def test_finetuned_layers_are_written_alone_and_change_what_the_runtime_loads(tmp_path):
    from safetensors.torch import load_file

    from assistant.guard.encoders import _sentence_encoder_load
    from lab.guard.finetune import encoder_finetune

    out = tmp_path / "top.safetensors"
    info = encoder_finetune(ITEMS, out, layers=1, epochs=1, log=lambda _line: None)

    assert set(key.split(".")[2] for key in load_file(str(out))) == {"5"}  # only the top layer travels
    assert info["bytes"] < 100 * 1024 * 1024
    plain, tuned = _sentence_encoder_load(), encoder_top_apply(_sentence_encoder_load(), out)
    assert not np.allclose(_encode(plain, "knock out the reorder"), _encode(tuned, "knock out the reorder"))


def test_a_file_that_is_not_minilm_layers_is_refused_with_the_command_to_run(tmp_path):
    from assistant.guard.encoders import _sentence_encoder_load

    broken = tmp_path / "top.safetensors"
    broken.write_bytes(b"not a safetensors file")

    with pytest.raises(GuardModelError, match="guard_train"):
        encoder_top_apply(_sentence_encoder_load(), broken)


def test_a_classifier_fitted_on_other_encoder_layers_does_not_load(tmp_path):
    weights = ClassifierWeights(
        mean=np.zeros(768), scale=np.ones(768), coef=np.zeros((2, 768)), intercept=np.zeros(2),
        classes=("store_request", "weapons"), unsafe=np.array([False, True]), meta={"encoder": "0123456789abcdef"},
    )
    path = tmp_path / "classifier.npz"
    weights.save(path)

    with pytest.raises(GuardModelError, match="other encoder layers"):
        ClassifierLayer(path).judge("how many bags of atta are left")


def test_a_capped_band_blocks_no_owner_speech_and_sends_at_most_the_share_to_the_llm():
    from lab.guard.training import band_calibrate

    rng = np.random.default_rng(0)
    owner = [GuardItem(id=f"o{n}", text="t", label="safe", category="store_request") for n in range(60)]
    unsafe = [GuardItem(id=f"u{n}", text="t", label="unsafe", category="weapons") for n in range(40)]
    scores = np.concatenate([rng.uniform(0.0, 0.4, 59), [0.83], rng.uniform(0.45, 1.0, 40)])

    band = band_calibrate(owner + unsafe, scores, max_llm_share=0.05)

    assert band.unsafe_above > 0.83  # above the highest owner sentence, whatever recall that costs
    assert band.llm_calls == int(((scores > band.safe_below) & (scores < band.unsafe_above)).sum()) <= 5
    uncapped = band_calibrate(owner + unsafe, scores)
    assert uncapped.llm_calls > band.llm_calls

"""The small model's trainer and its export: batches, loss spans, the resumable state, the llama.cpp adapter file.

No model runs here except in the test marked ``model``, which trains two steps of a real LoRA on
the bundled base (in the precision ``--precision auto`` picks on this CPU), stops, resumes and
checks that the resumed run is the uninterrupted one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from lab.small.batches import IGNORE, encode, micro_batches, plan


class CharTokenizer:
    """A tokenizer with the real interface (ids and offsets): one token per character."""

    pad_token_id = 0

    def __call__(self, text, return_offsets_mapping=False, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text], "offset_mapping": [(i, i + 1) for i in range(len(text))]}


RECORD = {"id": "r1", "scenario": "where", "lines": [
    {"tag": "Catalog", "text": "Jaggery", "train": False},
    {"tag": "Owner", "text": "where is the gur", "train": False},
    {"tag": "Call", "text": 'get_inventory {"item": "Jaggery"}', "train": True},
    {"tag": "Result", "text": "Jaggery: stock 20 x 1 kg block, location Aisle 1", "train": False},
    {"tag": "Answer", "text": "Jaggery is in Aisle 1.", "train": True},
]}


def test_the_loss_covers_only_the_models_call_and_answer_lines():
    example = encode(RECORD, CharTokenizer(), max_len=1000)
    text = "".join(chr(i) for i in example.input_ids)
    trained = "".join(chr(t) if t != IGNORE else "_" for t in example.labels)
    assert " Call: get_inventory" in trained and " Answer: Jaggery is in Aisle 1.\n" in trained
    assert "where is the gur" in text and "where is the gur" not in trained
    assert "stock 20" not in trained and "Catalog" not in trained


def test_a_record_that_a_cut_would_split_inside_a_trained_line_is_skipped():
    assert encode(RECORD, CharTokenizer(), max_len=60) is None


def test_the_plan_is_fixed_by_the_seed_covers_every_example_per_epoch_and_groups_similar_lengths():
    lengths = [(i * 37) % 200 + 20 for i in range(300)]
    first = plan(lengths, batch=8, epochs=2, seed=3)
    assert first == plan(lengths, batch=8, epochs=2, seed=3)
    assert first != plan(lengths, batch=8, epochs=2, seed=4)
    per_epoch = len(first) // 2
    assert sorted(i for step in first[:per_epoch] for i in step) == list(range(300))
    spread = [max(lengths[i] for i in step) - min(lengths[i] for i in step) for step in first]
    assert sorted(spread)[len(spread) // 2] < 20  # the median batch spans a few tokens of length, not 180


def test_a_partial_last_epoch_takes_that_share_of_the_examples():
    steps = plan([50] * 100, batch=10, epochs=1.5, seed=0)
    assert sum(len(step) for step in steps) == 150


def test_micro_batches_keep_padded_tokens_within_the_budget():
    lengths = [100, 120, 90, 300, 80, 110]
    pieces = list(micro_batches(list(range(6)), lengths, micro_tokens=330))
    assert sorted(i for piece in pieces for i in piece) == list(range(6))
    assert all(len(piece) * max(lengths[i] for i in piece) <= 330 or len(piece) == 1 for piece in pieces)


def _lora_tensors(rank=2, hidden=8, kv=4, rng=None):
    rng = rng or np.random.default_rng(0)
    prefix = "base_model.model.model.layers.0."
    return {
        prefix + "self_attn.q_proj.lora_A.weight": rng.normal(size=(rank, hidden)).astype(np.float32),
        prefix + "self_attn.q_proj.lora_B.weight": rng.normal(size=(hidden, rank)).astype(np.float32),
        prefix + "self_attn.k_proj.lora_A.weight": rng.normal(size=(rank, hidden)).astype(np.float32),
        prefix + "self_attn.k_proj.lora_B.weight": rng.normal(size=(kv, rank)).astype(np.float32),
        prefix + "mlp.down_proj.lora_A.weight": rng.normal(size=(rank, 16)).astype(np.float32),
        prefix + "mlp.down_proj.lora_B.weight": rng.normal(size=(hidden, rank)).astype(np.float32),
    }


def test_the_llamacpp_adapter_names_its_tensors_and_puts_q_and_k_rows_in_rotary_order(tmp_path):
    import gguf

    from lab.small.gguf_adapter import adapter_to_gguf

    tensors = _lora_tensors()
    config = {"num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1}
    out = adapter_to_gguf(tensors=tensors, alpha=32, model_config=config, out=tmp_path / "a.gguf", dtype=np.float32)
    reader = gguf.GGUFReader(str(out))
    assert reader.fields["general.type"].contents() == "adapter"
    assert reader.fields["adapter.type"].contents() == "lora"
    assert reader.fields["adapter.lora.alpha"].contents() == 32.0
    found = {t.name: np.asarray(t.data).reshape(list(reversed(t.shape.tolist()))) for t in reader.tensors}
    assert set(found) == {f"blk.0.{m}.weight.lora_{s}" for m in ("attn_q", "attn_k", "ffn_down") for s in "ab"}
    prefix = "base_model.model.model.layers.0."
    np.testing.assert_array_equal(found["blk.0.ffn_down.weight.lora_b"], tensors[prefix + "mlp.down_proj.lora_B.weight"])
    np.testing.assert_array_equal(found["blk.0.attn_q.weight.lora_a"], tensors[prefix + "self_attn.q_proj.lora_A.weight"])
    # Each head's rows go from [first half, second half] to interleaved pairs (head 0 of 2, 4 rows per head):
    q_b = tensors[prefix + "self_attn.q_proj.lora_B.weight"]
    np.testing.assert_array_equal(found["blk.0.attn_q.weight.lora_b"][:4], q_b[[0, 2, 1, 3]])
    k_b = tensors[prefix + "self_attn.k_proj.lora_B.weight"]
    np.testing.assert_array_equal(found["blk.0.attn_k.weight.lora_b"], k_b[[0, 2, 1, 3]])


def test_an_adapter_tensor_without_its_other_half_is_refused(tmp_path):
    from lab.small.gguf_adapter import adapter_to_gguf

    tensors = {k: v for k, v in _lora_tensors().items() if "q_proj.lora_B" not in k}
    config = {"num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1}
    with pytest.raises(ValueError, match="q_proj"):
        adapter_to_gguf(tensors=tensors, alpha=8, model_config=config, out=tmp_path / "a.gguf")
    assert not (tmp_path / "a.gguf").exists()


@pytest.mark.model
@pytest.mark.django_db
def test_a_stopped_run_resumes_where_it_stopped_and_ends_as_an_uninterrupted_run(tmp_path):
    from lab.small.train import main

    data = tmp_path / "data"
    data.mkdir()
    records = [dict(RECORD, id=f"r{i}", lines=[dict(line) for line in RECORD["lines"]]) for i in range(8)]
    for i, record in enumerate(records):
        record["lines"][1]["text"] = f"where is the gur number {i}"
    (data / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    options = ["--data", str(data), "--batch", "4", "--epochs", "1", "--lora-layers", "2", "--dev-records", "0",
               "--warmup-steps", "1"]
    main([*options, "--out", str(tmp_path / "straight")])
    main([*options, "--out", str(tmp_path / "stopped"), "--max-minutes", "0.0001"])  # stops after step 1
    first = json.loads((tmp_path / "straight" / "training_card.json").read_text())
    partial = json.loads((tmp_path / "stopped" / "training_card.json").read_text())
    assert not partial["finished"] and partial["optimizer_steps"] == 1  # the adapter so far, said to be unfinished
    assert (tmp_path / "stopped" / "adapter.gguf").stat().st_size > 0
    main([*options, "--out", str(tmp_path / "stopped")])
    resumed = json.loads((tmp_path / "stopped" / "training_card.json").read_text())
    assert [p["loss"] for p in resumed["loss"]] == pytest.approx([p["loss"] for p in first["loss"]], rel=1e-4)
    assert len(resumed["sittings"]) == 2 and resumed["optimizer_steps"] == 2
    assert (tmp_path / "stopped" / "adapter.gguf").stat().st_size > 0 and (tmp_path / "stopped" / "loss.png").is_file()

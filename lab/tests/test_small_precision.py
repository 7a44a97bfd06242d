"""Training in bfloat16 on a CPU: float32 masters of bfloat16 weights, the precision names, the profiler's configs.

No model runs here: the parameters are a few plain torch tensors.
"""

from __future__ import annotations

import pytest
import torch

from lab.small.precision import Masters, autocast, weights_dtype
from lab.small.profile import parse
from lab.small.train import resolve_precision


def _step(masters: Masters, lr: float) -> None:
    for param in masters.model_params:
        param.grad = torch.ones_like(param)
    masters.gradients_in()
    with torch.no_grad():
        for master in masters.params:
            master -= lr * master.grad
    masters.weights_out()


def test_updates_too_small_for_bfloat16_add_up_in_the_float32_master():
    weight = torch.nn.Parameter(torch.ones(4, dtype=torch.bfloat16))
    masters = Masters([("w", weight)])
    assert masters.copied and masters.params[0].dtype == torch.float32
    for _ in range(100):
        _step(masters, lr=1e-4)  # one step is far below bfloat16's resolution at 1.0 (2^-8)
    assert masters.params[0].tolist() == pytest.approx([0.99] * 4, abs=1e-5)
    assert weight.dtype == torch.bfloat16 and float(weight.detach()[0]) == pytest.approx(0.99, abs=4e-3)
    assert weight.grad is None


def test_without_masters_the_same_updates_are_rounded_away():
    weight = torch.ones(4, dtype=torch.bfloat16)
    for _ in range(100):
        weight -= 1e-4 * torch.ones_like(weight)
    assert weight.tolist() == [1.0] * 4  # why the masters exist


def test_a_float32_parameter_is_its_own_master_and_its_gradient_stays():
    weight = torch.nn.Parameter(torch.zeros(3))
    masters = Masters([("w", weight)])
    assert not masters.copied and masters.params[0] is weight
    weight.grad = torch.ones(3)
    masters.gradients_in()
    assert weight.grad is not None


def test_a_saved_state_loads_into_masters_and_model_weights():
    first = Masters([("w", torch.nn.Parameter(torch.ones(2, dtype=torch.bfloat16)))])
    _step(first, lr=0.25)
    weight = torch.nn.Parameter(torch.ones(2, dtype=torch.bfloat16))
    second = Masters([("w", weight)])
    second.load(first.state())
    assert second.params[0].tolist() == [0.75, 0.75] and weight.tolist() == [0.75, 0.75]


def test_each_precision_names_its_weights_and_its_forward_context():
    assert weights_dtype("bf16") == torch.bfloat16 and weights_dtype("fp32") == torch.float32
    assert weights_dtype("bf16-autocast") == torch.float32
    a, b = torch.ones(2, 2), torch.ones(2, 2)
    with autocast("bf16-autocast"):
        assert (a @ b).dtype == torch.bfloat16
    with autocast("fp32"):
        assert (a @ b).dtype == torch.float32
    with pytest.raises(ValueError):
        weights_dtype("fp16")


def test_train_takes_a_named_precision_as_given_and_refuses_an_unknown_one():
    assert resolve_precision("bf16-autocast") == "bf16-autocast"
    assert resolve_precision("auto") in ("bf16", "fp32")
    with pytest.raises(SystemExit, match="precision"):
        resolve_precision("half")


def test_profile_configs_name_the_method_and_precision_and_keep_the_old_names():
    assert parse("lora-bf16") == {"lora": True, "lora_layers": 0, "freeze_layers": 0, "precision": "bf16"}
    assert parse("loratop12-bf16ac")["lora_layers"] == 12
    assert parse("freeze20-fp32")["freeze_layers"] == 20
    assert parse("fullbf16ac") == parse("full-bf16ac") and parse("lora32top12") == parse("loratop12-fp32")
    with pytest.raises(ValueError):
        parse("full-fp16")

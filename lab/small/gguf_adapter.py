"""A trained LoRA adapter as a llama.cpp LoRA GGUF, the file the small mode's runtime loads.

The runtime serves the bundled SmolLM2 GGUF through llama.cpp with this adapter on top
(``inference.llamacpp``), so serving needs neither torch nor peft. The adapter was trained on
the very weights llama.cpp runs: ``base_model`` dequantises the same Q4_1 GGUF.

Layout (what llama.cpp's adapter loader reads): ``general.type = adapter``,
``adapter.type = lora``, ``adapter.lora.alpha``, and per adapted matrix ``<gguf name>.lora_a``
(rank x in) and ``<gguf name>.lora_b`` (out x rank). llama.cpp keeps the Q and K rows of a
llama model in the rotary layout its converter writes; transformers undoes that permutation
when it reads the GGUF, so ``lora_b`` of Q and K gets it redone here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

ARCH = "llama"


def _rotary_rows(rows: np.ndarray, heads: int) -> np.ndarray:
    """Rows of a Q or K projection in llama.cpp's order (the inverse of transformers' reverse permute)."""
    return rows.reshape(heads, 2, rows.shape[0] // heads // 2, *rows.shape[1:]).swapaxes(1, 2).reshape(rows.shape)


def _base_name(key: str) -> tuple[str, str]:
    """('model.layers.3.self_attn.q_proj', 'A'|'B') for a PEFT tensor name."""
    side = "A" if ".lora_A." in key else "B"
    name = key.replace("base_model.model.", "")
    for suffix in (".lora_A.weight", ".lora_B.weight", ".lora_A.default.weight", ".lora_B.default.weight"):
        name = name.replace(suffix, "")
    return name, side


def adapter_to_gguf(*, tensors: dict[str, Any], alpha: float, model_config: dict[str, Any], out: Path,
                    dtype: Any = np.float16) -> Path:
    """Write the PEFT LoRA ``tensors`` (name -> array) as a llama.cpp adapter at ``out``.

    Raises:
        ValueError: a tensor has no llama.cpp name, or lacks its A or B half.
    """
    import gguf

    layers = int(model_config["num_hidden_layers"])
    heads, kv_heads = int(model_config["num_attention_heads"]), int(model_config["num_key_value_heads"])
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, layers)
    pairs: dict[str, dict[str, np.ndarray]] = {}
    for key, value in tensors.items():
        base, side = _base_name(key)
        pairs.setdefault(base, {})[side] = np.asarray(value, dtype=np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    writer = gguf.GGUFWriter(str(partial), ARCH)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
    for base, halves in sorted(pairs.items()):
        target = names.get_name(base + ".weight", try_suffixes=(".weight",))
        if target is None or set(halves) != {"A", "B"}:
            raise ValueError(f"cannot place LoRA tensor {base!r} in a llama.cpp adapter")
        lora_b = halves["B"]
        if base.endswith("q_proj"):
            lora_b = _rotary_rows(lora_b, heads)
        elif base.endswith("k_proj"):
            lora_b = _rotary_rows(lora_b, kv_heads)
        writer.add_tensor(target + ".lora_a", halves["A"].astype(dtype))
        writer.add_tensor(target + ".lora_b", lora_b.astype(dtype))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    partial.replace(out)
    return out


def peft_dir_to_gguf(adapter_dir: Path, out: Path, *, base_dir: Path) -> Path:
    """``adapter_to_gguf`` for a saved PEFT folder (``adapter_config.json`` + ``adapter_model.safetensors``)."""
    from safetensors.numpy import load_file

    config = json.loads((adapter_dir / "adapter_config.json").read_text(encoding="utf-8"))
    model_config = json.loads((base_dir / "config.json").read_text(encoding="utf-8"))
    tensors = load_file(str(adapter_dir / "adapter_model.safetensors"))
    return adapter_to_gguf(tensors=tensors, alpha=float(config["lora_alpha"]), model_config=model_config, out=out)

"""The training card: what was trained on what, for how long, and the loss curve as a PNG."""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def cpu_description() -> str:
    """The CPU's model name, core count and bfloat16 units, from ``/proc/cpuinfo`` (empty where there is none)."""
    import os

    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return ""
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "")
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    units = [flag for flag in ("amx_bf16", "avx512_bf16") if flag in flags] or ["no bf16 units"]
    return f"{model}, {os.cpu_count()} cores, {', '.join(units)}"


@dataclass
class Card:
    config: dict[str, Any]
    base_model: str = ""
    base_gguf_sha256: str = ""
    base_licence: str = "Apache-2.0 (SmolLM2-135M-Instruct, HuggingFaceTB)"
    data: dict[str, Any] = field(default_factory=dict)
    loss: list[dict[str, float]] = field(default_factory=list)
    sittings: list[dict[str, Any]] = field(default_factory=list)  # one per invocation: start, steps, seconds, load
    wall_s: float = 0.0  # training time summed over sittings (loading and saving not counted)
    tokens_seen: int = 0
    trained_tokens_seen: int = 0
    optimizer_steps: int = 0
    total_steps: int = 0
    trainable_parameters: int = 0
    dev_loss: float | None = None
    machine: str = field(default_factory=lambda: f"{platform.processor() or platform.machine()}")
    cpu: str = field(default_factory=lambda: cpu_description())
    torch: str = ""
    finished: bool = False

    def tokens_per_s(self) -> float:
        return self.tokens_seen / self.wall_s if self.wall_s else 0.0

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict

        data = asdict(self)
        data["tokens_per_s"] = round(self.tokens_per_s(), 1)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Card:
        data = dict(data)
        data.pop("tokens_per_s", None)
        return cls(**data)


def write(card: Card, out: Path) -> None:
    """``training_card.json`` and ``loss.png`` in ``out``."""
    (out / "training_card.json").write_text(json.dumps(card.to_json(), indent=1) + "\n", encoding="utf-8")
    if card.loss:
        loss_png(card, out / "loss.png")


def loss_png(card: Card, path: Path) -> None:
    """The per-step training loss and its 10-step moving mean against the optimizer step."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    steps = [point["step"] for point in card.loss]
    values = [point["loss"] for point in card.loss]
    window = 10
    smooth = [sum(values[max(0, i - window + 1): i + 1]) / len(values[max(0, i - window + 1): i + 1])
              for i in range(len(values))]
    figure, axis = plt.subplots(figsize=(7, 3.6), dpi=100)
    axis.plot(steps, values, color="#9bb7d4", linewidth=0.8, label="loss per step")
    axis.plot(steps, smooth, color="#1f4e79", linewidth=1.6, label=f"{window}-step mean")
    axis.set_xlabel("optimizer step")
    axis.set_ylabel("token loss (model's lines)")
    kind = "LoRA" if card.config.get("lora") else "full fine-tune"
    axis.set_title(f"small model, {kind}: {card.optimizer_steps} steps, {card.tokens_seen:,} tokens, "
                   f"{card.wall_s / 60:.0f} min", fontsize=9)
    if card.dev_loss is not None:
        axis.axhline(card.dev_loss, color="#c0504d", linestyle="--", linewidth=1, label=f"dev loss {card.dev_loss:.3f}")
    axis.set_yscale("log")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)

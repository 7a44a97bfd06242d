"""Number formats for training the small model on a CPU: float32, bfloat16 autocast, bfloat16 weights.

On a CPU with AMX-BF16 (Sapphire Rapids and later) oneDNN runs bfloat16 matrix products several
times faster than float32 ones; on one without bf16 instructions bfloat16 is emulated and slower
(measured in the README, ``python -m lab.small.profile``). Three settings:

- ``fp32``: weights, activations and gradients in float32.
- ``bf16-autocast``: float32 weights; matrix products run in bfloat16 under ``torch.autocast``.
- ``bf16``: the model's weights are bfloat16, so every product runs in bfloat16 with no cast per
  step; each trainable bfloat16 weight has a float32 master copy that the optimizer updates
  (``Masters``), so updates far smaller than a bfloat16 step are not rounded away. LoRA weights
  that peft keeps in float32 over a bfloat16 base are their own masters.
"""

from __future__ import annotations

import contextlib
from typing import Any

PRECISIONS = ("fp32", "bf16-autocast", "bf16")


def weights_dtype(precision: str) -> Any:
    """The dtype the model's weights are loaded in.

    Raises:
        ValueError: ``precision`` is not one of ``PRECISIONS``.
    """
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    return torch.bfloat16 if precision == "bf16" else torch.float32


def autocast(precision: str) -> contextlib.AbstractContextManager[Any]:
    """The context a forward pass runs in: bfloat16 autocast for ``bf16-autocast``, else nothing."""
    import torch

    if precision == "bf16-autocast":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


class Masters:
    """Float32 master copies of a model's trainable parameters; the optimizer steps the masters.

    ``params`` is what to hand the optimizer and the gradient clip: the float32 parameters
    themselves, and a float32 copy of each lower-precision one. After ``backward``,
    ``gradients_in()`` moves the gradients onto the masters; after the optimizer step,
    ``weights_out()`` copies the masters back into the model (rounded to its dtype).
    """

    def __init__(self, named: list[tuple[str, Any]]) -> None:
        import torch

        self.names = [name for name, _ in named]
        self.model_params = [param for _, param in named]
        self.params = [
            param if param.dtype == torch.float32 else torch.nn.Parameter(param.detach().float().clone())
            for param in self.model_params
        ]

    @property
    def copied(self) -> bool:
        """Whether any parameter has a separate master (the model holds low-precision trainable weights)."""
        return any(master is not param for master, param in zip(self.params, self.model_params, strict=True))

    def gradients_in(self) -> None:
        for master, param in zip(self.params, self.model_params, strict=True):
            if master is not param:
                master.grad = None if param.grad is None else param.grad.float()
                param.grad = None

    def weights_out(self) -> None:
        import torch

        with torch.no_grad():
            for master, param in zip(self.params, self.model_params, strict=True):
                if master is not param:
                    param.copy_(master)

    def state(self) -> dict[str, Any]:
        """The float32 values of every trainable parameter, by name (what a resumable state saves)."""
        return {name: master.detach().clone() for name, master in zip(self.names, self.params, strict=True)}

    def load(self, state: dict[str, Any]) -> None:
        """Set masters and model weights from ``state()``'s output."""
        import torch

        with torch.no_grad():
            for name, master in zip(self.names, self.params, strict=True):
                master.copy_(state[name])
        self.weights_out()

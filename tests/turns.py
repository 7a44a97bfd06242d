"""An owner's turn through the public contract, for tests: ``POST /api/v1/turns`` must answer 200.

``mode`` and ``conversation`` are sent only when given (the API's defaults otherwise); test files
whose turns share a mode bind it once: ``_say = partial(say, mode="native")``.
"""

from __future__ import annotations

from typing import Any


def say(client: Any, text: str, conversation: str | None = None, *, mode: str | None = None) -> dict[str, Any]:
    """The turn's JSON answer; fails the test with the response body unless the API answered 200."""
    payload: dict[str, Any] = {"text": text, "conversation": conversation}
    if mode is not None:
        payload["mode"] = mode
    response = client.post("/api/v1/turns", payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()

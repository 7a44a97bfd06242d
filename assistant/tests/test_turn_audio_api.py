"""POST /api/v1/turns with a recording (multipart ``audio``): transcribed by the bundled Whisper
model, then the same turn as typed text. The router's language model is replaced at its process
boundary by a ``FakeBackend`` (scripted decision); the speech model, the guard's local layers,
the MCP tools and the ledger run for real.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from audit.models import Turn
from inference.base import Role
from inference.config import backend_override
from inference.fake import FakeBackend
from speech.espeak import ESPEAK, espeak_wav
from tenants.context import use_store

pytestmark = pytest.mark.django_db


def _turns(store) -> int:
    with use_store(store):
        return Turn.objects.filter(store=store).count()


@pytest.mark.parametrize(
    ("upload", "code"),
    [
        (SimpleUploadedFile("a.wav", b"", content_type="audio/wav"), "empty"),
        (SimpleUploadedFile("a.wav", b"RIFF not really a wave file" * 20, content_type="audio/wav"), "not_audio"),
        (SimpleUploadedFile("a.mp4", b"\x00" * 400, content_type="video/mp4"), "unsupported"),
    ],
)
def test_a_broken_recording_gets_a_short_error_and_no_turn_runs(api_client, store, upload, code):
    response = api_client.post("/api/v1/turns", {"audio": upload}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert _turns(store) == 0


def test_text_and_audio_together_are_refused(api_client, store):
    upload = SimpleUploadedFile("a.wav", b"RIFF", content_type="audio/wav")
    response = api_client.post("/api/v1/turns", {"audio": upload, "text": "where is the gur"}, format="multipart")
    assert response.status_code == 400
    assert "either text or an audio recording" in response.json()["error"]["message"]
    assert _turns(store) == 0


@pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make system-deps)")
def test_a_spoken_question_is_transcribed_and_answered_from_the_ledger(api_client, store):
    router = FakeBackend([{"action": "find_product", "item": "jaggery", "ask": "where"}])
    guard = FakeBackend(default={"verdict": "safe", "category": "none"})
    with backend_override(Role.ROUTER, router), backend_override(Role.GUARD, guard):
        wav = espeak_wav("where do we keep the jaggery")
        response = api_client.post(
            "/api/v1/turns", {"audio": SimpleUploadedFile("q.wav", wav, content_type="audio/wav")}, format="multipart"
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert "jaggery" in body["transcript"].lower()
    assert [call["tool"] for call in body["tool_calls"]] == ["get_inventory"]
    assert body["tool_calls"][0]["arguments"]["item"] == "Jaggery"
    assert "aisle" in body["reply"].lower()
    assert router.requests and "jaggery" in str(router.requests[0].messages).lower()

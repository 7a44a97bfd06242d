"""GET /api/v1/turns/<conversation>/<turn>/speech: a turn's reply in the assistant's own voice.

The turn runs through POST /api/v1/turns with the router model scripted at its process boundary;
the voice is espeak-ng here (fast and always installed with the voice tests; Piper is the default
and has its own test marked ``model``).
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from speech.decode import decode_audio
from speech.espeak import ESPEAK
from tenants.services import token_create

pytestmark = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make system-deps)")


def _turn(api_client, router) -> dict:
    router.add({"action": "find_product", "item": "haldi", "ask": "where"})
    response = api_client.post("/api/v1/turns", {"text": "where is the haldi"}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_turns_reply_is_spoken_as_ogg_audio(api_client, demo, router, monkeypatch):
    monkeypatch.setenv("SHELFWISE_TTS", "espeak")
    answer = _turn(api_client, router)
    response = api_client.get(f"/api/v1/turns/{answer['conversation']}/{answer['turn']}/speech")
    assert response.status_code == 200
    assert response["Content-Type"] == "audio/ogg"
    audio = decode_audio(response.content, audio_format="ogg", max_seconds=60)
    assert len(audio) / 16_000 > 1.0  # "Turmeric powder is in aisle 1..." takes seconds to say


def test_another_stores_turn_is_not_found(api_client, demo, router, other_store, monkeypatch):
    monkeypatch.setenv("SHELFWISE_TTS", "espeak")
    answer = _turn(api_client, router)
    _, raw = token_create(store=other_store, name="other", scopes=["api"])
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = other.get(f"/api/v1/turns/{answer['conversation']}/{answer['turn']}/speech")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_a_turn_that_does_not_exist_is_not_found(api_client, demo):
    assert api_client.get("/api/v1/turns/nope/7/speech").status_code == 404


def test_with_the_voice_off_the_reply_is_not_available_as_audio(api_client, demo, router, monkeypatch):
    monkeypatch.setenv("SHELFWISE_TTS", "off")
    answer = _turn(api_client, router)
    response = api_client.get(f"/api/v1/turns/{answer['conversation']}/{answer['turn']}/speech")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"


def test_a_visitor_without_a_token_gets_nothing(demo):
    assert APIClient().get("/api/v1/turns/any/1/speech").status_code in (401, 403)

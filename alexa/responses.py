"""Alexa Skills Kit response documents: speech (plain or SSML), a card, a reprompt, the session flag.

Limits from the ASK reference: speech and card text each stay under 8000 characters, and a
response without speech (the answer to ``SessionEndedRequest``) is an empty ``response``.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

MAX_SPEECH = 6000
MAX_CARD = 7000
MAX_TITLE = 120


def ssml_escape(text: str) -> str:
    """Text made safe inside ``<speak>``: markup characters escaped, so a product name cannot inject tags."""
    return escape(text, {'"': "&quot;", "'": "&apos;"})


def speech(text: str, *, ssml: bool = False) -> dict[str, str]:
    """An ``outputSpeech`` object; SSML wraps the escaped text in ``<speak>``."""
    text = _clip(text, MAX_SPEECH)
    if ssml:
        return {"type": "SSML", "ssml": f"<speak>{ssml_escape(text)}</speak>"}
    return {"type": "PlainText", "text": text}


def answer(
    *,
    text: str,
    end_session: bool,
    card_title: str | None = None,
    card_content: str | None = None,
    reprompt: str | None = None,
    ssml: bool = False,
    session_attributes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A spoken answer with an optional Simple card; the reprompt is sent only while the session stays open."""
    response: dict[str, Any] = {"outputSpeech": speech(text, ssml=ssml), "shouldEndSession": end_session}
    if card_title is not None:
        response["card"] = {
            "type": "Simple",
            "title": _clip(card_title, MAX_TITLE),
            "content": _clip(card_content if card_content is not None else text, MAX_CARD),
        }
    if reprompt and not end_session:
        response["reprompt"] = {"outputSpeech": speech(reprompt, ssml=ssml)}
    return _envelope(response, session_attributes)


def link_account(text: str) -> dict[str, Any]:
    """Ask the owner to link their store: a LinkAccount card in the Alexa app, and the session ends."""
    return _envelope({"outputSpeech": speech(text), "card": {"type": "LinkAccount"}, "shouldEndSession": True})


def empty() -> dict[str, Any]:
    """The answer to ``SessionEndedRequest``: Alexa allows no speech there."""
    return {"version": "1.0", "response": {}}


def _envelope(response: dict[str, Any], session_attributes: dict[str, Any] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"version": "1.0", "response": response}
    if session_attributes:
        document["sessionAttributes"] = session_attributes
    return document


def _clip(text: str, limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

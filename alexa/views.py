"""The Alexa custom skill endpoint: verified ASK requests in, ASK responses out.

Every request is verified first (``alexa.verify``); a request that fails gets a 400
with a short JSON error and nothing runs. The store comes from account linking: the linked
access token is a store token with the ``api`` scope, the same credential ``POST /api/v1/turns``
takes, since the skill is one more client of the turn pipeline. The owner's words become a turn
of ``assistant.pipeline.run_turn`` on the ``alexa`` channel, in a conversation derived from the
Alexa session id, so a "yes" in the same session confirms the draft the previous turn offered.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from alexa import responses
from alexa.verify import VerificationFailed, request_verify
from assistant import sentences
from assistant.modes.router.prompt import router_pack
from assistant.sentences import say
from assistant.types import Mode
from audit.models import Channel
from identity.credentials import credential_authenticate
from packs.source import store_pack_key
from shelfwise.throttling import token_ident, turn_charge
from tenants.errors import InvalidToken, MissingScope
from tenants.models import Store, StoreToken
from worker.turns import push_reaches_web, turn_submit
from worker.watch import turn_wait

logger = logging.getLogger(__name__)

MAX_BODY = 128 * 1024
TOKEN_SCOPE = StoreToken.Scope.API
SESSION_PREFIX = "amzn1.echo-api.session."
MAX_CONVERSATION = 64

# What Alexa says (assistant.sentences holds the words; ``say`` gives them in the active language).
LINK_TEXT = sentences.ALEXA_LINK
HELP_TEXT = sentences.ALEXA_HELP
PROMPT = sentences.ALEXA_PROMPT
FALLBACK_TEXT = sentences.ALEXA_FALLBACK
GOODBYE = sentences.ALEXA_GOODBYE
SORRY = sentences.TURN_FAILED
CONFIRM_PROMPT = sentences.ALEXA_CONFIRM_PROMPT
STILL_WORKING = sentences.ALEXA_STILL_WORKING
# Over the linked token's turn rate: Alexa treats a non-200 as a broken skill, so this is an answer.
SLOW_DOWN = sentences.ALEXA_SLOW_DOWN
# Alexa waits about eight seconds for an answer; the turn's worker gets most of them.
ALEXA_TURN_WAIT_S = 6.5

YES_NO = {"AMAZON.YesIntent": "yes", "AMAZON.NoIntent": "no"}
ENDING = {"AMAZON.StopIntent", "AMAZON.CancelIntent", "AMAZON.NavigateHomeIntent"}
REQUEST_INTENT = "OwnerRequestIntent"
REQUEST_SLOT = "request"


@csrf_exempt
@require_POST
def skill(request: HttpRequest) -> JsonResponse:
    """Answer one Alexa Skills Kit request (Alexa calls this; people do not)."""
    try:
        length = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY:
        return _refuse("too_large", "The request is too large.")
    body = request.body
    if len(body) > MAX_BODY:  # a body sent without Content-Length
        return _refuse("too_large", "The request is too large.")
    try:
        payload = request_verify(body=body, headers=request.headers)
    except VerificationFailed as exc:
        logger.warning("Alexa request refused (%s): %s", exc.code, exc.message)
        return _refuse(exc.code, exc.message)
    except Exception:  # an unforeseen fault in verification refuses the request; it never lets it through
        logger.exception("Alexa request verification failed unexpectedly")
        return _refuse("unverifiable", "The request could not be verified.")
    try:
        document = _handle(payload)
    except Exception:  # a verified request always gets a spoken answer, never a stack trace
        logger.exception("Alexa request failed")
        document = responses.answer(text=say(SORRY), end_session=True)
    return JsonResponse(document)


def _refuse(code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": code, "message": message}, status=400)


def _handle(payload: dict[str, Any]) -> dict[str, Any]:
    request = payload["request"]
    kind = request.get("type")
    if kind == "SessionEndedRequest":
        if request.get("reason") == "ERROR":
            logger.warning("Alexa ended the session with an error: %s", request.get("error"))
        return responses.empty()
    if kind not in ("LaunchRequest", "IntentRequest"):
        return responses.empty()  # device and player events need no answer from a store assistant
    token = _linked_token(payload)
    if token is None:
        return responses.link_account(say(LINK_TEXT))
    store = token.store
    if kind == "LaunchRequest":
        return _say(store, _welcome(store), end_session=False, reprompt=say(PROMPT))
    intent = request.get("intent") if isinstance(request.get("intent"), dict) else {}
    name = intent.get("name")
    if name in ENDING:
        return _say(store, say(GOODBYE), end_session=True)
    if name == "AMAZON.HelpIntent":
        return _say(store, say(HELP_TEXT), end_session=False, reprompt=say(PROMPT))
    if name in YES_NO:
        return _turn(payload, store=store, token=token, text=YES_NO[name])
    if name == REQUEST_INTENT:
        words = _slot_value(intent, REQUEST_SLOT)
        if words:
            return _turn(payload, store=store, token=token, text=words)
    return _say(store, say(FALLBACK_TEXT), end_session=False, reprompt=say(PROMPT))


def _linked_token(payload: dict[str, Any]) -> StoreToken | None:
    """The store token Alexa holds from account linking, or None (not linked, revoked, wrong scope)."""
    raw = _get(payload, "context", "System", "user", "accessToken") or _get(payload, "session", "user", "accessToken")
    if not isinstance(raw, str) or not raw:
        return None
    try:
        # A store token, or an OAuth access token from account linking (issued without a resource
        # indicator; one bound to /mcp is refused here).
        return credential_authenticate(raw=raw, scope=TOKEN_SCOPE)
    except (InvalidToken, MissingScope) as exc:
        logger.info("Alexa account link refused: %s", exc.message)
        return None


def _turn(payload: dict[str, Any], *, store: Store, token: StoreToken, text: str) -> dict[str, Any]:
    """The owner's words as a turn on a worker; Alexa hears its reply, or a "still working" within its deadline.

    Each turn counts against the linked token's ``API_TURNS_RATE`` (the budget its ``POST /api/v1/turns``
    uses too); over it, nothing runs and Alexa hears ``SLOW_DOWN``.
    """
    if turn_charge(token_ident(token)) is not None:
        return _say(store, say(SLOW_DOWN), end_session=False)
    notify = async_to_sync(get_channel_layer().new_channel)() if push_reaches_web() else None
    job = turn_submit(
        store=store, channel=Channel.ALEXA.value, mode=Mode.ROUTER.value, actor=f"token:{token.prefix}", text=text,
        conversation=conversation_key(_get(payload, "session", "sessionId")), notify=notify,
    )
    status = async_to_sync(turn_wait)(store=store, job_id=str(job.pk), notify=notify, timeout=ALEXA_TURN_WAIT_S)
    if status is None or status["status"] != "done":
        message = (status or {}).get("error", {}).get("message") if status else say(STILL_WORKING)
        return _say(store, message or say(SORRY), end_session=False, reprompt=say(PROMPT))
    answer = status["result"]  # the turn's answer (TurnResult.as_dict), as the worker stored it
    # A draft offered by this very turn: the next "yes" in this session is the one that places it.
    offered = answer.get("offered_draft_id") is not None
    return _say(
        store,
        answer.get("reply") or say(SORRY),
        end_session=False,
        reprompt=say(CONFIRM_PROMPT if offered else PROMPT),
        card=_card_text(answer),
        attributes={"conversation": answer.get("conversation")},
    )


def _say(
    store: Store, text: str, *, end_session: bool, reprompt: str | None = None, card: str | None = None,
    attributes: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return responses.answer(
        text=text, end_session=end_session, card_title=store.name, card_content=card, reprompt=reprompt,
        session_attributes=attributes,
    )


def _welcome(store: Store) -> str:
    """The business type's launch line, as the pipeline's launch phrase answers it (no model)."""
    try:
        line = router_pack(store_pack_key(store)).launch_reply
        return line.format(owner=store.owner_name or "there", store=store.name)
    except Exception:  # a vendor pack with a broken line still gets a welcome
        logger.exception("Launch line for %s failed", store.business_type.slug)
        return say(sentences.ALEXA_READY, store=store.name, prompt=say(PROMPT))


def _card_text(answer: dict[str, Any]) -> str:
    """The reply, then one line per photo, film or audio guide the turn returned (links to open them)."""
    lines = [answer.get("reply") or say(SORRY)]
    for item in answer.get("media") or []:
        url = str(item.get("url") or "")
        if url.startswith("/"):
            url = f"{settings.PUBLIC_URL}{url}"
        label = {"photo": "Shelf photo", "video": "Film", "audio": "Audio guide"}.get(str(item.get("kind")), "Media")
        title = item.get("title")
        lines.append(f"{label}{f' ({title})' if title else ''}: {url}")
    return "\n".join(lines)


def conversation_key(session_id: Any) -> str | None:
    """The conversation for an Alexa session: its id reduced to [A-Za-z0-9_-], at most 64 characters.

    None (a new conversation) when Alexa sent no session id.
    """
    if not isinstance(session_id, str) or not session_id.strip():
        return None
    session_id = session_id.strip()
    tail = session_id.removeprefix(SESSION_PREFIX)
    key = "alexa-" + re.sub(r"[^A-Za-z0-9_-]", "-", tail)
    if len(key) > MAX_CONVERSATION or key != "alexa-" + tail:
        # Long or reshaped ids: a digest keeps distinct sessions distinct.
        key = "alexa-" + hashlib.sha256(session_id.encode()).hexdigest()[:40]
    return key


def _slot_value(intent: dict[str, Any], name: str) -> str:
    slots = intent.get("slots")
    slot = slots.get(name) if isinstance(slots, dict) else None
    value = slot.get("value") if isinstance(slot, dict) else None
    return " ".join(value.split()) if isinstance(value, str) else ""


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data

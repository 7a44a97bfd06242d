"""The talk page: the owner's smart-display view of the assistant.

The page is a shell; ``dashboard/static/dashboard/talk.js`` streams the microphone to the
store's voice socket (``/ws/stores/<slug>/voice``), sends typed turns over it (or to
``POST /api/v1/turns`` when the socket is down) and renders the turn's events. Everything the
script needs comes from data attributes rendered here, all for the request's own store.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse

from assistant.types import Mode

# The approvals endpoints take a draft id; the script swaps this placeholder for the real one.
DRAFT_ID_PLACEHOLDER = 2147483647
MODE_LABELS = {Mode.ROUTER: "Router", Mode.NATIVE: "Native tool calling", Mode.SMALL: "Small model"}


def voice_socket_path(*, store_slug: str) -> str:
    """The path of the store's voice websocket (the consumer's route, assistant.routing)."""
    return f"/ws/stores/{store_slug}/voice"


def _draft_url(name: str) -> str:
    """The approvals endpoint as a template, or "" while it does not exist (the page then says yes/no)."""
    try:
        return reverse(name, args=[DRAFT_ID_PLACEHOLDER])
    except NoReverseMatch:
        return ""


@login_required
def talk(request: HttpRequest) -> HttpResponse:
    store = getattr(request, "store", None)
    if store is None:
        return redirect("tenants:home")
    return render(
        request,
        "dashboard/talk.html",
        {
            "section": "talk",
            "socket_path": voice_socket_path(store_slug=store.slug),
            "turns_url": reverse("api-turns"),
            "approve_url": _draft_url("owner:draft-approve"),
            "decline_url": _draft_url("owner:draft-decline"),
            "draft_placeholder": DRAFT_ID_PLACEHOLDER,
            "modes": [(str(mode), MODE_LABELS[mode]) for mode in Mode],
            "default_mode": str(Mode.ROUTER),
        },
    )

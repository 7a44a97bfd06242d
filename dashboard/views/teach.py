"""Teaching the fast path from the assistant's history (owners only; ``assistant.matcher.taught``).

A turn in the history can be taught with the action it meant; next time words like it are
answered by the matcher without a model call. The history page lists what was taught, and a
taught phrase can be forgotten. Staff see the history but cannot teach or forget.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from assistant.matcher.taught import TeachRefused, TurnNotFound, forget, teach
from dashboard.views.owner import _actor, _is_owner, _wants_json, workspace_view

_OWNERS_ONLY = "Only the store's owner can teach the assistant's fast path."


def _answer(request: HttpRequest, *, ok: bool, message: str, status: int, anchor: str = "") -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"ok": ok, "message": message}, status=status)
    if status == 403:
        return render(request, "dashboard/forbidden.html", {"section": "assistant", "message": message, "back_label":
                      "Back to the assistant's history", "back": reverse("owner:assistant")}, status=403)
    if status == 404:
        raise Http404(message)
    (messages.success if ok else messages.error)(request, message)
    return redirect(reverse("owner:assistant") + anchor)


@require_POST
@workspace_view
def turn_teach(request: HttpRequest, turn_id: int) -> HttpResponse:
    """Teach the store's fast path that this turn's words mean the chosen action."""
    if not _is_owner(request):
        return _answer(request, ok=False, message=_OWNERS_ONLY, status=403)
    action = (request.POST.get("action") or "").strip()[:40]
    try:
        phrase = teach(store=request.store, turn_id=turn_id, action=action, actor=_actor(request))
    except TurnNotFound as exc:
        return _answer(request, ok=False, message=exc.message, status=404)
    except TeachRefused as exc:
        return _answer(request, ok=False, message=exc.message, status=400, anchor=f"#turn-{turn_id}")
    return _answer(request, ok=True, status=200, anchor=f"#turn-{turn_id}",
                   message=f"Learned: words like “{phrase.said}” now mean “{phrase.action}” here, without a model call.")


@require_POST
@workspace_view
def taught_forget(request: HttpRequest, phrase_id: int) -> HttpResponse:
    """Forget one taught phrase of this store."""
    if not _is_owner(request):
        return _answer(request, ok=False, message=_OWNERS_ONLY, status=403)
    if not forget(store=request.store, phrase_id=phrase_id):
        return _answer(request, ok=False, message="That phrase was not found in this store.", status=404)
    return _answer(request, ok=True, message="Forgotten: the model decides those words again.", status=200,
                   anchor="#taught")

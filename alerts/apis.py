"""REST: the store's alerts (list, acknowledge, snooze) and its alert preferences (per kind).

A caller sees the kinds its role sees (``alerts.kinds``): at owner level (the owner, or a
credential with ``orders:confirm``) every kind, else the staff kinds; another role's alert is
404 like another store's. Errors have the API's shape, ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from alerts import services
from alerts.kinds import ALL_CHANNELS, Kind
from alerts.models import Alert
from ledger.apis.pagination import paginated
from ledger.apis.reads import PAGE_PARAMETERS, page_of
from ledger.errors import InvalidInput
from tenants.authentication import StoreRequest, request_actor

ERROR = OpenApiResponse(description='`{"error": {"code", "message"}}`')
STATES = ("open", "snoozed", "past", "all")
MAX_SNOOZE_HOURS = 24 * 30


class AlertOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Kind.choices)
    message = serializers.CharField(help_text="Built from the facts; every number in it is the ledger's.")
    facts = serializers.DictField()
    product_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    acknowledged_at = serializers.DateTimeField(allow_null=True)
    acknowledged_by = serializers.CharField(allow_blank=True)
    snoozed_until = serializers.DateTimeField(allow_null=True)
    delivered = serializers.ListField(child=serializers.CharField(), help_text="Channels it went out on.")


class SnoozeInput(serializers.Serializer):
    until = serializers.DateTimeField(required=False, help_text="When it comes back (with a time zone).")
    hours = serializers.IntegerField(required=False, min_value=1, max_value=MAX_SNOOZE_HOURS,
                                     help_text="Or: for this many hours.")

    def validate(self, attrs: dict) -> dict:
        if ("until" in attrs) == ("hours" in attrs):
            raise serializers.ValidationError("Give either until or hours.")
        return attrs


class PreferenceInput(serializers.Serializer):
    enabled = serializers.BooleanField()
    channels = serializers.ListField(child=serializers.ChoiceField(choices=list(ALL_CHANNELS)), required=False,
                                     help_text="Where it goes; every channel if left out.")


class PreferenceOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Kind.choices)
    enabled = serializers.BooleanField()
    channels = serializers.ListField(child=serializers.CharField())


def _render(alert: Alert) -> dict:
    return AlertOutput(alert).data


def _owner(request: StoreRequest) -> bool:
    return services.owner_level(store=request.store, actor=request_actor(request))


def _checked(serializer: serializers.Serializer) -> dict:
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class AlertListApi(APIView):
    """The alerts this caller's role sees, newest first: open (default), snoozed, past (acknowledged) or all."""

    @extend_schema(parameters=[OpenApiParameter("state", str, enum=list(STATES)), *PAGE_PARAMETERS],
                   responses={200: page_of(AlertOutput, "AlertPage"), 400: ERROR})
    def get(self, request: StoreRequest) -> Response:
        state = request.query_params.get("state", "open")
        if state not in STATES:
            raise InvalidInput(f"state is one of: {', '.join(STATES)}.")
        owner, now = _owner(request), timezone.now()
        rows = services.alerts_visible(store=request.store, owner=owner)
        if state == "open":
            rows = services.alerts_open(store=request.store, owner=owner, now=now)
        elif state == "snoozed":
            rows = rows.filter(acknowledged_at__isnull=True, snoozed_until__gt=now)
        elif state == "past":
            rows = rows.filter(acknowledged_at__isnull=False)
        return paginated(self, request, rows.order_by("-created_at", "-id"), lambda page: [_render(a) for a in page])


class AlertAckApi(APIView):
    """Acknowledge an alert: it leaves the open list, the digest and the spoken preface. Twice is fine."""

    @extend_schema(request=None, responses={200: AlertOutput, 404: ERROR})
    def post(self, request: StoreRequest, alert_id: int) -> Response:
        alert = services.alert_acknowledge(store=request.store, alert_id=alert_id, actor=request_actor(request),
                                           owner=_owner(request))
        return Response(_render(alert))


class AlertSnoozeApi(APIView):
    """Hide an open alert until a time (or for some hours, at most 30 days); it comes back by itself."""

    @extend_schema(request=SnoozeInput, responses={200: AlertOutput, 400: ERROR, 404: ERROR})
    def post(self, request: StoreRequest, alert_id: int) -> Response:
        data = _checked(SnoozeInput(data=request.data))
        until = data.get("until") or timezone.now() + dt.timedelta(hours=data["hours"])
        alert = services.alert_snooze(store=request.store, alert_id=alert_id, until=until, owner=_owner(request))
        return Response(_render(alert))


class PreferenceListApi(APIView):
    """Every alert kind: on or off, and its channels (workspace, email, spoken)."""

    @extend_schema(responses={200: PreferenceOutput(many=True)})
    def get(self, request: StoreRequest) -> Response:
        prefs = services.preferences(store=request.store)
        return Response([{"kind": p.kind, "enabled": p.enabled, "channels": list(p.channels)} for p in prefs.values()])


class PreferenceApi(APIView):
    """Switch one kind on or off and choose its channels (owner level; staff get 403)."""

    @extend_schema(request=PreferenceInput, responses={200: PreferenceOutput, 400: ERROR, 403: ERROR})
    def put(self, request: StoreRequest, kind: str) -> Response:
        data = _checked(PreferenceInput(data=request.data))
        pref = services.preference_set(store=request.store, kind=kind, enabled=data["enabled"],
                                       channels=data.get("channels"), actor=request_actor(request))
        return Response({"kind": pref.kind, "enabled": pref.enabled, "channels": list(pref.channels)})

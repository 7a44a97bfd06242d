from django.urls import path

from alerts import apis

urlpatterns = [
    path("alerts", apis.AlertListApi.as_view(), name="api-alerts"),
    path("alerts/<int:alert_id>/ack", apis.AlertAckApi.as_view(), name="api-alert-ack"),
    path("alerts/<int:alert_id>/snooze", apis.AlertSnoozeApi.as_view(), name="api-alert-snooze"),
    path("alerts/preferences", apis.PreferenceListApi.as_view(), name="api-alert-preferences"),
    path("alerts/preferences/<str:kind>", apis.PreferenceApi.as_view(), name="api-alert-preference"),
]

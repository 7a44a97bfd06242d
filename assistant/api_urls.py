from django.urls import path

from assistant import apis

urlpatterns = [
    path("turns", apis.turn_api, name="api-turns"),
    path("turns/<str:job>", apis.TurnStatusApi.as_view(), name="api-turn-status"),
    path("turns/<str:conversation>/<int:turn>/speech", apis.TurnSpeechApi.as_view(), name="api-turn-speech"),
    path("audit", apis.AuditApi.as_view(), name="api-audit"),
]

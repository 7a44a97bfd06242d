from django.urls import path

from assistant import apis

urlpatterns = [
    path("turns", apis.TurnApi.as_view(), name="api-turns"),
    path("audit", apis.AuditApi.as_view(), name="api-audit"),
]

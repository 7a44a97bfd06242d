from django.urls import path

from dashboard.views import vendor

app_name = "vendor"

urlpatterns = [
    path("", vendor.types, name="types"),
    path("<slug:slug>/", vendor.type_detail, name="type"),
]

from django.urls import path

from tenants import views

app_name = "tenants"

urlpatterns = [
    path("", views.home, name="home"),
    path("stores/new/", views.store_new, name="store-new"),
    path("stores/switch/", views.store_switch, name="store-switch"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token-revoke"),
]

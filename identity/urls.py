"""The OAuth 2.1 authorization server's endpoints (named as django-oauth-toolkit expects)."""

from django.urls import path
from oauth2_provider.views import RevokeTokenView, TokenView

from identity.consent import ConsentView
from identity.metadata import ServerMetadataView
from identity.registration import register

app_name = "oauth2_provider"

urlpatterns = [
    path("oauth/authorize/", ConsentView.as_view(), name="authorize"),
    path("oauth/token/", TokenView.as_view(), name="token"),
    path("oauth/revoke_token/", RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register", register, name="register"),
    path(".well-known/oauth-authorization-server", ServerMetadataView.as_view(), name="oauth-server-metadata"),
]

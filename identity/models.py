"""Who may do what across the whole platform, as Django permissions (not ``is_staff``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from oauth2_provider.settings import oauth2_settings


class PlatformAccess(models.Model):
    """No table: the holder of the platform-wide permissions.

    ``identity.platform_admin`` opens ``/ops/`` (every store's audits, prompts, SQL and metrics)
    and the Django admin; ``identity.vendor`` lets a vendor author business types. Neither comes
    with ``is_staff``, and a vendor gets no ``/ops/``.
    """

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [
            ("platform_admin", "Administer the platform: every store's audits, metrics and the admin"),
            ("vendor", "Author business types (vendor pages)"),
        ]

    def __str__(self) -> str:
        return "Platform access"


class Connection(models.Model):
    """An OAuth client that a store member connected to a store, on the consent page.

    Its ``credential`` is a store token (``tenants.StoreToken``) without a usable secret: it
    carries the store, the scopes granted and the revocation, so the owner sees and revokes it
    with the store's other tokens, and every channel that knows store tokens (MCP, REST, audit,
    rate limits, idempotency) treats an OAuth caller the same way. One per store, user and client;
    consenting again replaces its scopes.
    """

    credential = models.OneToOneField("tenants.StoreToken", on_delete=models.CASCADE, related_name="oauth_connection")
    application = models.ForeignKey(oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.application} for {self.credential.store}"


class GrantBinding(models.Model):
    """Which store credential an authorization code was granted for."""

    grant = models.OneToOneField(oauth2_settings.GRANT_MODEL, on_delete=models.CASCADE, related_name="shelfwise")
    credential = models.ForeignKey("tenants.StoreToken", on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"Grant {self.grant_id} for store token {self.credential_id}"


class AccessTokenBinding(models.Model):
    """Which store credential an OAuth access token acts with."""

    access_token = models.OneToOneField(
        oauth2_settings.ACCESS_TOKEN_MODEL, on_delete=models.CASCADE, related_name="shelfwise"
    )
    credential = models.ForeignKey("tenants.StoreToken", on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"Access token {self.access_token_id} for store token {self.credential_id}"


class RefreshTokenBinding(models.Model):
    """Which store credential an OAuth refresh token renews access for."""

    refresh_token = models.OneToOneField(
        oauth2_settings.REFRESH_TOKEN_MODEL, on_delete=models.CASCADE, related_name="shelfwise"
    )
    credential = models.ForeignKey("tenants.StoreToken", on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"Refresh token {self.refresh_token_id} for store token {self.credential_id}"

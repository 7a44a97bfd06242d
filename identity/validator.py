"""django-oauth-toolkit's validator, with every grant and token bound to one store's credential.

The consent page (``identity.consent``) passes the chosen store credential's id as
``shelfwise_credential_id``; oauthlib sets it on the request. From there it follows the grant:
the authorization code, the access token, the refresh token, and every token a refresh mints.
A grant or refresh token whose credential was revoked meanwhile is refused, so revoking the
connection in the store's token list ends the client's access, refresh included.
"""

from __future__ import annotations

from oauth2_provider.models import get_grant_model
from oauth2_provider.oauth2_validators import OAuth2Validator

from identity.lookups import credential_is_active
from identity.models import AccessTokenBinding, GrantBinding, RefreshTokenBinding

CREDENTIAL_ATTRIBUTE = "shelfwise_credential_id"


def _live_credential_id(credential_id: int | None) -> int | None:
    if credential_id is None:
        return None
    # The token endpoint knows no store: ask past the fence whether that one credential is live.
    return credential_id if credential_is_active(credential_id=credential_id) else None


class StoreBoundValidator(OAuth2Validator):
    """Binds codes and tokens to the store credential chosen on the consent page."""

    def _create_authorization_code(self, request, code, expires=None):
        credential_id = getattr(request, CREDENTIAL_ATTRIBUTE, None)
        if credential_id is None:
            raise ValueError("An authorization code needs the store chosen on the consent page.")
        grant = super()._create_authorization_code(request, code, expires)
        GrantBinding.objects.create(grant=grant, credential_id=credential_id)
        return grant

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        if not super().validate_code(client_id, code, client, request, *args, **kwargs):
            return False
        grant = get_grant_model().objects.filter(code=code, application=client).select_related("shelfwise").first()
        binding = getattr(grant, "shelfwise", None) if grant is not None else None
        credential_id = _live_credential_id(binding.credential_id if binding is not None else None)
        if credential_id is None:
            return False
        setattr(request, CREDENTIAL_ATTRIBUTE, credential_id)
        return True

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            return False
        instance = getattr(request, "refresh_token_instance", None)
        binding = RefreshTokenBinding.objects.filter(refresh_token=instance).first() if instance is not None else None
        credential_id = _live_credential_id(binding.credential_id if binding is not None else None)
        if credential_id is None:
            return False
        setattr(request, CREDENTIAL_ATTRIBUTE, credential_id)
        return True

    def _create_access_token(self, expires, request, token, source_refresh_token=None):
        access_token = super()._create_access_token(expires, request, token, source_refresh_token)
        AccessTokenBinding.objects.create(access_token=access_token, credential_id=self._credential_id(request))
        return access_token

    def _create_refresh_token(self, request, refresh_token_code, access_token, previous_refresh_token):
        refresh_token = super()._create_refresh_token(request, refresh_token_code, access_token, previous_refresh_token)
        RefreshTokenBinding.objects.create(refresh_token=refresh_token, credential_id=self._credential_id(request))
        return refresh_token

    @staticmethod
    def _credential_id(request) -> int:
        credential_id = getattr(request, CREDENTIAL_ATTRIBUTE, None)
        if credential_id is None:
            raise ValueError("A token can only be issued for a grant bound to a store.")
        return credential_id

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        # Only the code flow and its refresh: every token must come from a store owner's consent.
        if grant_type not in ("authorization_code", "refresh_token"):
            return False
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

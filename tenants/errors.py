"""Errors of the tenants domain: each has a stable ``code`` for machines and a ``message`` for people.

Edges map them once: the DRF exception handler and the MCP gateway turn ``InvalidToken`` into
401 and ``MissingScope`` into 403; views turn ``StoreNotFound`` into 404.
"""

from __future__ import annotations


class TenantError(Exception):
    """Base of the tenants domain's errors."""

    code = "tenant_error"
    default_message = "That did not work for this store."

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)


class InvalidToken(TenantError):
    """The credential is unknown, malformed or revoked (all answered alike, so nothing leaks)."""

    code = "invalid_token"
    default_message = "The store token is not valid. Ask the store owner for a new one."


class MissingScope(TenantError):
    """The credential is valid but not for this kind of access."""

    code = "insufficient_scope"
    default_message = "This store token does not allow this. Create a token with the needed scope."

    def __init__(self, scope: str, message: str | None = None) -> None:
        self.scope = scope
        super().__init__(message or f"This store token lacks the {scope!r} scope. Create a token that has it.")


class InvalidScope(TenantError):
    """A token was requested with a scope that does not exist."""

    code = "invalid_scope"
    default_message = "Unknown token scope."


class StoreNotFound(TenantError):
    """No such store, or the caller is not a member: both answer the same."""

    code = "store_not_found"
    default_message = "Store not found."


class TokenNotFound(TenantError):
    """No such token in this store (another store's token answers the same)."""

    code = "token_not_found"
    default_message = "Token not found."

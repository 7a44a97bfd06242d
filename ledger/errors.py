"""The ledger's errors: one base with a stable ``code`` and a short message people can read.

Each edge maps ``LedgerError`` once (the REST exception handler, MCP tool errors, the
assistant's reply). Messages say what happened and what to do, and never name tables, ids
of other stores or stack details. ``details`` carries the few facts a caller needs to retry
(for a stock conflict: the current count).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


class LedgerError(Exception):
    """Base of every error the ledger raises on purpose."""

    code: str = "ledger_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return self.message

    def as_dict(self) -> dict[str, Any]:
        """The error as a JSON-ready dict: code, message and details."""
        return {"code": self.code, "message": self.message, **self.details}


class NotFound(LedgerError):
    """The row does not exist in this store. Another store's row raises exactly this too."""

    code = "not_found"

    def __init__(self, what: str = "item") -> None:
        super().__init__(_("That %(what)s was not found in this store.") % {"what": what})


class InvalidInput(LedgerError):
    """An argument the ledger cannot use (an empty list, an unknown report kind, a bad address)."""

    code = "invalid_input"


class StockConflict(LedgerError):
    """A compare-and-set stock update whose expected count is no longer the current one."""

    code = "stock_conflict"

    def __init__(self, *, product: str, expected: int, current: int) -> None:
        super().__init__(
            _(
                "The count of %(product)s changed: it is %(current)s now, not %(expected)s. "
                "Nothing was changed; check the new count and try again."
            )
            % {"product": product, "current": current, "expected": expected},
            product=product,
            expected=expected,
            current=current,
        )
        self.expected = expected
        self.current = current


class InvalidQuantity(LedgerError):
    """A count or quantity that is negative, zero where it must not be, fractional or absurd."""

    code = "invalid_quantity"


class InvalidTransition(LedgerError):
    """A draft that is not pending (or has expired) cannot be confirmed or declined."""

    code = "invalid_transition"

    def __init__(self, message: str, *, status: str) -> None:
        super().__init__(message, status=status)
        self.status = status


class ReportDisabled(LedgerError):
    """The report cannot be emailed on this deployment."""

    code = "report_disabled"


class RecipientNotAllowed(LedgerError):
    """The report may not go to that address (or the store has no address to send to)."""

    code = "recipient_not_allowed"


class NothingToOrder(LedgerError):
    """A restock of all low items was asked for, but nothing is at or below its reorder point."""

    code = "nothing_to_order"


class DeliveryFailed(LedgerError):
    """The email server did not accept the report."""

    code = "delivery_failed"


class EditConflict(LedgerError):
    """A row changed since the caller read it (a product edit, an import preview, a delivery)."""

    code = "edit_conflict"


class InvalidLine(InvalidInput):
    """One line of a receipt, refund or delivery cannot be used; ``line`` counts from 1."""

    code = "invalid_line"

    def __init__(self, *, line: int, field: str, reason: str) -> None:
        super().__init__(
            _("Line %(line)s, %(field)s: %(reason)s") % {"line": line, "field": field, "reason": reason},
            line=line,
            field=field,
            reason=reason,
        )
        self.line, self.field, self.reason = line, field, reason


class IdempotencyConflict(LedgerError):
    """An idempotency key or external id already recorded a different request."""

    code = "idempotency_conflict"

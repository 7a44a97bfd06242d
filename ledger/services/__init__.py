"""The API of the store's books: the only code that writes them.

Every function is keyword-only, takes the store explicitly, runs atomically and raises
``ledger.errors.LedgerError`` subclasses for anything a caller should tell a person about.
"""

from ledger.services.products import product_create, product_photo_set
from ledger.services.receipts import receipt_create, receipts_import
from ledger.services.reconciliation import day_reconcile
from ledger.services.reorders import (
    draft_confirm,
    draft_create,
    draft_decline,
    drafts_expire,
)
from ledger.services.reports import report_render, report_send
from ledger.services.stock import stock_set

__all__ = [
    "day_reconcile",
    "draft_confirm",
    "draft_create",
    "draft_decline",
    "drafts_expire",
    "product_create",
    "product_photo_set",
    "receipt_create",
    "receipts_import",
    "report_render",
    "report_send",
    "stock_set",
]

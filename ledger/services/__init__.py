"""The API of the store's books: the only code that writes them.

Every function is keyword-only, takes the store explicitly, runs atomically and raises
``ledger.errors.LedgerError`` subclasses for anything a caller should tell a person about.
"""

from ledger.services.deliveries import order_receive
from ledger.services.imports import (
    import_apply_request,
    import_create,
    import_preview_request,
)
from ledger.services.products import product_archive, product_create, product_restore, product_update
from ledger.services.receipts import (
    Recorded,
    SaleLine,
    receipt_create,
    receipt_refund,
    receipts_import,
    sale_record,
)
from ledger.services.reconciliation import day_reconcile
from ledger.services.reorders import (
    draft_confirm,
    draft_create,
    draft_decline,
    drafts_expire,
)
from ledger.services.reports import report_recipients, report_render, report_send
from ledger.services.shelf_photos import product_photo_set
from ledger.services.stock import stock_set

__all__ = [
    "Recorded",
    "SaleLine",
    "day_reconcile",
    "draft_confirm",
    "draft_create",
    "draft_decline",
    "drafts_expire",
    "import_apply_request",
    "import_create",
    "import_preview_request",
    "order_receive",
    "product_archive",
    "product_create",
    "product_photo_set",
    "product_restore",
    "product_update",
    "receipt_create",
    "receipt_refund",
    "receipts_import",
    "report_recipients",
    "report_render",
    "report_send",
    "sale_record",
    "stock_set",
]

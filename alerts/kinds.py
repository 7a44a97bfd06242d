"""What the store watches, who sees each kind, and where an alert may go.

Staff see the alerts they can act on: stock (they count, shelve and tell the owner) and an
unusual day (the sales page is theirs too). A draft waiting for approval and a report that
failed to send are for whoever may place orders and manage the store's email: the owner, or a
credential holding ``orders:confirm`` (``tenants.permissions.may_confirm_orders``).
"""

from __future__ import annotations

from django.db import models


class Kind(models.TextChoices):
    LOW_STOCK = "low_stock", "Down to its reorder point"
    SOLD_OUT = "sold_out", "Sold out"
    UNUSUAL_DAY = "unusual_day", "A day far from its usual"
    DRAFT_WAITING = "draft_waiting", "A reorder waiting for approval"
    REPORT_FAILED = "report_failed", "A report that did not send"


class Channel(models.TextChoices):
    WORKSPACE = "workspace", "Workspace (live, on the talk page)"
    EMAIL = "email", "Daily email digest"
    SPOKEN = "spoken", "Spoken at the start of a conversation"


STAFF_KINDS = frozenset({Kind.LOW_STOCK, Kind.SOLD_OUT, Kind.UNUSUAL_DAY})
OWNER_KINDS = frozenset(Kind)
ALL_CHANNELS = tuple(Channel.values)


def visible_kinds(*, owner_level: bool) -> frozenset[str]:
    """The kinds a member (or credential) sees: every kind at owner level, else the staff kinds."""
    return frozenset(str(kind) for kind in (OWNER_KINDS if owner_level else STAFF_KINDS))

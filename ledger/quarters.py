"""Quarter-hours in UTC: the buckets a store's sales sums are kept in (``SalesQuarterHour``).

Kept apart from ``ledger.services.sales_months`` (which writes the sums) so that readers such as
``ledger.sales_history`` need not import the services package, which imports them back.
"""

from __future__ import annotations

import datetime as dt

QUARTER = dt.timedelta(minutes=15)


def quarter_of(moment: dt.datetime) -> dt.datetime:
    """The start of ``moment``'s quarter-hour, in UTC."""
    utc = moment.astimezone(dt.UTC)
    return utc.replace(minute=utc.minute - utc.minute % 15, second=0, microsecond=0)

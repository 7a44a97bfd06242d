"""The fast path as the router calls it: on unless ``SHELFWISE_FAST_PATH`` is off, and never in the way.

A matcher that cannot run (its encoder missing, a pack without templates) declines, and the
router model decides as it always did.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import TYPE_CHECKING

from django.conf import settings

from assistant.matcher.core import Match, Request, match_request

if TYPE_CHECKING:
    from assistant.grounding import Catalog
    from assistant.lexicon import Lexicon
    from assistant.normalize import Normalized

logger = logging.getLogger(__name__)


class DecidedBy(StrEnum):
    MATCHER = "matcher"
    MODEL = "model"


def fast_path_enabled() -> bool:
    return bool(getattr(settings, "SHELFWISE_FAST_PATH", True))


def fast_path(*, business_type: str, words: Normalized, catalog: Catalog, lexicon: Lexicon,
              last_action: str | None = "", last_product: str | None = "", store_id: int | None = None,
              enabled: bool | None = None) -> Match | None:
    """The matcher's intent when the fast path is on and sure of it; None sends the request to the model.

    ``store_id``: whose taught phrases it reads (``taught.py``); ``enabled`` overrides
    ``SHELFWISE_FAST_PATH`` (for evaluation commands that compare both).
    """
    if not (fast_path_enabled() if enabled is None else enabled):
        return None
    from assistant.guard.encoders import GuardModelError
    from assistant.matcher.taught import taught_for

    request = Request(business_type=business_type, words=words, catalog=catalog, lexicon=lexicon,
                      last_action=last_action or "", last_product=last_product or "",
                      taught=taught_for(store_id) if store_id is not None else None)
    try:
        return match_request(request)
    except GuardModelError as exc:  # the model still answers; say why the fast path did not
        logger.warning("Fast path unavailable: %s", exc.message)
        return None

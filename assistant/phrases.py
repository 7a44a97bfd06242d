"""What code answers without a model: the launch phrase and a yes or no to the draft on offer."""

from __future__ import annotations

import re
from enum import StrEnum

_LAUNCH = re.compile(r"^(open|launch|start|hello|hi|hey)?\s*(shelf ?wise|the store|my store)\s*$|^$")
_YES = re.compile(
    r"^(yes|yeah|yep|yup|yes please|sure|confirm|confirmed|approve|approved|go ahead|do it|place it|"
    r"order it|place (the|that|this) order|yes,? (go ahead|place it|place the order|do it|confirm|order it|"
    r"please|go ahead and place it|place that order|that's right|correct))[ .!]*$"
)
_YES_LEAD = re.compile(r"^(yes|yeah|yep|yup|sure)\b[ ,]*(go ahead|please|place|order|confirm|do it|that)?[^?]*$")
_NO = re.compile(
    r"^(no|nope|nah|no thanks|no thank you|cancel|cancel it|cancel that|don'?t|do not|skip it|skip that|"
    r"not now|decline|forget it|never ?mind)\b[^?]*$"
)


class Reply(StrEnum):
    YES = "yes"
    NO = "no"
    OTHER = "other"


def is_launch(text: str) -> bool:
    """The launch phrase ("open Shelfwise"), with the wake word already removed."""
    return bool(_LAUNCH.match(text.strip().lower().rstrip(".!")))


def yes_or_no(text: str, *, names_products: bool = False) -> Reply:
    """An explicit yes or no, as a whole answer. "Yes, but only the dal" is not a yes: it narrows."""
    lowered = " ".join(text.lower().replace(",", ", ").split()).strip()
    if names_products or re.search(r"\b(only|just|instead|but|except)\b", lowered):
        return Reply.NO if _NO.match(lowered) and not names_products else Reply.OTHER
    if _YES.match(lowered) or _YES_LEAD.match(lowered):
        return Reply.YES
    if _NO.match(lowered):
        return Reply.NO
    return Reply.OTHER

"""What code answers without a model: the launch phrase and a yes or no to the draft on offer."""

from __future__ import annotations

import re
from enum import StrEnum

from assistant import sentences

_LAUNCH = re.compile(r"^(open|launch|start|hello|hi|hey)?\s*(shelf ?wise|the store|my store)\s*$|^$")
# A yes is an explicit yes as the whole answer: a yes word and/or a "go ahead"-style command, with
# nothing after it but politeness. Anything that defers, doubts or adds a condition is asked again.
_YES_WORD = r"(yes|yeah|yep|yup|yea|sure thing|sure|ok|okay|confirm|confirmed|approve|approved|absolutely|definitely|correct)"
_GO = (
    r"(go ahead|do it|place it|order it|send it|confirm it|approve it|go for it|"
    r"(go ahead and )?(place|send|confirm|approve) (it|the order|that order|this order|the draft)|"
    r"(go ahead and )?order (it|that|them)|that'?s right|that'?s fine|that is (right|fine|correct)|sounds good|"
    r"go ahead and (do it|place it|order it))"
)
_POLITE = r"(please|thanks|thank you|now|right away|mate|boss)"
_YES = re.compile(
    rf"^({_YES_WORD}( {_YES_WORD})*( {_POLITE})*( {_GO})?( {_POLITE})*|({_POLITE} )?{_GO}( {_POLITE})*)$"
)
_YES_LEAD = re.compile(rf"^{_YES_WORD}\b")
_HEDGES = re.compile(
    r"\b(maybe|perhaps|probably|possibly|i think|i guess|i suppose|not sure|unsure|hang on|hold on|wait|"
    r"let me|first|later|tomorrow|if|unless|depends|check|ask|hmm+|um+|uh+|actually|think about|not yet|"
    r"in a (bit|minute|sec|second)|one (sec|second|minute)|we'?ll see|kind of|sort of)\b"
)
_NO = re.compile(
    r"^(no|nope|nah|no thanks|no thank you|cancel|cancel it|cancel that|don'?t|do not|skip it|skip that|"
    r"not now|decline|forget it|never ?mind)\b[^?]*$"
)
_NARROWING = re.compile(r"\b(only|just|instead|but|except)\b")
# Long answers are not a clear yes, whatever they start with.
MAX_YES_WORDS = 8
ASK_AGAIN = sentences.ASK_AGAIN


class Reply(StrEnum):
    YES = "yes"
    NO = "no"
    #: Sounds like an answer to the offer but is hedged, conditional or long: ask again.
    UNSURE = "unsure"
    OTHER = "other"


def is_launch(text: str) -> bool:
    """The launch phrase ("open Shelfwise"), with the wake word already removed."""
    return bool(_LAUNCH.match(text.strip().lower().rstrip(".!")))


def _normalized(text: str) -> str:
    lowered = text.lower().replace("\u2019", "'")
    lowered = re.sub(r"[^a-z0-9' ]+", " ", lowered)
    return " ".join(lowered.split())


def yes_or_no(text: str, *, names_products: bool = False) -> Reply:
    """An explicit yes or no to the offer, as a whole answer.

    "Yes", "yes please", "go ahead and place it": YES. "No", "cancel that": NO. "Yeah hang on, let
    me ask my wife", "yes if it's under fifty", "maybe", a long answer: UNSURE (ask again). "Yes,
    but only the dal" names a product: OTHER, so the mode narrows the draft; so is a new request.
    """
    lowered = _normalized(text)
    if names_products:
        return Reply.OTHER
    hedged = bool(_HEDGES.search(lowered))
    if _NARROWING.search(lowered):
        if _NO.match(lowered):
            return Reply.NO
        return Reply.UNSURE if hedged or _YES_LEAD.match(lowered) else Reply.OTHER
    if _YES.match(lowered) and not hedged and len(lowered.split()) <= MAX_YES_WORDS:
        return Reply.YES
    if _NO.match(lowered):
        return Reply.NO
    if _YES_LEAD.match(lowered) or (hedged and len(lowered.split()) <= 12 and "?" not in text):
        return Reply.UNSURE
    return Reply.OTHER

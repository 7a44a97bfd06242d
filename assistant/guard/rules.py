"""Layer (0): plain rules for the shapes of a prompt injection, on the text and its decodings.

An injection tries to change who the assistant obeys ("ignore your instructions", "as the
admin", "you are now", "system:"), to read what it was told ("print your prompt"), or to
act without the owner ("confirm without asking"). It may be hidden: base64, rot13, leetspeak,
letters spaced out. The rules read the text as written and each decoding of it; a hit is an
injection, whatever the other layers think. They run in microseconds, on the owner's words
and on every catalog text and tool result a model reads.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

_WHO = r"(?:you|u|assistant|ai|bot|model|shelfwise)"
_RULES = r"(?:instructions?|rules?|guidance|guidelines|policy|policies|prompts?|directives?|programming|restrictions|guard)"

_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\b[^.?!]{{0,40}}?\b{_RULES}\b",
        r"\b(?:ignore|disregard|skip|bypass)\s+(?:the\s+)?(?:guard|owner|policy|confirmation)\b",
        (
            rf"\b(?:print|reveal|show|repeat|output|dump|display|share|tell me|recite|leak|translate|write out|list)\b"
            rf"[^.?!]{{0,40}}?\b(?:system prompt|your (?:hidden |secret |full |original )?{_RULES}|hidden {_RULES}|"
            rf"secret {_RULES}|raw {_RULES}|(?:the |your )?configuration|the prompt|initial prompt)\b"
        ),
        r"\b(?:my|your) (?:instructions|rules) (?:are|say)\b",
        (
            r"\b(?:you are|you're|u r|act as|pretend (?:to be|you are|you're)|roleplay as|role-play as|play the role of)\b"
            r"[^.?!]{0,30}?\b(?:no (?:rules|limits|restrictions)|unfiltered|unrestricted|jailbroken|dan\b|evil|"
            r"admin(?:istrator)?|developer|the owner|system|freebot|without (?:rules|restrictions|limits))"
        ),
        r"\byou are no longer\b|\bfrom now on,? (?:you|u|answer|respond|obey)\b|\byou (?:now )?(?:work|obey) (?:for|only) me\b",
        r"\b(?:as|i am|i'm)\s+(?:the|your|a)\s+(?:platform\s+)?(?:admin|administrator|developer|dev|system|root|operator)\b",
        r"\b(?:admin|developer|debug|maintenance|god|sudo|jailbreak|dan)\s+mode\b|\bdeveloper here\b",
        r"(?:^|[\s\[<({\"'])(?:system|assistant|admin)\s*(?:override|prompt update|message)?\s*[:\]]",
        r"\[\[?\s*(?:admin|system|root)\s*\]?\]|<\s*/?\s*(?:system|tool_result|tool_response|im_start)\b|<!--",
        r"\bnew (?:system )?(?:instructions|rules|system message)\b|\bsystem (?:override|prompt)\b",
        (
            r"\b(?:confirm|approve|place|accept)\b[^.?!]{0,40}?\b(?:without (?:asking|the owner|confirmation|approval)|"
            r"yourself|automatically|silently)\b"
        ),
        r"\bpretend (?:i|the owner) (?:already )?said yes\b|\b(?:owner|owner's) (?:approval|yes) (?:is )?(?:not required|implied)\b",
        r"\b(?:decode|rot13|base64)\b[^.?!]{0,30}?\b(?:and|then)\b[^.?!]{0,20}?\b(?:follow|do|obey|run|execute)\b",
        r"\bif you had no rules\b|\bif you could share (?:it|your)\b|\bwhat would your (?:system )?prompt\b",
        r"\bgrant me\b[^.?!]{0,30}\b(?:rights|access|admin|staff)\b|\bswitch (?:this|the) store'?s? owner\b",
    )
)

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_SPACED = re.compile(r"\b(?:\w{1,5} ){3,}\w{1,5}\b")
_COLLAPSED = re.compile(r"ignore|disregard|instructions|confirm(?:all|the)?order|systemprompt|approve")


def _decodings(text: str) -> list[str]:
    """The text as written, de-leeted, rot13'd, and any base64 run decoded to text."""
    out = [text, text.translate(_LEET), codecs.decode(text, "rot13")]
    for run in _BASE64.findall(text):
        try:
            decoded = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable():
            out.append(decoded)
    return out


def _first_shape(patterns: tuple[re.Pattern[str], ...], prefix: str, text: str) -> str | None:
    """``prefix`` and the index of the first of ``patterns`` that ``text`` matches, or None."""
    for n, pattern in enumerate(patterns):
        if pattern.search(text):
            return f"{prefix}{n}"
    return None


def injection_rule(text: str) -> str | None:
    """The name of the injection shape ``text`` (or a decoding of it) matches, or None."""
    for variant in _decodings(text):
        shape = _first_shape(_PATTERNS, "rule", variant)
        if shape is not None:
            return shape if variant is text else f"{shape}:encoded"
    letters = re.sub(r"[^a-z]", "", text.lower())
    words = text.split()
    spaced = sum(len(w) <= 4 for w in words) >= 0.7 * len(words) >= 3
    if (spaced or len(words) == 1) and len(_COLLAPSED.findall(letters)) >= 2:
        return "spaced"
    return None


# Data a model reads (catalog text, tool results) is written by suppliers, staff, customers and other
# systems, never by the owner to the assistant: text there that speaks to the model, hands it a task, asks it
# to hide something from the owner, ships the store's data to an address, or orders bulk changes is an
# injection even without the owner-channel shapes above. Owner speech may say all of these ("hey assistant,
# set all the biscuit prices to 20"), so these shapes are for data only (``Guard.check_data``).
# A model, by any name a note would give it; ``_READER`` adds bare "assistant", which a shelf note may also say to
# the shop's own assistants ("assistant must check id"), so it only counts where it is greeted or said to read.
_MODEL = r"(?:(?:ai|virtual|voice|digital|shelfwise) assistant|ai|a\.i\.|chatbot|bot|llm|language model|gpt|shelfwise)s?"
_READER = rf"(?:{_MODEL}|assistants?)"
_DATA_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b(?:dear|attention|attn|hey|hi|hello|note (?:to|for)|message (?:to|for)|instructions? (?:to|for)|p\.?s\.?)"
        rf"\s*:?\s+(?:the\s+|any\s+|all\s+)?{_READER}\b",
        rf"\b{_READER}\s+(?:reading|processing|parsing|seeing|summari[sz]ing|handling)\s+(?:this|these|the following)\b",
        rf"\bif you(?:'re| are) an? {_READER}\b|\bwhen you (?:read|see|process|parse) this\b",
        rf"\b(?:the\s+)?{_MODEL}\s+(?:must|should|shall|needs? to|has to|is (?:required|instructed|authori[sz]ed|allowed|"
        rf"expected) to|may now|will now)\b",
        r"\byour (?:new |next |real |actual |only )?(?:task|job|goal|instructions?|mission|orders?) (?:is|are|now)\b"
        r"|\bnext step for (?:the |you\b)",
        r"\b(?:do not|don't|never) (?:tell|inform|show|mention|alert|ask|warn)\b[^.?!]{0,20}?\b(?:the )?(?:owner|user|"
        r"shopkeeper|manager)\b|\bwithout (?:telling|informing|asking|notifying|alerting) (?:the )?(?:owner|user)\b",
        r"\b(?:send|e-?mail|forward|post|upload|export|share|leak|transfer|copy)\b[^.?!@]{0,40}?\b(?:all|every|whole|full|"
        r"entire|customers?|sales|reports?|database|data|lists?|numbers|passwords?|tokens?|keys?|records?|history)\b"
        r"[^.?!@]{0,40}?\b(?:to|at)\s+(?:\S+@\S+\.\w+|https?://)",
        r"\b(?:set|change|make|update)\s+(?:all|every|each)\b[^.?!]{0,30}?\b(?:prices?|stock|counts?|quantit(?:y|ies))\b"
        r"[^.?!]{0,20}?\b(?:to|as)\b",
        r"\b(?:delete|wipe|erase|approve|confirm|refund|cancel)\s+(?:all|every)\s+(?:the\s+)?(?:products|orders|drafts|"
        r"records|data|customers|invoices|payments|pending|items|stock)\b",
        r"\bmark (?:this|the|all|every)\b[^.?!]{0,20}?\b(?:invoices?|bills?|orders?)\b[^.?!]{0,10}?\bpaid\b",
        r"\b(?:tool|function) (?:call|result|output|response)\s*:|\b(?:override|admin|manager'?s?) (?:code|password|pin) is\b",
    )
)


def data_injection_rule(text: str) -> str | None:
    """The name of the data-only injection shape catalog text or a tool result matches, or None."""
    return _first_shape(_DATA_PATTERNS, "data", text)


# Self-harm: asking how to die, or how much of something kills. Checked on the owner's words (not
# on data) before the classifier, because the classifier's score leaves some of these in its safe
# range ("how much paracetamol is a lethal dose": 0.63) and a shop's own words never take these
# shapes ("the suicide prevention leaflets" does not: bare "suicide" is not one of them).
_HARM_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(?:lethal|fatal|deadly|toxic)\s+(?:dose|dosage|amount|quantity)\b",
        r"\boverdos(?:e|ing)\s+on\b|\bhow (?:many|much)\b[^.?!]{0,50}\boverdose\b",
        r"\bhow (?:many|much)\b[^.?!]{0,50}\bto (?:die|kill (?:myself|me|yourself|himself|herself|someone|a person))\b",
        # intent, not an accident: "how to hurt myself", never "I cut myself on the cleaver"
        r"\b(?:want|wanna|going|gonna|how|way|ways|plan|planning|trying|about) to (?:kill|hurt|harm|cut|poison|hang) myself\b",
        r"\bend my life\b|\b(?:want|wanna|going|gonna) to end it all\b|\bi (?:want|wanna) to die\b",
        r"\bcommit(?:ting)? suicide\b|\bsuicide (?:method|note|plan)s?\b|\b(?:i'?m|i am|i feel|feeling) suicidal\b",
    )
)


def self_harm_rule(text: str) -> str | None:
    """The name of the self-harm shape the owner's words match, or None."""
    return _first_shape(_HARM_PATTERNS, "self_harm", text)

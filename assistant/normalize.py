"""Normalisation: the owner's transcribed words, cleaned up before any guard or model sees them.

Order matters and is fixed: fillers, then wake words, then soft fillers, then number words, then
the lexicon's corrections (two passes, so "tour dahl" becomes "tour dal" and then "toor dal").
Everything is whole-word and case-insensitive, works on a token list (no regex per rule), and
records what it changed in ``fixes`` for the audit.

Choices that keep false positives low:
- Wake words are removed only at the start or the end ("how does shelfwise work" keeps its word).
- "like", "you know", "i mean" are removed only where they cannot carry meaning: at the start,
  between commas, at the end, or "like" before a number ("we have like fifteen" -> "we have 15";
  "i'd like 15 bags" and "what would you like" keep it).
- Corrections whose heard form is also an English word ("doll", "dull", "auto", "basin", "gud")
  fire only in a product position: after a dal type ("chana doll"), or after "the"/"any"/"have"/a
  number... and before a unit, "stock", "price", a question word, punctuation or the end. So
  "where is the doll?" and "do we have auto" are fixed; "sales are dull today", "turn on auto
  reorder" and "auto-renew" (one hyphenated word) are not.
- Spoken numbers are read by ``assistant.numbers`` (the reader the reply checks and the lab use
  too): "one" after "this", "that", "which", "the", "another"... is a word, not a number ("one of
  each" is a count); "a hundred and five" is 105.
- ``numbers`` holds every whole number said, in order (a price like "6.99" is not a count and is
  left out); the text keeps them as digits so the sentence still reads ("we actually have 15 bags
  of atta").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant import numbers
from assistant.lexicon import Lexicon

_TOKEN = re.compile(r"\d+(?:\.\d+)?(?:-[a-z0-9]+)*|[a-z0-9]+(?:['-][a-z0-9]+)*|[.,!?;:&$%]")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u2013": "-", "\u2014": ", "})
PUNCT = frozenset(".,!?;:")
_STRONG = frozenset(".!?")
_LEADING_INT = re.compile(r"^(\d+)(?![.\d])")
# Before these, a soft filler is a verb or part of a question ("i'd like", "do you know").
_SOFT_KEEP_AFTER = frozenset(
    {"do", "did", "does", "don't", "didn't", "doesn't", "would", "wouldn't", "i", "we", "you", "they",
     "i'd", "we'd", "you'd", "they'd", "if", "what", "who", "how"}
)


@dataclass(frozen=True)
class Normalized:
    """The owner's words after normalisation.

    Attributes:
        original: the text as it arrived.
        text: lower case, wake words and fillers removed, corrections applied, numbers as digits.
        numbers: every whole number the owner said, in order.
        fixes: what was changed, for the audit ("mishearing: doll -> dal", "number: fifteen -> 15").
    """

    original: str
    text: str
    numbers: tuple[int, ...] = ()
    fixes: tuple[str, ...] = ()


def tokens_of(text: str) -> list[str]:
    """Lower-case word and punctuation tokens; hyphenated words ("twenty-eight", "auto-renew") stay whole."""
    return _TOKEN.findall(text.lower().translate(_QUOTES))


def normalize(text: str, lexicon: Lexicon) -> Normalized:
    """Clean up one transcribed request with the business type's lexicon."""
    fixes: list[str] = []
    toks = tokens_of(text)
    toks = [t for t in toks if not _drop_filler(t, lexicon, fixes)]
    toks = _strip_wake_words(toks, lexicon, fixes)
    toks = _strip_soft_fillers(toks, lexicon, fixes)
    toks = _number_words(toks, fixes)
    for _pass in range(2):
        toks, changed = _correct(toks, lexicon, fixes)
        if not changed:
            break
    return Normalized(original=text, text=_join(toks), numbers=tuple(_ints(toks)), fixes=tuple(fixes))


def _drop_filler(tok: str, lexicon: Lexicon, fixes: list[str]) -> bool:
    if tok in lexicon.fillers:
        fixes.append(f"filler: {tok}")
        return True
    return False


def _first_word(toks: list[str]) -> int:
    i = 0
    while i < len(toks) and toks[i] in PUNCT:
        i += 1
    return i


def _strip_wake_words(toks: list[str], lexicon: Lexicon, fixes: list[str]) -> list[str]:
    """Remove wake words at the start (repeatedly: "alexa, hey shelfwise") and at the end."""
    changed = True
    while changed:
        changed = False
        start = _first_word(toks)
        for phrase in lexicon.wake_words:
            if tuple(toks[start : start + len(phrase)]) == phrase:
                fixes.append(f"wake word: {' '.join(phrase)}")
                toks = toks[start + len(phrase) :]
                changed = True
                break
    end = len(toks)
    while end > 0 and toks[end - 1] in PUNCT:
        end -= 1
    for phrase in lexicon.wake_words:
        begin = end - len(phrase)
        if begin > 0 and tuple(toks[begin:end]) == phrase:
            fixes.append(f"wake word: {' '.join(phrase)}")
            toks = toks[:begin] + toks[end:]
            break
    return toks


def _strip_soft_fillers(toks: list[str], lexicon: Lexicon, fixes: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(toks):
        for phrase in lexicon.soft_fillers:
            n = len(phrase)
            if tuple(toks[i : i + n]) != phrase:
                continue
            prev = next((t for t in reversed(out)), None)
            nxt = toks[i + n] if i + n < len(toks) else None
            if _is_soft_filler(phrase, prev, nxt):
                fixes.append(f"filler: {' '.join(phrase)}")
                i += n
                break
        else:
            out.append(toks[i])
            i += 1
    return out


def _is_soft_filler(phrase: tuple[str, ...], prev: str | None, nxt: str | None) -> bool:
    """Whether a soft filler ("like", "you know") is only filling here, not carrying meaning."""
    at_start = prev is None or prev in PUNCT
    at_end = nxt is None or nxt in PUNCT
    if at_start and at_end:
        return True
    if prev in _SOFT_KEEP_AFTER:
        return False
    if nxt is None:
        return True
    if at_start:
        # "you know where the ghee is" is a question; "like tamarind, ..." and "i mean the toor dal" are filler.
        return phrase != ("you", "know")
    # "we have like fifteen": "like" before a number is an approximation filler.
    return phrase == ("like",) and (nxt.isdigit() or numbers.is_number_word(nxt))


def _number_words(toks: list[str], fixes: list[str]) -> list[str]:
    """Spoken numbers as digits, read by ``assistant.numbers`` (the one reader of numbers)."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if "-" in tok and numbers.word_value(tok) is None:
            # "twelve-piece" -> "12-piece": only the number part of a hyphenated word changes.
            head, _, rest = tok.partition("-")
            value = numbers.word_value(head)
            if value is not None:
                fixes.append(f"number: {head} -> {value}")
                out.append(f"{value}-{rest}")
            else:
                out.append(tok)
            i += 1
            continue
        run = None if numbers.is_pronoun_one(toks, i, before_of=False) else numbers.spoken_run(toks, i)
        if run is None:
            out.append(tok)
            i += 1
            continue
        value, end = run
        fixes.append(f"number: {' '.join(toks[i:end])} -> {value}")
        out.append(str(value))
        i = end
    return out


def _in_product_position(prev: str | None, nxt: str | None, lexicon: Lexicon) -> bool:
    """Whether a heard word that is also English ("doll", "auto") sits where a product would be said."""
    if prev in lexicon.qualifiers:
        return True
    prev_ok = prev is None or prev in PUNCT or prev in lexicon.context_before or prev.isdigit()
    next_ok = nxt is None or nxt in PUNCT or nxt in lexicon.context_after or nxt.isdigit()
    return prev_ok and next_ok


def _same_word(a: str, b: str) -> bool:
    return a == b or a.rstrip("s") == b.rstrip("s")


def _correct(toks: list[str], lexicon: Lexicon, fixes: list[str]) -> tuple[list[str], bool]:
    """One left-to-right, longest-first pass of the lexicon's mishearings and local names."""
    out: list[str] = []
    changed = False
    i, n = 0, len(toks)
    while i < n:
        for size in range(min(lexicon.longest_correction, n - i), 0, -1):
            fix = lexicon.corrections.get(tuple(toks[i : i + size]))
            if fix is None:
                continue
            prev = out[-1] if out else None
            nxt = toks[i + size] if i + size < n else None
            if fix.product_position and not _in_product_position(prev, nxt, lexicon):
                continue
            target = fix.target.split()
            out.extend(target)
            fixes.append(f"{fix.kind}: {' '.join(fix.source)} -> {fix.target}")
            i += size
            # "dhania powder" -> "coriander powder", not "coriander powder powder".
            if nxt is not None and _same_word(nxt, target[-1]):
                i += 1
            changed = True
            break
        else:
            out.append(toks[i])
            i += 1
    return out, changed


def _join(toks: list[str]) -> str:
    """Tokens back to a sentence: punctuation attached, no leading or doubled punctuation."""
    parts: list[str] = []
    for tok in toks:
        if tok in PUNCT:
            if not parts:
                continue
            if parts[-1] in PUNCT:
                if tok in _STRONG:
                    parts[-1] = tok
                continue
        parts.append(tok)
    while parts and parts[-1] in {",", ";", ":"}:
        parts.pop()
    text = ""
    for k, tok in enumerate(parts):
        if k and tok not in PUNCT and tok != "%" and parts[k - 1] != "$":
            text += " "
        text += tok
    return text


def _ints(toks: list[str]) -> list[int]:
    found = []
    for tok in toks:
        match = _LEADING_INT.match(tok)
        if match:
            found.append(int(match.group(1)))
    return found

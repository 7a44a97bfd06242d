"""Which of Whisper's beam hypotheses the store's catalog makes sense of, and how sure that is.

Whisper mishears the words a shop lives on ("sarson ka tel" → "sarsen cocktail", "toor dal" →
"tortell", "otta" → "audit"), and a misheard product must not become a confident wrong answer.
Each hypothesis is grounded in the catalog as typed text is (``assistant.grounding``); words it
leaves unknown are compared by sound with the catalog's names and aliases (Metaphone codes and
letters, jellyfish and rapidfuzz). The chosen hypothesis has the best acoustic score plus a bonus
for naming a product; a sound-alike at or above ``STRONG`` replaces the unknown words, one between
``WEAK`` and ``STRONG`` is a doubt: when the turn then finds no product in the words, the pipeline
asks "Did you mean atta?" instead of answering "we don't carry audit". A number that the top
hypotheses disagree on ("nineteen" / "ninety") is asked about before anything runs, and so is a
count change to a number Whisper confuses with its teen/ty partner ("change the urad daal stock to
fourteen" heard "... to 40" in every hypothesis): "Did you say 40, not 14?", since a wrong count
written to the books is worse than one question.
Thresholds and weights were set on the spoken set's development part (README, "Speech").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import jellyfish
from rapidfuzz import fuzz

from assistant.grounding import Catalog, ground
from assistant.lexicon import Lexicon
from assistant.normalize import Normalized, normalize
from assistant.numbers import teen_ty_partner
from assistant.policy import OwnerWords
from speech import by_ear

STRONG = 0.75  # a sound-alike this close is read as the product
WEAK = 0.55  # this close is asked about; below, the words stay what was heard
PRODUCT_BONUS = 1.0  # nats per token a product-naming hypothesis may trail by and still win
NUMBER_GAP = 0.35  # a hypothesis this close with another number makes the number doubtful
MIN_LETTERS = 3
MAX_SPAN = 3
# Words that are never part of a product's name as said (function words and store talk).
_PLAIN = frozenset("""
a an the of on in at to for and or is are was were be do does did have has had we i you it its this that
there here where what whats how many much any some more left got get give me us our my just actually
please um uh so like now now's can could would should will set change make fix update count order reorder
restock stock price cost bags bag packs pack bottles bottle jars jar boxes box blocks block tubs tub cans
can packets packet kept keep put find shelf aisle carry sell sold today sales store doing overall
weve ive im ill dont doesnt didnt isnt arent theres wheres hows thats lets youre theyre
""".split())
_QUESTION = re.compile(r"^(how|what|why|when|who|which|is|are|does|do|did|can|could|have|has)\b")


@dataclass(frozen=True)
class Choice:
    """The hypothesis chosen, as the pipeline will read it."""

    text: str
    corrections: list[dict[str, Any]] = field(default_factory=list)
    doubt: dict[str, str] | None = None


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalpha())


def _sound(letters: str) -> str:
    return jellyfish.metaphone(letters) if letters else ""


def similarity(heard: str, term: str) -> float:
    """0..1: how alike two phrases sound (Metaphone edit distance, then letters), spaces ignored."""
    a, b = _letters(heard), _letters(term)
    return _alike(a, _sound(a), b, _sound(b))


def _alike(a: str, sa: str, b: str, sb: str) -> float:
    if not a or not b:
        return 0.0
    sound = 1 - jellyfish.levenshtein_distance(sa, sb) / max(len(sa), len(sb), 1)
    return 0.6 * sound + 0.4 * fuzz.ratio(a, b) / 100


class Hearing:
    """Re-ranks and corrects hypotheses against one store's catalog and business-type lexicon."""

    def __init__(self, *, catalog: Catalog, lexicon: Lexicon) -> None:
        self.catalog = catalog
        self.lexicon = lexicon
        self.terms: list[tuple[str, str]] = []  # (term as said, product name)
        for entry in catalog.entries:
            for term in (entry.name, *entry.aliases):
                if len(_letters(term)) >= MIN_LETTERS:
                    self.terms.append((term.lower(), entry.name))
        self._alike_cache: dict[tuple[str, int, int], list[tuple[str, str, float]]] = {}

    @cached_property
    def _keyed(self) -> list[tuple[str, str, str, str]]:
        """Every spoken form with its letters and Metaphone code; built on the ear's first question
        (a Hearing is built per utterance, and with the ear off nothing asks)."""
        return [(term, product, _letters(term), _sound(_letters(term)))
                for term, product in (*self.terms, *self._spoken_forms())]

    def _spoken_forms(self) -> list[tuple[str, str]]:
        """The lexicon's local names and known mishearings of one product each ("otta" → Atta): the
        ear may hear them where spelling would not reach the catalog name."""
        forms = []
        known = {term for term, _product in self.terms}
        for source, correction in self.lexicon.corrections.items():
            said = " ".join(source)
            if said in known or len(_letters(said)) < MIN_LETTERS:
                continue
            found = ground(correction.target, catalog=self.catalog, lexicon=self.lexicon)
            if len(found.products) == 1 and not found.ambiguous:
                forms.append((said, found.products[0].name))
        return forms

    def sounds_like(self, words: str) -> tuple[str, str, float] | None:
        """The catalog term that ``words`` sound most like: ``(term, product, score)``."""
        best: tuple[str, str, float] | None = None
        for term, product in self.terms:
            score = similarity(words, term)
            if best is None or score > best[2]:
                best = (term, product, score)
        return best

    plain = _PLAIN
    longest = MAX_SPAN

    def sounds_alike(self, words: str, products: int, forms: int) -> list[tuple[str, str, float]]:
        """The ``products`` products whose names ``words`` sound most like, each with its ``forms``
        closest spoken forms (name, aliases, local names): ``(term, product, score)``, closest first."""
        key = (words, products, forms)
        if key not in self._alike_cache:
            if len(self._alike_cache) > 4096:
                self._alike_cache.clear()
            letters = _letters(words)
            sound = _sound(letters)
            by_product: dict[str, list[tuple[str, str, float]]] = {}
            for term, product, term_letters, term_sound in self._keyed:
                by_product.setdefault(product, []).append((term, product, _alike(letters, sound, term_letters, term_sound)))
            ranked = sorted((sorted(rows, key=lambda row: -row[2]) for rows in by_product.values()), key=lambda rows: -rows[0][2])
            self._alike_cache[key] = [row for rows in ranked[:products] for row in rows[:forms]]
        return self._alike_cache[key]

    def _spans(self, normalized: str, unknown: str | None) -> list[str]:
        """Runs of words that could be a misheard product: grounding's unknown words first, then
        every run of up to ``MAX_SPAN`` words that are neither plain words nor numbers."""
        words = [w.strip(".,!?;:'") for w in normalized.split()]
        spans = [unknown] if unknown else []
        for i in range(len(words)):
            for j in range(i + 1, min(i + MAX_SPAN, len(words)) + 1):
                run = words[i:j]
                if any(not w or w in _PLAIN or w.isdigit() for w in run):
                    break
                spans.append(" ".join(run))
        return [s for s in spans if len(_letters(s)) >= MIN_LETTERS]

    def _read(self, text: str) -> tuple[str, float, list[dict[str, Any]], dict[str, str] | None]:
        """``text`` as the catalog reads it: corrected text, product quality 0..1, corrections, doubt."""
        grounding = ground(text, catalog=self.catalog, lexicon=self.lexicon)
        if grounding.products:
            return text, 1.0, [], None
        normalized = normalize(text, self.lexicon).text
        best: tuple[str, str, str, float] | None = None
        for span in self._spans(normalized, grounding.unknown):
            match = self.sounds_like(span)
            # Only the words grounding found unknown may be asked about; other runs must be strong.
            floor = WEAK if span == grounding.unknown else STRONG
            if match is not None and match[2] >= floor and (best is None or match[2] > best[3]):
                best = (span, *match)
        if best is None:
            return text, 0.0, [], None
        unknown, term, product, score = best
        corrected = _replace(normalized, unknown, term)
        correction = {"heard": unknown, "product": product, "score": round(score, 3)}
        if score >= STRONG:
            return corrected, score, [correction], None
        question = f"Did you mean {product.lower()}?"
        return text, score, [correction], {"kind": "product", "question": question, "text": corrected}

    def choose(self, hypotheses: list[Any], ear=None) -> Choice:
        """The best of ``hypotheses`` (``text``, ``logprob``; best first) for this store; with an
        ``ear`` (``speech.ear.Ear``) the audio settles its product and number (``speech.by_ear``)."""
        scored = []
        for rank, hypothesis in enumerate(hypotheses):
            text, quality, corrections, doubt = self._read(hypothesis.text)
            total = hypothesis.logprob + PRODUCT_BONUS * quality
            scored.append((total, -rank, text, corrections, doubt, hypothesis))
        total, _rank, text, corrections, doubt, chosen = max(scored, key=lambda row: (row[0], row[1]))
        if ear is not None:
            heard = by_ear.decide_product(self, chosen.text, ear)
            text, corrections, doubt = heard.text, heard.corrections, heard.doubt
            if doubt is None:
                text = by_ear.decide_order(text, ear)
        if doubt is None:
            words = normalize(text, self.lexicon)  # read once for both number checks
            rival = self._rival_number(chosen, words, hypotheses)
            if rival is not None:
                doubt = {"kind": "number", "question": f"Did you say {words.numbers[0]}?", "text": text}
            else:
                doubt = self._count_doubt(text, words)
            if doubt is not None and ear is not None and self._settled(text, words, rival, ear):
                doubt = None
        return Choice(text=text, corrections=corrections, doubt=doubt)

    def _settled(self, text: str, words: Normalized, rival: int | None, ear) -> bool:
        """Whether the audio clearly prefers the number heard over each it could be: the number a close
        hypothesis heard, and its teen/ty partner. A number with neither stays asked."""
        said = words.numbers[0]
        others = {n for n in (rival, teen_ty_partner(said)) if n is not None and n != said}
        return bool(others) and all(by_ear.number_settled(text, said, other, ear) for other in others)

    def _count_doubt(self, text: str, words: Normalized) -> dict[str, str] | None:
        """A question when the words change a count to a number with a teen/ty partner."""
        if len(words.numbers) != 1 or not OwnerWords(text=words.text, numbers=words.numbers).asks_count_change:
            return None
        if words.text.rstrip().endswith("?") or _QUESTION.match(words.text):  # "do we have 40 bags?" asks
            return None
        said = words.numbers[0]
        other = teen_ty_partner(said)
        if other is None:
            return None
        return {"kind": "number", "question": f"Did you say {said}, not {other}?", "text": text}

    def _rival_number(self, chosen: Any, words: Normalized, hypotheses: list[Any]) -> int | None:
        """The number a close hypothesis heard instead of the chosen one's ("nineteen" or "ninety"), if any."""
        mine = words.numbers
        if len(mine) != 1:
            return None
        for other in hypotheses:
            if other is chosen or chosen.logprob - other.logprob > NUMBER_GAP:
                continue
            theirs = normalize(other.text, self.lexicon).numbers
            if len(theirs) == 1 and theirs != mine:
                return theirs[0]
        return None


def _replace(normalized: str, unknown: str, term: str) -> str:
    """``normalized`` with the words ``unknown`` replaced by ``term`` (whole words, first time)."""
    words, target = normalized.split(), unknown.lower().split()
    for i in range(len(words) - len(target) + 1):
        run = words[i : i + len(target)]
        if [w.strip(".,!?;:'") for w in run] == target:
            tail = run[-1][len(run[-1].rstrip(".,!?;:")) :]  # keep the sentence's own punctuation
            return " ".join([*words[:i], term + tail, *words[i + len(target) :]])
    return normalized

"""Product grounding: which of the store's products the owner's own words name.

The router model only names product words; code decides which catalog product they mean, and a
product counts only if the owner said it (by name, alias, a distinctive part of a name, or a close
fuzzy/phonetic match) or a pronoun points back to the last product. The model's item words (the
``hint``) may choose among products the owner's words already name, and may mark the exact words of
a product the store does not carry; a hint naming a catalog product the owner never said is
ignored, so "where is pizza?" can never become rice.

Rules, in order (all whole-word, on the normalised text):
1. Spans of the owner's words, longest first: a full product name or alias; a group word from the
   lexicon ("lentils", "spices", "freezer", bare "dal"); a part of a name that only one product has
   ("basmati", "samosa", "methi"); a part several products share ("mustard", "masala"). Units and
   store talk are never product words, so "how many grams in a pound" grounds nothing, and "gram"
   names Besan only inside "gram flour".
2. Uncovered content words get one fuzzy try (the ledger's spelling rule, ``ledger.matching.closest``:
   ratio >= 85, here on 5+ letters) or a phonetic
   one (jellyfish metaphone equal and ratio >= 65: "panir", "haldee", "namkin").
3. A part-of-name or group word right after a word the store does not know is a different product:
   "oat milk", "olive oil", "lime pickle", "cheddar cheese" are reported unknown, not coconut milk,
   the oils group, mango pickle or paneer.
4. A generic word alone ("milk", "seeds", "cheese") is no product by itself. If several products
   share it, they are ``ambiguous`` ("seeds" -> cumin or mustard seeds); if only one does, the owner
   most likely means the plain thing, so it is ``unknown`` and the one product is offered as
   ``ambiguous`` ("milk" -> not carried; coconut milk is the nearest).
5. ``group`` is reported only when no product is grounded ("frozen parathas, any in the freezer"
   is a product question). A shared part that a unit word settles is resolved ("coconut, per can"
   -> coconut milk).
6. A pronoun ("it", "that", "the same"; not "that saffron") refers to ``last_product`` only when the
   words ground nothing else.
7. Anything left that looks like product words is ``unknown``: the longest run of words that are not
   store talk, units, numbers or pronouns ("peanut butter", "basil leaves").
8. A part several products share names the one whose name it mostly is: at least half of that name
   and at least twice the share of any other name. In a catalog with "Basmati rice" beside
   "Tata Sella basmati 1 kg" and "Daawat Brown basmati 200 g", "basmati" is the plain Basmati rice;
   "mustard" (Mustard oil, Mustard seeds: half of each) stays ambiguous.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jellyfish
from rapidfuzz import fuzz

from assistant.grounding_index import FUZZY_MIN_LETTERS, CatalogEntry
from assistant.grounding_index import Index as _Index
from assistant.grounding_index import index_build as _build_index
from assistant.lexicon import Lexicon
from assistant.normalize import normalize
from ledger.matching import BOUNDARY as _BOUNDARY
from ledger.matching import closest, singular, spelled_alike
from ledger.matching import words as _words

MAX_SPAN = 4
PHONETIC_CUTOFF = 65.0
# The ledger matcher's score a product needs to enter a large catalog's shortlist (looser than a
# lookup's: the model still chooses among the shortlist, and a word may be half a name).
SHORTLIST_CUTOFF = 75.0


@dataclass(frozen=True)
class ProductRef:
    """A catalog product the owner's words name; ``words`` are the (normalised) words that matched."""

    id: Any
    name: str
    score: float
    words: str


@dataclass(frozen=True)
class Grounding:
    """What the owner's words name in the catalog.

    Attributes:
        products: the products named, best first.
        group: a catalog category when the words name a broad group and no product ("do we have
            lentils", "anything in the freezer", bare "dal").
        unknown: product words the store does not carry ("pizza", "oat milk"); never replaced by
            another product.
        via_pronoun: the product came from ``last_product`` through a pronoun.
        ambiguous: products the words could mean but do not settle ("rice", "mustard", "masala").
        hint_used: the model's item words chose or marked something (they were grounded in the
            owner's words); False when no hint was given or it was ignored.
    """

    products: tuple[ProductRef, ...] = ()
    group: str | None = None
    unknown: str | None = None
    via_pronoun: bool = False
    ambiguous: tuple[ProductRef, ...] = ()
    hint_used: bool = False

    @property
    def product(self) -> ProductRef | None:
        """The best product, if any."""
        return self.products[0] if self.products else None


class Catalog:
    """A store's products, indexed for grounding; build once per store or turn."""

    def __init__(self, entries: Iterable[CatalogEntry | Mapping[str, Any]], *, lexicon: Lexicon | None = None) -> None:
        self.entries: tuple[CatalogEntry, ...] = tuple(
            e if isinstance(e, CatalogEntry) else _entry_from_mapping(e) for e in entries
        )
        self.lexicon = lexicon  # the default for ``shortlist``
        self._indexes: dict[Lexicon | None, _Index] = {}
        self._by_name: dict[str, CatalogEntry] = {}
        for entry in self.entries:
            for name in (entry.name, *entry.aliases):
                self._by_name.setdefault(name.strip().lower(), entry)

    @functools.cached_property
    def guard_names(self) -> frozenset[str]:
        """Every product name and alias as the guard's ``names_mask`` reads them (built once per catalog)."""
        from assistant.guard.vocabulary import name_key

        return frozenset(key for key in (name_key(name) for name in self._by_name) if key)

    @classmethod
    def from_products(cls, products: Iterable[Any], *, lexicon: Lexicon | None = None) -> Catalog:
        """A catalog from Product rows (or any objects with id/pk, name, aliases, category, unit)."""
        entries = (
            CatalogEntry(
                id=p.pk if getattr(p, "pk", None) is not None else getattr(p, "id", None),
                name=p.name,
                aliases=tuple(getattr(p, "aliases", None) or ()),
                category=getattr(p, "category", "") or "",
                unit=getattr(p, "unit", "") or "",
            )
            for p in products
        )
        return cls(entries, lexicon=lexicon)

    def __len__(self) -> int:
        return len(self.entries)

    def entry_named(self, name: str) -> CatalogEntry | None:
        """The product with this exact name or alias (any case), or None."""
        return self._by_name.get((name or "").strip().lower())

    def _index(self, lexicon: Lexicon | None) -> _Index:
        """The lookups for this lexicon, built on first use (a race builds it twice, harmlessly)."""
        idx = self._indexes.get(lexicon)
        if idx is None:
            idx = self._indexes[lexicon] = _build_index(self.entries, lexicon)
        return idx

    def shortlist(self, text: str, limit: int = 40, *, lexicon: Lexicon | None = None) -> list[CatalogEntry]:
        """The products most likely meant by ``text``, at most ``limit``, for a prompt that must not grow with the catalog.

        A catalog that fits is returned whole, in catalog order, so the prompt stays the same from
        turn to turn (and a server's prompt cache keeps working). A larger one is ranked: products
        the words ground first, then the named group's products, then fuzzy matches of the words
        against names and aliases; products nothing points at are left out. ``lexicon`` defaults
        to the catalog's own; without one only the fuzzy ranking runs.
        """
        if len(self.entries) <= limit:
            return list(self.entries)
        lexicon = lexicon or self.lexicon
        idx = self._index(lexicon)
        score: dict[int, float] = {}
        if lexicon is not None:
            grounding = ground(text, catalog=self, lexicon=lexicon)
            position = {entry.id: e for e, entry in enumerate(self.entries)}
            for ref in grounding.products + grounding.ambiguous:
                score[position[ref.id]] = 300 + ref.score
            if grounding.group:
                for e, entry in enumerate(self.entries):
                    if entry.category == grounding.group:
                        score[e] = max(score.get(e, 0), 200)
            text = normalize(text, lexicon).text
        # The words that could name a product, ranked by the ledger's matcher.
        stop = idx.stop | idx.units
        query = " ".join(w for w in _words(text) if w not in _BOUNDARY and w not in stop and not w.isdigit())
        if len(query) >= 3:
            for match in idx.matcher.rank(query, limit=limit * 2, cutoff=SHORTLIST_CUTOFF):
                score[match.id] = max(score.get(match.id, 0), match.score)
        ranked = sorted(score, key=lambda e: (-score[e], e))[:limit]
        return [self.entries[e] for e in ranked]


def _entry_from_mapping(row: Mapping[str, Any]) -> CatalogEntry:
    return CatalogEntry(
        id=row.get("id", row.get("name")),
        name=row["name"],
        aliases=tuple(row.get("aliases") or ()),
        category=row.get("category", "") or "",
        unit=row.get("unit", "") or "",
    )


@dataclass
class _Span:
    start: int
    end: int
    entries: frozenset[int]
    kind: str  # full, part, group, fuzzy
    score: float
    group: str | None = None

    @property
    def rank(self) -> tuple[int, int, float]:
        # Longer spans first; then a whole name, then a group word the lexicon lists ("lentils" is
        # the group even though "red lentils" names Masoor dal), then a part of a name, then fuzzy.
        order = {"full": 4, "group": 3, "part": 2 if len(self.entries) == 1 else 1, "fuzzy": 0}[self.kind]
        return (self.end - self.start, order, self.score)


def _exact_spans(toks: list[str], sing: list[str], idx: _Index) -> list[_Span]:
    spans = []
    n = len(toks)
    for size in range(min(MAX_SPAN, n), 0, -1):
        for i in range(n - size + 1):
            if any(t in _BOUNDARY for t in toks[i : i + size]):
                continue
            key = tuple(sing[i : i + size])
            if key in idx.full:
                spans.append(_Span(i, i + size, frozenset(idx.full[key]), "full", 1.0))
            elif key in idx.part:
                entries = idx.part[key]
                cov = max(idx.coverage[(key, e)] for e in entries)
                spans.append(_Span(i, i + size, frozenset(entries), "part", 0.6 + 0.35 * cov))
            surface = tuple(toks[i : i + size])
            category = idx.groups.get(surface) or idx.groups.get(key)
            if category is not None:
                spans.append(_Span(i, i + size, frozenset(), "group", 0.9, group=category))
    return spans


def _is_content(word: str, idx: _Index, pronoun_words: frozenset[str]) -> bool:
    return (
        word not in _BOUNDARY
        and not word.isdigit()
        and word not in idx.stop
        and word not in idx.units
        and singular(word) not in idx.units
        and word not in pronoun_words
    )


def _fuzzy_spans(toks: list[str], sing: list[str], taken: list[bool], idx: _Index, pronoun_words: frozenset[str]) -> list[_Span]:
    """One fuzzy or phonetic try for runs of content words nothing else explained."""
    spans: list[_Span] = []
    n = len(toks)
    free = [not taken[i] and _is_content(toks[i], idx, pronoun_words) for i in range(n)]
    for size in range(min(3, n), 0, -1):
        for i in range(n - size + 1):
            if not all(free[i : i + size]):
                continue
            query = " ".join(sing[i : i + size])
            if len(query.replace(" ", "")) < FUZZY_MIN_LETTERS:
                continue
            best = closest(query, idx.fuzzy_keys)
            if best is None and size == 1:
                for text in idx.phonetic.get(jellyfish.metaphone(query), ()):
                    ratio = fuzz.ratio(query, text)
                    if ratio >= PHONETIC_CUTOFF and (best is None or ratio > best[1]):
                        best = (text, ratio)
            if best is None:
                continue
            key = idx.fuzzy_lookup[best[0]]
            entries = idx.full.get(key) or idx.part.get(key) or set()
            cov = max(idx.coverage.get((key, e), 0.5) for e in entries)
            spans.append(_Span(i, i + size, frozenset(entries), "fuzzy", 0.9 * best[1] / 100 * (0.6 + 0.4 * cov)))
            for k in range(i, i + size):
                free[k] = False
    return spans


def _pick(spans: list[_Span], n: int) -> tuple[list[_Span], list[bool]]:
    taken = [False] * n
    picked = []
    for span in sorted(spans, key=lambda s: (s.rank, -s.start), reverse=True):
        if any(taken[span.start : span.end]):
            continue
        picked.append(span)
        for k in range(span.start, span.end):
            taken[k] = True
    picked.sort(key=lambda s: s.start)
    return picked, taken


@lru_cache(maxsize=32)
def _pronoun_words(lexicon: Lexicon) -> frozenset[str]:
    """The words of the lexicon's pronouns that never name a product ("it", "that"; not "the", "one")."""
    return frozenset(w for phrase in lexicon.pronouns for w in phrase if w not in {"the", "same", "one"})


def _pronoun_at(toks: list[str], lexicon: Lexicon, idx: _Index, pronoun_words: frozenset[str]) -> bool:
    for i in range(len(toks)):
        for phrase in lexicon.pronouns:
            if tuple(toks[i : i + len(phrase)]) != phrase:
                continue
            nxt = toks[i + len(phrase)] if i + len(phrase) < len(toks) else None
            # "that saffron" is a determiner before a product word, not a pronoun.
            if len(phrase) == 1 and phrase[0] in {"that", "this", "these", "those"} and nxt is not None and (
                _is_content(nxt, idx, pronoun_words)
            ):
                continue
            return True
    return False


def _ref(entry: CatalogEntry, score: float, words: str) -> ProductRef:
    return ProductRef(id=entry.id, name=entry.name, score=round(min(score, 1.0), 3), words=words)


@dataclass
class _Found:
    products: dict[int, tuple[float, int, str]] = field(default_factory=dict)  # entry -> score, position, words
    ambiguous: dict[int, tuple[float, int, str]] = field(default_factory=dict)
    group: str | None = None
    unknown: str | None = None
    unknown_span: tuple[int, int] | None = None


def _add(table: dict[int, tuple[float, int, str]], e: int, score: float, pos: int, words: str) -> None:
    if e not in table or table[e][0] < score:
        table[e] = (score, pos, words)


def _mostly_said(entries: set[int], key: tuple[str, ...], idx: _Index) -> set[int]:
    """Rule 8: of the products that share the words said, the one whose name they mostly are, if any."""
    share = sorted(((idx.coverage.get((key, e), 0.0), e) for e in entries), reverse=True)
    (best, e), (runner_up, _other) = share[0], share[1]
    return {e} if best >= 0.5 and best >= 2 * runner_up else entries


def _settled(span: _Span, toks: list[str], sing: list[str], idx: _Index) -> set[int]:
    """The products a span names, narrowed when it is shared (rules 5 and 8)."""
    entries = set(span.entries)
    if len(entries) <= 1:
        return entries
    # A unit word next to a shared part can settle it: "coconut can", "cans of coconut",
    # "coconut, price per can" -> coconut milk. (Only there: "can" is also a verb.)
    n = len(toks)
    near = {sing[k] for k in (span.start - 1, span.end) if 0 <= k < n}
    if span.start >= 2 and toks[span.start - 1] == "of":
        near.add(sing[span.start - 2])
    near.update(sing[k + 1] for k in range(n - 1) if toks[k] == "per")
    settled = {e for e in entries if idx.unit_word.get(e) in near}
    if len(settled) == 1:
        return settled
    if span.kind == "part":
        return _mostly_said(entries, tuple(sing[span.start : span.end]), idx)
    return entries


def _generic_alone(found: _Found, toks: list[str], sing: list[str], taken: list[bool], idx: _Index,
                   unknown_before: Callable[[_Span], int | None]) -> None:
    """Rule 4: a generic word alone is no product; the products that share it are offered."""
    for i in range(len(toks)):
        if taken[i] or sing[i] not in idx.generic or (found.unknown_span and found.unknown_span[0] <= i < found.unknown_span[1]):
            continue
        if (begin := unknown_before(_Span(i, i + 1, frozenset(), "part", 0))) is not None:
            if found.unknown_span is None or i + 1 - begin > found.unknown_span[1] - found.unknown_span[0]:
                found.unknown_span = (begin, i + 1)
            continue
        entries = idx.generic[sing[i]]
        for e in entries:
            _add(found.ambiguous, e, 0.4, i, toks[i])
        if len(entries) == 1 and found.unknown_span is None:
            found.unknown_span = (i, i + 1)
        taken[i] = True


def _match(text: str, catalog: Catalog, lexicon: Lexicon) -> tuple[_Found, list[str], list[bool]]:
    """Rules 1-5 and 7 on one (normalised) text; pronouns and hints are the caller's."""
    idx = catalog._index(lexicon)
    pronoun_words = _pronoun_words(lexicon)
    toks = _words(text)
    sing = [singular(t) for t in toks]
    n = len(toks)
    spans = _exact_spans(toks, sing, idx)
    _, taken = _pick(spans, n)
    spans += _fuzzy_spans(toks, sing, taken, idx, pronoun_words)
    picked, taken = _pick(spans, n)
    found = _Found()

    def unknown_before(span: _Span) -> int | None:
        """Where a run of words the store does not know starts, right before ``span`` (rule 3)."""
        k = span.start
        while k > 0 and not taken[k - 1] and _is_content(toks[k - 1], idx, pronoun_words) and (
            sing[k - 1] not in idx.vocabulary and toks[k - 1].isalpha() and len(toks[k - 1]) >= 3
        ):
            k -= 1
        return k if k < span.start else None

    groups: list[_Span] = []
    for span in picked:
        words = " ".join(toks[span.start : span.end])
        single_word = span.end - span.start == 1
        modifiable = single_word and (
            span.kind == "group" or len(span.entries) > 1 or tuple(sing[span.start : span.end]) in idx.heads
        )
        begin = unknown_before(span) if modifiable else None
        if begin is not None:
            if found.unknown_span is None or span.end - begin > found.unknown_span[1] - found.unknown_span[0]:
                found.unknown_span = (begin, span.end)
            continue
        if span.kind == "group":
            groups.append(span)
            # "rice", "dal", "oil": a group word that is also a kind several products carry.
            for e in idx.generic.get(sing[span.start], set()) if single_word else ():
                _add(found.ambiguous, e, 0.5, span.start, words)
            continue
        entries = _settled(span, toks, sing, idx)
        if len(entries) == 1:
            _add(found.products, next(iter(entries)), span.score, span.start, words)
        else:
            for e in entries:
                _add(found.ambiguous, e, span.score * 0.8, span.start, words)

    _generic_alone(found, toks, sing, taken, idx, unknown_before)
    if not found.products and groups:
        found.group = groups[0].group
    if found.unknown_span is None and not found.products and not found.group and not found.ambiguous:
        found.unknown_span = _leftover_run(toks, taken, idx, pronoun_words)
    if found.products and found.unknown_span is None:
        found.unknown_span = _listed_run(toks, taken, idx, pronoun_words)
    elif found.products and not _is_listed(toks, found.unknown_span[0], idx):
        found.unknown_span = None
    if found.unknown_span is not None:
        found.unknown = " ".join(toks[found.unknown_span[0] : found.unknown_span[1]])
    return found, toks, taken


def _is_listed(toks: list[str], start: int, idx: _Index) -> bool:
    """Whether the words at ``start`` are one item of a list ("samosas and 10 bottles of saffron")."""
    k = start - 1
    while k >= 0:
        tok = toks[k]
        if tok in {"and", "or", ",", "plus"}:
            return True
        if tok.isdigit() or tok in idx.units or singular(tok) in idx.units or tok in {"of", "some", "a", "the", "more"}:
            k -= 1
            continue
        return False
    return False


def _content_runs(toks: list[str], taken: list[bool], idx: _Index, pronoun_words: frozenset[str]) -> Iterator[tuple[int, int]]:
    """Runs of words nothing explained that are not store talk, units, numbers or pronouns."""
    i, n = 0, len(toks)
    while i < n:
        j = i
        while j < n and not taken[j] and toks[j].isalpha() and _is_content(toks[j], idx, pronoun_words):
            j += 1
        if j > i:
            yield (i, j)
        i = j + 1


def _listed_run(toks: list[str], taken: list[bool], idx: _Index, pronoun_words: frozenset[str]) -> tuple[int, int] | None:
    """An unknown product named next to known ones in a list, or None."""
    return next((run for run in _content_runs(toks, taken, idx, pronoun_words) if _is_listed(toks, run[0], idx)), None)


def _leftover_run(toks: list[str], taken: list[bool], idx: _Index, pronoun_words: frozenset[str]) -> tuple[int, int] | None:
    """Rule 7: the longest such run (the first of equals)."""
    return max(_content_runs(toks, taken, idx, pronoun_words), key=lambda run: run[1] - run[0], default=None)


def _hint_words_in(hint_toks: list[str], toks: list[str]) -> tuple[int, int] | None:
    """Where the hint's words occur in the owner's words (each word fuzzily), as a span."""
    words = [w for w in hint_toks if w not in _BOUNDARY]
    if not words:
        return None
    size = len(words)
    for i in range(len(toks) - size + 1):
        if all(spelled_alike(singular(a), singular(b), min_letters=0)
               for a, b in zip(words, toks[i : i + size], strict=True)):
            return (i, i + size)
    return None


def ground(
    text: str,
    *,
    catalog: Catalog,
    lexicon: Lexicon,
    last_product: str | None = None,
    hint: str | None = None,
) -> Grounding:
    """Which catalog products, group or unknown product the owner's words name (see the module rules)."""
    words = normalize(text, lexicon).text
    found, toks, _taken = _match(words, catalog, lexicon)
    idx = catalog._index(lexicon)
    entries = catalog.entries
    hint_used = False
    hinted: set[int] = set()

    if hint and hint.strip():
        hint_found, hint_toks, _ = _match(normalize(hint, lexicon).text, catalog, lexicon)
        owner_said = set(found.products) | set(found.ambiguous)
        # The hint picks among products the owner's words already name, and comes first; it may
        # not swap a product the owner named and the store lacks ("milk") for a near one.
        swapping = found.unknown is not None and not found.products
        chosen = [] if swapping else [e for e in hint_found.products if e in owner_said]
        if chosen:
            for e in chosen:
                found.products[e] = found.products.get(e) or found.ambiguous[e]
                found.ambiguous.pop(e, None)
                hinted.add(e)
            hint_used = True
        elif hint_found.group and not found.products and (
            found.group == hint_found.group
            or (found.ambiguous and all(entries[e].category == hint_found.group for e in found.ambiguous))
        ):
            found.group = hint_found.group
            hint_used = True
        elif not hint_found.products and not hint_found.group and not found.products:
            span = _hint_words_in(hint_toks, toks)
            # Only words that could name a product: "packs" or "the bags" alone is a unit, not an unknown product.
            if span is not None and any(_is_content(w, idx, _pronoun_words(lexicon)) for w in toks[span[0] : span[1]]):
                found.unknown = " ".join(toks[span[0] : span[1]])
                found.group = None
                hint_used = True

    products = sorted(found.products.items(), key=lambda kv: (kv[0] not in hinted, -kv[1][0], kv[1][1]))
    refs = tuple(_ref(entries[e], score, said) for e, (score, _pos, said) in products)
    ambiguous = tuple(
        _ref(entries[e], score, said)
        for e, (score, _pos, said) in sorted(found.ambiguous.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
        if e not in found.products
    )
    if refs:
        return Grounding(products=refs, unknown=found.unknown, ambiguous=ambiguous, hint_used=hint_used)
    if found.group:
        return Grounding(group=found.group, ambiguous=ambiguous, hint_used=hint_used)
    # Rule 6; an ambiguity the last product is part of ("is it the mustard") settles on it.
    last = catalog.entry_named(last_product) if last_product else None
    if (
        last is not None
        and not found.unknown
        and (not ambiguous or any(a.id == last.id for a in ambiguous))
        and _pronoun_at(toks, lexicon, idx, _pronoun_words(lexicon))
    ):
        return Grounding(products=(_ref(last, 1.0, last.name.lower()),), via_pronoun=True, hint_used=hint_used)
    return Grounding(unknown=found.unknown, ambiguous=ambiguous, hint_used=hint_used)

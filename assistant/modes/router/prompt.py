"""The router's prompt and output schema, generated from the business type's pack and the store.

The prompt is ordered for llama.cpp's prefix cache: the business type's actions, rules and
examples first (the same for every store of that type), then the store and its products (the
same for every turn of that store), and only then the conversation's context and the request.

A catalog of more than ``FULL_CATALOG_LIMIT`` products is not listed in the system prompt: the
store's part names its categories (the same every turn, so it stays cached) and the request's part
lists the few products the request may name (``RequestProducts``): the ones its words ground and
their nearest neighbours, by name without pack size, and one line per product whatever its brands
("Sella basmati" for thirty brands' "Tata Sella basmati 1 kg"). Only that short list is evaluated
again each turn, so a 5,000-product store costs about what the 38-product demo does.
"""

from __future__ import annotations

import json
import re
import weakref
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import yaml
from django.core.exceptions import ImproperlyConfigured
from rapidfuzz import fuzz, process

if TYPE_CHECKING:
    from assistant.grounding import Catalog, Grounding
    from packs.source import PackFiles

ASKS = ("where", "count", "price", "available")
TOPICS = ("inventory", "business", "nutrition")
KINDS = ("inventory", "sales")
# Above this many products only those that match the owner's words are listed, so the prompt
# does not grow with the catalog.
FULL_CATALOG_LIMIT = 60
REQUEST_PRODUCTS = 10  # at most this many product lines with a request
MAX_CATEGORIES = 30
NEIGHBOUR_CUTOFF = 88.0  # rapidfuzz ratio of a request word to a product-name word
# A brand: a leading word or two that starts at least BRAND_FANOUT different products, each of
# which at least BRAND_FANIN different leading words start ("Tata", "24 Mantra"; not "Frozen").
BRAND_FANOUT, BRAND_FANIN = 5, 3
_PACK_SIZE = re.compile(
    r"[\s,(]+\d+(?:[.,]\d+)?\s*(?:x\s*\d+\s*)?(?:g|gm|gms|kg|mg|ml|cl|l|ltr|oz|fl oz|lb|lbs|pcs?|ct|pack)\.?\)?$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class RouterPack:
    business_type: str  # the pack's key (``packs.source``): its slug, or a published version's key
    actions: tuple[dict[str, Any], ...]
    examples: tuple[tuple[str, dict[str, Any]], ...]
    context_examples: tuple[tuple[str, str, dict[str, Any]], ...]
    rules: tuple[str, ...]
    launch_reply: str

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(action["name"] for action in self.actions)

    def behaviour(self, action: str) -> str:
        """The built-in behaviour ``action`` runs (``packs.behaviours``); an unknown name is its own."""
        for spec in self.actions:
            if spec["name"] == action:
                return str(spec.get("behaviour", action))
        return action

    def parameters(self, action: str) -> dict[str, Any]:
        """The fixed values the pack gives ``action``'s behaviour (``ask``, ``topic``, ``kind``)."""
        for spec in self.actions:
            if spec["name"] == action:
                return dict(spec.get("parameters") or {})
        return {}

    def action_for(self, behaviour: str, *, preferred: str | None = None) -> str:
        """The pack's name for what a behaviour did: ``preferred`` if it runs it, else the first that does."""
        if preferred is not None and self.behaviour(preferred) == behaviour:
            return preferred
        for spec in self.actions:
            if spec.get("behaviour", spec["name"]) == behaviour:
                return str(spec["name"])
        return behaviour


@lru_cache(maxsize=16)
def router_pack(business_type: str) -> RouterPack:
    """The pack's numbered actions, examples and rules (its ``router.json``); ``business_type`` is a pack key."""
    from packs.source import UnknownPack, pack_files

    try:
        files = pack_files(business_type)
    except UnknownPack as exc:
        raise ImproperlyConfigured(f"Business type {business_type!r} has no router pack: {exc}") from exc
    return router_pack_of(files, key=business_type)


def router_pack_of(files: PackFiles, *, key: str) -> RouterPack:
    """The ``RouterPack`` of a pack's files (a draft being previewed, or what ``router_pack`` read).

    Raises:
        ImproperlyConfigured: the pack has no router file, or it is malformed.
    """
    business_type = key
    name = files.role("router")
    try:
        if name is None:
            raise FileNotFoundError(name)
        data = json.loads(files.files[name]) if name.endswith(".json") else yaml.safe_load(files.files[name])
        return RouterPack(
            business_type=business_type,
            actions=tuple(data["actions"]),
            examples=tuple((say, dict(answer)) for say, answer in data["examples"]),
            context_examples=tuple((say, last, dict(answer)) for say, last, answer in data.get("context_examples", [])),
            rules=tuple(data["rules"]),
            launch_reply=data.get("launch_reply", "Hi, I'm ready."),
        )
    except FileNotFoundError as exc:
        raise ImproperlyConfigured(f"Business type {business_type!r} has no router pack in {files.origin}.") from exc
    except (KeyError, TypeError, ValueError, yaml.YAMLError) as exc:
        raise ImproperlyConfigured(f"The router pack {files.origin}/{name} is malformed: {exc}.") from exc


def output_schema(pack: RouterPack) -> dict[str, Any]:
    """One JSON object: an action from the pack's list and its few optional arguments."""
    return {
        "type": "object",
        "properties": {
            "action": {"enum": list(pack.action_names)},
            "item": {"type": "string", "maxLength": 60},
            "ask": {"enum": list(ASKS)},
            "topic": {"enum": list(TOPICS)},
            "kind": {"enum": list(KINDS)},
        },
        "required": ["action"],
        "additionalProperties": False,
    }


def _line(answer: dict[str, Any]) -> str:
    return json.dumps(answer, separators=(",", ":"))


def static_prompt(pack: RouterPack) -> str:
    """The part shared by every store of the business type: actions, rules, examples."""
    actions = "\n".join(
        f"{action['id']} {action['name']}: {action['description']}"
        + (f". Arguments: {action['args']}" if action.get("args") else "")
        for action in pack.actions
    )
    examples = "\n".join(f"Request: {say}\nJSON: {_line(answer)}" for say, answer in pack.examples)
    context = "\n".join(
        f"Last action: {last}\nRequest: {say}\nJSON: {_line(answer)}" for say, last, answer in pack.context_examples
    )
    rules = "\n".join(f"- {rule}" for rule in pack.rules)
    return (
        "You route a store owner's spoken request to one action. The request comes from speech "
        "recognition, so it may be lower case, unpunctuated or misheard.\n"
        f"Actions:\n{actions}\nRules:\n{rules}\nExamples:\n{examples}\n{context}\n"
    )


def store_prompt(*, store_name: str, owner: str, products: list[str] | None = None,
                 catalog_size: int = 0, categories: list[str] | None = None) -> str:
    """The part shared by every turn of one store: its name, owner and products.

    A store whose ``products`` are not all listed (a big catalog) gets its size and categories
    here instead; the products a request may name then come with the request.
    """
    head = f"Store: {store_name}, owned by {owner or 'the owner'}.\n"
    if products is not None:
        return head + f"Products: {'; '.join(products)}.\n"
    kinds = f" in these categories: {'; '.join(categories)}" if categories else ""
    return head + (f"Products: many{kinds}. With each request come the products its words may "
                   "name; a product not among them may still be in the catalog.\n")


def request_prompt(*, text: str, last_product: str, last_action: str, products: list[str] | None = None) -> str:
    """The turn's own part, kept short: the products it may name (big catalogs), its context, the request."""
    context = [f"Products it may name: {'; '.join(products)}."] if products else []
    if last_product:
        context.append(f"Last product: {last_product}")
    if last_action:
        context.append(f"Last action: {last_action}")
    prefix = "\n".join(context)
    return (prefix + "\n" if prefix else "") + f"Request: {text}\nJSON:"


def pack_size_stripped(name: str) -> str:
    """The name without a trailing pack size ("MDH Turmeric powder 200 g" -> "MDH Turmeric powder")."""
    return _PACK_SIZE.sub("", name).strip() or name


class RequestProducts:
    """A big catalog as the router's prompt lists it: one line per product, whatever its sizes and brands.

    Built once per ``Catalog`` (which is kept per store until the catalog changes) and kept with
    it. ``lines(text, grounding)`` gives the few lines a request may mean, in order: the products
    its words ground, those they leave ambiguous, the group they name, then products with a name
    word close to one of the request's own words ("rava" -> "Idli rava").
    """

    def __init__(self, catalog: Catalog) -> None:
        lexicon = catalog.lexicon
        self._stop = (lexicon.non_product_words | lexicon.units) if lexicon is not None else frozenset()
        bases = [pack_size_stripped(entry.name) for entry in catalog.entries]
        cores = _without_brands(bases)
        self.lines: list[str] = []
        self.line_of: dict[Any, int] = {}
        self._aliases: list[list[str]] = []
        seen: dict[str, int] = {}
        words: dict[str, set[int]] = defaultdict(set)
        for entry, core in zip(catalog.entries, cores, strict=True):
            line = seen.get(core.casefold())
            if line is None:
                line = seen[core.casefold()] = len(self.lines)
                self.lines.append(core)
                self._aliases.append([])
            self.line_of[entry.id] = line
            for alias in entry.aliases:
                if alias not in self._aliases[line] and len(self._aliases[line]) < 3:
                    self._aliases[line].append(alias)
            for word in _WORD.findall(f"{core} {' '.join(entry.aliases)}".lower()):
                if len(word) >= 4 and word not in self._stop:
                    words[word].add(line)
        self._words = words
        self._vocabulary = list(words)
        self.categories = sorted({entry.category for entry in catalog.entries if entry.category})[:MAX_CATEGORIES]
        self._by_category: dict[str, list[int]] = defaultdict(list)
        for entry in catalog.entries:
            line = self.line_of[entry.id]
            if line not in self._by_category[entry.category]:
                self._by_category[entry.category].append(line)

    def request_lines(self, text: str, grounding: Grounding, *, limit: int = REQUEST_PRODUCTS) -> list[str]:
        """At most ``limit`` product lines for this request (with up to three aliases each)."""
        picked: list[int] = []

        def add(line: int | None) -> None:
            if line is not None and line not in picked and len(picked) < limit:
                picked.append(line)

        for ref in grounding.products + grounding.ambiguous:
            add(self.line_of.get(ref.id))
        if grounding.group:
            for line in self._by_category.get(grounding.group, ()):
                add(line)
        scores: dict[int, float] = {}
        for word in {w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in self._stop}:
            for _match, score, k in process.extract(word, self._vocabulary, scorer=fuzz.ratio,
                                                     score_cutoff=NEIGHBOUR_CUTOFF, limit=20):
                for line in self._words[self._vocabulary[k]]:
                    scores[line] = max(scores.get(line, 0.0), score)
        for line in sorted(scores, key=lambda line: (-scores[line], line)):
            add(line)
        return [self.lines[line] + (f" ({', '.join(self._aliases[line])})" if self._aliases[line] else "")
                for line in picked]


_request_products: weakref.WeakKeyDictionary[Catalog, RequestProducts] = weakref.WeakKeyDictionary()


def request_products_for(catalog: Catalog) -> RequestProducts:
    """The catalog's ``RequestProducts``, built on first use and kept as long as the catalog is."""
    built = _request_products.get(catalog)
    if built is None:  # a race builds it twice, harmlessly
        built = _request_products[catalog] = RequestProducts(catalog)
    return built


def _without_brands(names: list[str]) -> list[str]:
    """Each name without a leading brand (see ``BRAND_FANOUT``); names with none are unchanged."""
    split = [name.split() for name in names]
    fanout: dict[tuple[str, ...], set[str]] = defaultdict(set)
    fanin: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for words in split:
        for k in (1, 2):
            if len(words) > k:
                prefix, rest = tuple(w.casefold() for w in words[:k]), " ".join(words[k:]).casefold()
                fanout[prefix].add(rest)
                fanin[rest].add(prefix)
    cores = []
    for name, words in zip(names, split, strict=True):
        core = name
        for k in (1, 2):
            if len(words) > k:
                prefix, rest = tuple(w.casefold() for w in words[:k]), " ".join(words[k:])
                if len(fanout[prefix]) >= BRAND_FANOUT and len(fanin[rest.casefold()]) >= BRAND_FANIN:
                    core = rest[:1].upper() + rest[1:]
                    break
        cores.append(core)
    return cores

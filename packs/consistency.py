"""The rules a JSON Schema cannot say about a pack: its parts must agree with each other.

Each check reads only parts that are shaped right (the schema reports the rest), so one bad file
does not hide the problems of the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from packs.behaviours import BEHAVIOURS, MATCHER_INTENTS
from packs.errors import Problem

MIN_SUITE_TURNS = 30
MIN_ROUTING_ITEMS = 150


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.casefold().split())


def consistency_problems(document: dict[str, Any], origin: dict[str, str]) -> list[Problem]:
    """Every disagreement between the pack's parts."""
    manifest: dict[str, Any] = document["pack"] if isinstance(document.get("pack"), dict) else {}
    router: dict[str, Any] = document["router"] if isinstance(document.get("router"), dict) else {}
    actions = _dicts(router.get("actions"))
    names = {a["name"] for a in actions if isinstance(a.get("name"), str)}
    catalog = _catalog(document.get("sample_catalog"))
    problems = list(_slugs(document, origin, manifest.get("slug")))
    problems += _actions(actions, origin.get("router", "router.json"))
    problems += _examples(router, names, origin.get("router", "router.json"))
    if isinstance(document.get("lexicon"), dict):
        problems += _lexicon(document["lexicon"], catalog, origin.get("lexicon", "lexicon.json"))
    if isinstance(document.get("matcher"), dict):
        problems += _matcher(document["matcher"], names, origin.get("matcher", "matcher.yaml"))
    problems += _guides(document.get("guides"), origin.get("guides", "guides.json"))
    problems += _catalog_duplicates(document.get("sample_catalog"))
    for path, suite in (document.get("suites") or {}).items():
        problems += _suite(suite, catalog, path)
    for role, minimum in (("routing_set", MIN_ROUTING_ITEMS), ("development_set", 0)):
        if isinstance(document.get(role), dict):
            problems += _routing(document[role], names, catalog, origin.get(role, role), minimum)
    return problems


RESERVED_SLUGS = frozenset({"packs"})  # the portal's own address under /vendors/


def _slugs(document: dict[str, Any], origin: dict[str, str], slug: Any) -> Iterator[Problem]:
    if slug in RESERVED_SLUGS:
        yield Problem("pack.yaml", "/slug", f"{slug!r} is reserved; choose another slug")
    for role in ("router", "lexicon", "guard_vocabulary"):
        part = document.get(role)
        if isinstance(part, dict) and "business_type" in part and part["business_type"] != slug:
            yield Problem(origin.get(role, role), "/business_type",
                          f"says {part['business_type']!r}, but the manifest's slug is {slug!r}")


def _actions(actions: list[dict[str, Any]], file: str) -> Iterator[Problem]:
    for key in ("name", "id"):
        counts = Counter(a.get(key) for a in actions if a.get(key) is not None)
        for value, count in counts.items():
            if count > 1:
                index = [a.get(key) for a in actions].index(value, [a.get(key) for a in actions].index(value) + 1)
                yield Problem(file, f"/actions/{index}/{key}", f"duplicate action {key} {value!r}")
    for index, action in enumerate(actions):
        behaviour = action.get("behaviour")
        allowed = BEHAVIOURS.get(behaviour) if isinstance(behaviour, str) else None
        if allowed is None:
            continue  # the schema says the behaviour is unknown
        for parameter in action.get("parameters") or {}:
            if parameter not in allowed:
                yield Problem(file, f"/actions/{index}/parameters/{parameter}",
                              f"the behaviour {behaviour!r} takes "
                              + (f"only {', '.join(sorted(allowed))}" if allowed else "no parameters"))


def _examples(router: dict[str, Any], names: set[str], file: str) -> Iterator[Problem]:
    shown: Counter[str] = Counter()
    for key, position in (("examples", 1), ("context_examples", 2)):
        for index, example in enumerate(router.get(key) or []):
            if not isinstance(example, list) or len(example) <= position or not isinstance(example[position], dict):
                continue
            action = example[position].get("action")
            if isinstance(action, str) and action not in names:
                yield Problem(file, f"/{key}/{index}/{position}/action", f"{action!r} is not one of the pack's actions")
            shown[action] += 1
            if key == "context_examples" and isinstance(example[1], str) and example[1] not in names:
                yield Problem(file, f"/{key}/{index}/1", f"the last action {example[1]!r} is not one of the pack's actions")
    for index, action in enumerate(_dicts(router.get("actions"))):
        if isinstance(action.get("name"), str) and not shown[action["name"]]:
            yield Problem(file, f"/actions/{index}", f"the action {action['name']!r} has no examples: add at least "
                                                     "one to 'examples' so the router model learns when to pick it")


def _catalog(rows: Any) -> dict[tuple[str, ...], str]:
    """Every name and alias of the sample catalog (as words) -> the product's name."""
    known: dict[tuple[str, ...], str] = {}
    for row in _dicts(rows):
        name = row.get("name") or ""
        if not name:
            continue
        known[_words(name)] = name
        for alias in (row.get("aliases") or "").split("|"):
            if alias.strip():
                known.setdefault(_words(alias), name)
    return known


def _catalog_duplicates(rows: Any) -> Iterator[Problem]:
    for column in ("sku", "name"):
        seen: dict[str, int] = {}
        for number, row in enumerate(_dicts(rows), start=2):
            value = (row.get(column) or "").casefold()
            if value and value in seen:
                yield Problem("sample_catalog.csv", f"/row {number}/{column}",
                              f"the same {column} as row {seen[value]}")
            seen.setdefault(value, number)


def _lexicon(lexicon: dict[str, Any], catalog: dict[tuple[str, ...], str], file: str) -> Iterator[Problem]:
    """No correction may rewrite one product of the sample catalog into another; the rules must not loop."""
    from assistant.lexicon import LexiconError, lexicon_build

    for key in ("mishearings", "local_names"):
        for index, rule in enumerate(_dicts(lexicon.get(key))):
            target = catalog.get(_words(str(rule.get("to", ""))))
            for position, heard in enumerate(rule.get("from") or []):
                product = catalog.get(_words(str(heard)))
                if product is not None and product != target:
                    yield Problem(file, f"/{key}/{index}/from/{position}",
                                  f"{heard!r} is the sample catalog's product {product!r}, but this maps it to "
                                  f"{rule.get('to')!r}" + (f" ({target!r})" if target else ""))
    try:
        lexicon_build(lexicon, file)
    except LexiconError as exc:
        yield Problem(file, "", str(exc).removeprefix(f"{file}: "))
    except (KeyError, TypeError, AttributeError):
        pass  # malformed: the schema has said where


def _matcher(matcher: dict[str, Any], names: set[str], file: str) -> Iterator[Problem]:
    intents = matcher.get("intents")
    if isinstance(intents, dict):
        for intent in intents:
            if intent not in names and intent not in MATCHER_INTENTS:
                yield Problem(file, f"/intents/{intent}", "not one of the pack's actions "
                                                          f"(nor {', '.join(sorted(MATCHER_INTENTS))})")
    try:
        from hassil import Intents

        Intents.from_dict(matcher)
    except Exception as exc:  # hassil raises many kinds; each means the templates do not compile
        yield Problem(file, "", f"the templates do not compile: {str(exc)[:200]}")


def _guides(guides: Any, file: str) -> Iterator[Problem]:
    seen: set[Any] = set()
    for index, guide in enumerate(_dicts(guides)):
        if guide.get("slug") in seen:
            yield Problem(file, f"/{index}/slug", f"duplicate guide slug {guide['slug']!r}")
        seen.add(guide.get("slug"))


def _products_named(expect: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(path inside ``expect``, product name) for every product a suite turn's expectations name."""
    for tool, arguments in (expect.get("args") or {}).items() if isinstance(expect.get("args"), dict) else ():
        if not isinstance(arguments, dict):
            continue
        if "item" in arguments:
            yield f"args/{tool}/item", arguments["item"]
        for index, entry in enumerate(_dicts(arguments.get("items"))):
            if "item" in entry:
                yield f"args/{tool}/items/{index}/item", entry["item"]
    for key in ("reply_stock_of", "reply_price_of"):
        if key in expect:
            yield key, expect[key]
    if isinstance(expect.get("stock_after"), dict):
        for name in expect["stock_after"]:
            yield f"stock_after/{name}", name


def _suite(suite: Any, catalog: dict[tuple[str, ...], str], file: str) -> Iterator[Problem]:
    if not isinstance(suite, dict):
        return
    turns: list[Any] = suite["turns"] if isinstance(suite.get("turns"), list) else []
    if 0 < len(turns) < MIN_SUITE_TURNS:
        yield Problem(file, "/turns", f"{len(turns)} turns; an owner session has at least {MIN_SUITE_TURNS}")
    names = set(catalog.values())
    for index, turn in enumerate(turns):
        expect = turn.get("expect") if isinstance(turn, dict) else None
        if not isinstance(expect, dict):
            continue
        for path, product in _products_named(expect):
            if product not in names:
                yield Problem(file, f"/turns/{index}/expect/{path}",
                              f"{product!r} is not a product of the sample catalog")


def _routing(routing: dict[str, Any], actions: set[str], catalog: dict[tuple[str, ...], str], file: str,
             minimum: int) -> Iterator[Problem]:
    items = _dicts(routing.get("items"))
    if len(items) < minimum:
        yield Problem(file, "/items", f"{len(items)} utterances; a routing set has at least {minimum}")
    names = set(catalog.values())
    for index, item in enumerate(items):
        if isinstance(item.get("action"), str) and actions and item["action"] not in actions:
            yield Problem(file, f"/items/{index}/action", f"{item['action']!r} is not one of the pack's actions")
        named = [("item", item.get("item"))] if isinstance(item.get("item"), str) else []
        named += [(f"items/{k}/item", entry.get("item")) for k, entry in enumerate(_dicts(item.get("items")))]
        for path, product in named:
            if product is not None and product not in names:
                yield Problem(file, f"/items/{index}/{path}", f"{product!r} is not a product of the sample catalog")

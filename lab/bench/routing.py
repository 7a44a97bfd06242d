"""The routing set: single utterances, each with the action the router should pick and its words.

Each utterance is routed exactly as a real turn routes it (``route_utterance``: the same
normalisation, prompt, schema, validation and repair, then code-side grounding), without
running any tool. It is scored on:

- action: the model's action equals the gold action (an output that stays invalid after the
  repair counts as the action "(invalid)");
- action+item: the action is right and the grounded words are too:
  find_product / update_count: the first grounded product is the gold ``item``;
  find_product with ``not_carried``: grounding reports an unknown product and no product;
  draft_restock: the grounded products are exactly the gold ``items`` (any order), or, for
  "restock everything low" (no gold items), nothing at all is grounded, neither a product nor
  an unknown one (either would change what gets ordered);
  list_products with a ``group``: grounding gives that group;
  sales_period: the gold ``item`` is the first grounded product, or the gold ``group`` is the
  grounded group, or, where the gold names neither, nothing is grounded (a product or group
  would narrow the figures); and the period found in the words (``periods_find``, as the action
  finds it, today where none) resolves to the same start and end as the gold ``period`` at the
  same moment, and the comparison to the gold ``compare`` (or there is none where the gold has none);
  every other action: the action alone.
- numbers (reported apart): update_count's gold ``count`` and draft_restock's gold ``qty`` are
  among the numbers normalisation read from the words.

"Dropped to chat" counts action requests (gold action not ``general``) routed to ``general``:
the owner asked for something and got small talk.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shelfwise.stats import percentile

INVALID = "(invalid)"
GENERAL = "general"


class RoutingSetError(ValueError):
    """The routing set file is not valid; the message names the item and the field."""


@dataclass(frozen=True)
class RoutingItem:
    id: str
    say: str
    action: str
    item: str | None = None
    items: tuple[dict[str, Any], ...] | None = None
    group: str | None = None
    not_carried: str | None = None
    ask: str | None = None
    count: int | None = None
    topic: str | None = None
    kind: str | None = None
    period: str | None = None
    compare: str | None = None


def routing_set_load(path: str | Path, *, actions: Iterable[str] | None = None) -> tuple[RoutingItem, ...]:
    """Read the routing set (``{"actions": [...], "items": [...]}``).

    Raises:
        RoutingSetError: the file is missing or not JSON, or an item lacks ``say``/``action`` or
            names an action the set does not list.
    """
    return routing_set_parse(routing_set_read(path), name=Path(path).name, actions=actions)


def routing_set_read(path: str | Path) -> Any:
    """The routing set file's JSON.

    Raises:
        RoutingSetError: the file is missing or not JSON.
    """
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RoutingSetError(f"{path}: no such routing set.") from None
    except ValueError as exc:
        raise RoutingSetError(f"{path}: not valid JSON ({exc}).") from None


def routing_set_store(data: Any, *, name: str = "routing set") -> str:
    """The store a routing set is routed on: ``"demo"`` (the default) or a pack's ``"sample"`` catalog.

    Raises:
        RoutingSetError: another value.
    """
    store = data.get("store", "demo") if isinstance(data, dict) else "demo"
    if store not in ("demo", "sample"):
        raise RoutingSetError(f"{name}: unknown store {store!r}; routing sets run on: demo, sample.")
    return store


def routing_set_parse(data: Any, *, name: str, actions: Iterable[str] | None = None) -> tuple[RoutingItem, ...]:
    """The items of a routing set already read from JSON (see ``routing_set_load``).

    Raises:
        RoutingSetError: an item lacks ``say``/``action`` or names an action the set does not list.
    """
    raw_items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(raw_items, list) or not raw_items:
        raise RoutingSetError(f"{name}: 'items' must be a non-empty list.")
    routing_set_store(data, name=name)
    known = frozenset(actions if actions is not None else data.get("actions") or ())
    items = []
    for position, raw in enumerate(raw_items, start=1):
        where = f"{name}, item {raw.get('id', position) if isinstance(raw, dict) else position}"
        if not isinstance(raw, dict) or not isinstance(raw.get("say"), str) or not raw["say"].strip():
            raise RoutingSetError(f"{where}: each item needs a non-empty 'say'.")
        if raw.get("action") not in known:
            raise RoutingSetError(f"{where}: unknown action {raw.get('action')!r}; actions: {', '.join(sorted(known))}.")
        items.append(RoutingItem(
            id=str(raw.get("id", position)), say=raw["say"], action=raw["action"], item=raw.get("item"),
            items=tuple(raw["items"]) if raw.get("items") is not None else None, group=raw.get("group"),
            not_carried=raw.get("not_carried"), ask=raw.get("ask"), count=raw.get("count"),
            topic=raw.get("topic"), kind=raw.get("kind"), period=raw.get("period"), compare=raw.get("compare"),
        ))
    return tuple(items)


@dataclass(frozen=True)
class RouteScore:
    """How one utterance was routed and grounded, and whether that was right."""

    item: RoutingItem
    predicted: str
    action_ok: bool
    item_ok: bool
    grounded: str  # what grounding found, for the list of misses
    numbers_ok: bool | None  # None where the gold has no number
    ms: float
    model_ms: tuple[float, ...] = ()
    decided_by: str = "model"  # "matcher" when the fast path answered without the router model
    said: str = ""  # the decision's item words (the grounding hint), for reading the misses
    prompt_tokens: tuple[int, ...] = ()  # per model call, as the backend counted them
    cached_tokens: tuple[int | None, ...] = ()  # per model call: of those, served from the prompt cache
    period_ok: bool | None = None  # None where the gold has no period
    period_said: str = ""  # the period (and comparison) found in the words, for reading the misses


def _names(grounding: Any) -> list[str]:
    return [ref.name for ref in getattr(grounding, "products", ()) or ()]


def _same(a: str | None, b: str | None) -> bool:
    return (a or "").casefold().strip() == (b or "").casefold().strip()


def describe_grounding(grounding: Any) -> str:
    if grounding is None:
        return "-"
    parts = []
    if grounding.products:
        parts.append(", ".join(_names(grounding)))
    if grounding.group:
        parts.append(f"group {grounding.group}")
    if grounding.unknown:
        parts.append(f"unknown {grounding.unknown!r}")
    return "; ".join(parts) or "nothing"


def item_matches(item: RoutingItem, grounding: Any) -> bool:
    """Whether the grounded words are the gold ones for the item's action (see the module doc)."""
    names = _names(grounding)
    if item.action == "find_product":
        if item.not_carried is not None or item.item is None:
            return grounding is not None and bool(grounding.unknown) and not names
        return bool(names) and _same(names[0], item.item)
    if item.action == "update_count":
        return bool(names) and _same(names[0], item.item)
    if item.action == "draft_restock":
        if item.items is None:
            return grounding is not None and not names and not grounding.unknown
        wanted = sorted(str(entry.get("item", "")).casefold() for entry in item.items)
        return sorted(name.casefold() for name in names) == wanted
    if item.action == "list_products" and item.group is not None:
        return grounding is not None and _same(grounding.group, item.group)
    if item.action == "sales_period":
        if grounding is None:
            return item.item is None and item.group is None
        if item.item is not None:
            return bool(names) and _same(names[0], item.item)
        if item.group is not None:
            return not names and _same(grounding.group, item.group)
        return not names and not grounding.group
    return True


def _spans(found: Any, now: Any) -> tuple[Any, ...]:
    from ledger.periods import comparison_resolve

    period, other = comparison_resolve(found, now=now)
    return (period.start, period.end) + ((other.start, other.end) if other is not None else ())


def period_match(item: RoutingItem, text: str, *, now: Any) -> tuple[bool | None, str]:
    """Whether the period (and comparison) found in the words is the gold one at ``now``, and what was found.

    None where the gold has no period. A period the words name that cannot be read is a miss.

    Raises:
        RoutingSetError: the gold period itself cannot be read (the set is wrong, not the router).
    """
    from ledger.periods import Found, PeriodError, periods_find

    if item.period is None:
        return None, ""
    try:
        gold = _spans(Found(item.period, item.compare), now)
    except PeriodError as exc:
        raise RoutingSetError(f"{item.id}: the gold period cannot be read ({exc.message})") from None
    try:
        found = periods_find(text, now=now) or Found("today")
        said = found.period + (f" vs {found.compare}" if found.compare else "")
        return _spans(found, now) == gold, said
    except PeriodError as exc:
        return False, f"(refused: {exc.message})"


def numbers_match(item: RoutingItem, numbers: Sequence[int]) -> bool | None:
    """Whether the gold count or quantities are among the numbers read; None when the gold has none."""
    wanted: list[int] = []
    if item.action == "update_count" and item.count is not None:
        wanted = [item.count]
    elif item.action == "draft_restock" and item.items:
        wanted = [entry["qty"] for entry in item.items if entry.get("qty") is not None]
    if not wanted:
        return None
    return all(number in numbers for number in wanted)


def route_score(item: RoutingItem, *, words: Any, decision: Any, grounding: Any, ms: float,
                model_ms: Sequence[float] = (), decided_by: str = "model", prompt_tokens: Sequence[int] = (),
                cached_tokens: Sequence[int | None] = (), now: Any = None) -> RouteScore:
    """Score one routed utterance (``now``, the store's local now, scores a gold period)."""
    predicted = decision.action if decision is not None else INVALID
    action_ok = predicted == item.action
    period_ok, period_said = (None, "")
    if item.period is not None and now is not None:
        period_ok, period_said = period_match(item, getattr(words, "text", "") or item.say, now=now)
    return RouteScore(
        item=item,
        predicted=predicted,
        action_ok=action_ok,
        item_ok=action_ok and item_matches(item, grounding) and period_ok is not False,
        grounded=describe_grounding(grounding),
        numbers_ok=numbers_match(item, tuple(getattr(words, "numbers", ()) or ())),
        ms=ms,
        model_ms=tuple(model_ms),
        decided_by=decided_by,
        said=(getattr(decision, "item", None) or "") if decision is not None else "",
        prompt_tokens=tuple(prompt_tokens),
        cached_tokens=tuple(cached_tokens),
        period_ok=period_ok,
        period_said=period_said,
    )


def route_one(*, store: Any, item: RoutingItem, catalog: Any = None, fast: bool = False) -> RouteScore:
    """Route one utterance as a turn would (the fast path first when ``fast``) and score it, with its wall-clock time."""
    from assistant import model_log
    from assistant.modes.router.mode import route_request
    from ledger.periods import store_now
    from ledger.selectors import store_tz

    now = store_now(store_tz(store)) if item.period is not None else None
    with model_log.collect() as exchanges:
        started = time.perf_counter()
        routed = route_request(store=store, text=item.say, catalog=catalog, fast=fast)
        ms = (time.perf_counter() - started) * 1000
    return route_score(item, words=routed.words, decision=routed.decision, grounding=routed.grounding, ms=ms,
                       model_ms=[exchange.duration_ms for exchange in exchanges], decided_by=routed.decided_by,
                       prompt_tokens=[exchange.prompt_tokens for exchange in exchanges],
                       cached_tokens=[exchange.response.get("cached_tokens") for exchange in exchanges], now=now)


@dataclass
class ActionTally:
    total: int = 0
    action_ok: int = 0
    item_ok: int = 0


@dataclass
class RoutingSummary:
    total: int
    action_ok: int
    item_ok: int
    per_action: dict[str, ActionTally]
    confusion: list[tuple[tuple[str, str], int]]  # (gold, predicted) of the action misses, most first
    action_requests: int
    dropped_to_chat: int
    numbers_total: int
    numbers_ok: int
    median_ms: float | None
    p90_ms: float | None
    median_model_ms: float | None
    misses: list[RouteScore] = field(default_factory=list)
    matched: int = 0  # utterances the fast-path matcher decided
    matched_action_ok: int = 0
    matched_item_ok: int = 0
    matcher_confusion: list[tuple[tuple[str, str], int]] = field(default_factory=list)  # its wrong answers
    matched_median_ms: float | None = None
    model_median_ms: float | None = None
    periods_total: int = 0  # utterances whose gold names a period
    periods_ok: int = 0  # of those, the period found in the words was the gold one


def routing_summary(scores: Sequence[RouteScore]) -> RoutingSummary:
    per_action: dict[str, ActionTally] = defaultdict(ActionTally)
    for score in scores:
        tally = per_action[score.item.action]
        tally.total += 1
        tally.action_ok += score.action_ok
        tally.item_ok += score.item_ok
    confusion = Counter((s.item.action, s.predicted) for s in scores if not s.action_ok)
    requests = [s for s in scores if s.item.action != GENERAL]
    numbered = [s for s in scores if s.numbers_ok is not None]
    latencies = [s.ms for s in scores]
    matched = [s for s in scores if s.decided_by == "matcher"]
    model_ms = [ms for s in scores for ms in s.model_ms]
    return RoutingSummary(
        total=len(scores),
        action_ok=sum(s.action_ok for s in scores),
        item_ok=sum(s.item_ok for s in scores),
        per_action=dict(sorted(per_action.items())),
        confusion=confusion.most_common(),
        action_requests=len(requests),
        dropped_to_chat=sum(s.predicted == GENERAL for s in requests),
        numbers_total=len(numbered),
        numbers_ok=sum(bool(s.numbers_ok) for s in numbered),
        median_ms=percentile(latencies, 50),
        p90_ms=percentile(latencies, 90),
        median_model_ms=percentile(model_ms, 50),
        misses=[s for s in scores if not s.item_ok],
        matched=len(matched),
        matched_action_ok=sum(s.action_ok for s in matched),
        matched_item_ok=sum(s.item_ok for s in matched),
        matcher_confusion=Counter((s.item.action, s.predicted) for s in matched if not s.action_ok).most_common(),
        matched_median_ms=percentile([s.ms for s in matched], 50),
        model_median_ms=percentile([s.ms for s in scores if s.decided_by != "matcher"], 50),
        periods_total=sum(s.period_ok is not None for s in scores),
        periods_ok=sum(bool(s.period_ok) for s in scores),
    )


def routing_run(*, store: Any, items: Sequence[RoutingItem], fast: bool, warm: bool = True,
                on_score: Any = None) -> list[RouteScore]:
    """Route every item on ``store`` (its catalog read once) and score it; ``warm``: one throwaway routing first.

    ``on_score(scores_so_far)`` is called after each item (a progress bar, a job's progress).
    """
    from assistant.grounding import Catalog
    from ledger import selectors

    catalog = Catalog.from_products(selectors.product_list(store=store))
    if warm and items:  # so the first timed routing is not the first call
        route_one(store=store, item=items[0], catalog=catalog, fast=fast)
    scores: list[RouteScore] = []
    for item in items:
        scores.append(route_one(store=store, item=item, catalog=catalog, fast=fast))
        if on_score is not None:
            on_score(scores)
    return scores

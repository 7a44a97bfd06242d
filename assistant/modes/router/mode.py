"""The router mode (default): one constrained model call picks an action and names the words.

The model's output is limited by a JSON schema (an enum for the action) where the backend can;
it is validated again in code, repaired once with a short message naming the field, and
otherwise becomes a clarifying question. Code runs the action (``assistant.modes.router.actions``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from jsonschema import Draft202012Validator

from assistant import sentences
from assistant.events import ActionChosen
from assistant.grounding import Grounding, ground
from assistant.matcher.route import DecidedBy, fast_path
from assistant.model_log import ask
from assistant.modes.base import ModeOutcome, TurnContext
from assistant.modes.router import prompt as prompts
from assistant.modes.router.actions import ACTIONS, Decision
from assistant.sentences import say
from assistant.types import Outcome
from inference.base import InferenceError, ModelRequest, Role
from packs.source import store_pack_key

_LOOKUP = re.compile(
    r"\b(where|which (aisle|shelf)|how (many|much)|price|cost|stock|left|do we (have|carry|sell)|"
    r"is there|are there|any)\b"
)
_NUTRITION = re.compile(
    r"\b(protein|fib(re|er)|iron|vitamins?|calcium|calories|nutrition|nutritious|nutrients?|healthy|healthiest)\b"
)
# Asking how to take, give or use something (a dose, a treatment) is not asking about the shelf:
# "how many paracetamol can I take", "how much ibuprofen do I give a toddler", "what's the dosage".
_ADVICE = re.compile(
    r"\b(can|could|should|may|do|does|would|must) (i|you|he|she|they|someone|a (child|kid|toddler|baby)) "
    r"(safely )?(take|give|use|drink|swallow)\b|\bdos(e|es|age|ing)\b"
)
_STOCKED = re.compile(r"\bdo we (have|carry|sell|stock|keep)\b")
_LIST = re.compile(r"\b(list|catalog(ue)?|products|everything|all|what (do|else do) we (sell|carry|have|stock))\b")
_VIDEO = re.compile(r"\b(video|film|movie|clip|walkthrough)\b")
_ALERT = re.compile(r"\b(alerts?|notifications?)\b")
_EMAIL = re.compile(r"\b(e-?mail|mail me|send me|inbox)\b")
# Words about selling: with a period other than today they ask for sales over that period.
_SALES = re.compile(
    r"\b(sell|sold|selling|sales?|sellers?|revenue|takings?|take|took|made|make|earn(ed|ings)?|rang up|ring up|"
    r"business|numbers|receipts?|customers|basket|went out|moved|move|turnover|did we do|go|went)\b"
)
_SALES_FROM = ("todays_sales", "find_product", "list_products", "general", "store_health")


class RouterMode:
    name = "router"

    def handle(self, ctx: TurnContext) -> ModeOutcome:
        pack = prompts.router_pack(store_pack_key(ctx.store))
        matched = fast_path(business_type=pack.business_type, words=ctx.words, catalog=ctx.catalog,
                            lexicon=ctx.lexicon, last_action=ctx.state.last_action, last_product=ctx.state.last_product,
                            store_id=ctx.store.pk)
        route = {"decided_by": DecidedBy.MATCHER if matched else DecidedBy.MODEL,
                 **(matched.as_dict() if matched else {})}
        if matched is not None:
            decision: Decision | None = matched.decision
        else:
            try:
                decision = self.decide(ctx, pack)
            except InferenceError:
                return ModeOutcome(action=None, reply=say(sentences.MODEL_UNAVAILABLE), outcome=Outcome.ERROR,
                                   route=route)
        if decision is None:
            return ModeOutcome(action=None, reply=say(sentences.CLARIFY), outcome=Outcome.CLARIFIED, route=route)
        chosen = decision.action
        decision, _ = refine(as_behaviour(pack, decision), ctx.words,
                             ctx.ground(last_product=ctx.state.last_product or None, hint=decision.item))
        ctx.emit(ActionChosen(action=pack.action_for(decision.action, preferred=chosen), item=decision.item,
                              ask=decision.ask, topic=decision.topic, kind=decision.kind, route=route))
        outcome = ACTIONS[decision.action](ctx, decision)
        if outcome.action:
            outcome.action = pack.action_for(outcome.action, preferred=chosen)
        outcome.route = route
        return outcome

    def messages(self, ctx: TurnContext, pack: prompts.RouterPack) -> list[dict[str, str]]:
        catalog = ctx.catalog
        if len(catalog.entries) > prompts.FULL_CATALOG_LIMIT:
            # A big catalog: the stable part names its categories; the few products this request
            # may name come with the request, so the system prompt stays in the prompt cache.
            listed = prompts.request_products_for(catalog)
            lexicon = getattr(ctx, "lexicon", None) or catalog.lexicon
            grounding = ground(ctx.words.text, catalog=catalog, lexicon=lexicon) if lexicon is not None else Grounding()
            store = prompts.store_prompt(store_name=ctx.store.name, owner=ctx.store.owner_name,
                                         catalog_size=len(catalog.entries), categories=listed.categories)
            products = listed.request_lines(ctx.words.text, grounding)
        else:
            store = prompts.store_prompt(store_name=ctx.store.name, owner=ctx.store.owner_name, products=[
                entry.name + (f" ({', '.join(entry.aliases)})" if entry.aliases else "") for entry in catalog.entries
            ])
            products = None
        user = prompts.request_prompt(text=ctx.words.text, last_product=ctx.state.last_product,
                                      last_action=ctx.state.last_action, products=products)
        return [{"role": "system", "content": prompts.static_prompt(pack) + store}, {"role": "user", "content": user}]

    def decide(self, ctx: TurnContext, pack: prompts.RouterPack) -> Decision | None:
        """The model's decision, validated; one repair; None when it stays invalid."""
        schema = prompts.output_schema(pack)
        messages = self.messages(ctx, pack)
        for attempt in range(2):
            response = ask(
                ModelRequest(role=Role.ROUTER, messages=tuple(messages), temperature=0.0, max_tokens=48,
                             json_schema=schema, schema_name="route"),
                purpose="route" if attempt == 0 else "route repair",
            )
            problem, decision = _validate(response.parsed if response.parsed is not None else response.text, schema)
            if problem is None:
                return decision
            messages = messages + [
                {"role": "assistant", "content": response.text},
                {"role": "user", "content": f"That JSON was invalid: {problem}. Answer again with one line of JSON."},
            ]
        return None


def as_behaviour(pack: prompts.RouterPack, decision: Decision) -> Decision:
    """The pack's action as the built-in behaviour it maps to, with the pack's fixed parameters where the words gave none.

    ``refine`` and the handlers speak in behaviours; the pack's own name comes back in ``action_for``.
    """
    fixed = pack.parameters(decision.action)
    return replace(decision, action=pack.behaviour(decision.action),
                   **{field: value for field, value in fixed.items() if getattr(decision, field) is None})


def refine(decision: Decision, words, grounding: Grounding) -> tuple[Decision, Grounding]:
    """Code-side corrections from what the owner's words ground to (seed 000 §5.3).

    The model picks intent; code knows what the words name and what each action needs:
    a count with no number is a question, not an update; a "product" that is a broad group is a
    list; a list, a low-stock question or a chat that names one product is about that product;
    a restock without words asking to order is a lookup; guides are audio, so a video is the
    demo; "email me ..." is a report by email; a request about alerts is the alerts action (a low-stock
    list of "stock alerts" stays one unless they are dealt with); selling over a period other than today is the sales
    action, and the sales action for today alone is today's sales. Words the model did not name as an item are not
    a product the store lacks unless the action is a product lookup. Advice on taking or giving a product ("how
    many paracetamol can I take") is no stock question; "what vitamins do we have" lists the store's own group.
    """
    from assistant.policy import OwnerWords

    action = decision.action
    text = words.text
    named = bool(grounding.products) and not grounding.via_pronoun
    if decision.item is None and action not in ("find_product", "update_count") and grounding.unknown:
        grounding = replace(grounding, unknown=None)
    dealt_with = OwnerWords(text=text, numbers=words.numbers).asks_acknowledge
    if action != "alerts" and _ALERT.search(text) and (action != "low_stock" or dealt_with):
        # "any alerts?", "dismiss the paneer alert": the store's alerts, never a product called "alerts";
        # "any stock alerts today" read as the low-stock list is a true answer too, and is kept.
        return replace(decision, action="alerts"), replace(grounding, unknown=None)
    if action == "update_count" and not words.numbers:
        decision = replace(decision, action="find_product", ask="count")
    elif action == "find_product" and not grounding.products and grounding.group:
        decision = replace(decision, action="list_products")
    elif action == "list_products" and named and not grounding.group:
        decision = replace(decision, action="find_product")
    elif action == "general" and named and _LOOKUP.search(text) and not _ADVICE.search(text):
        # The general model has no store facts and must not be asked for them (advice on taking it is no lookup).
        decision = replace(decision, action="find_product")
    elif action == "low_stock" and named or action == "draft_restock" and named and not OwnerWords(text=text, numbers=words.numbers).asks_order:
        decision = replace(decision, action="find_product", ask=decision.ask or "available")
    elif action in ("list_products", "general", "play_guide") and not named and grounding.group and _STOCKED.search(text):
        # "What vitamins do we have": the store's own group, listed (not a guide, even with a nutrition word).
        decision = replace(decision, action="list_products")
    elif action in ("list_products", "find_product", "general") and not named and _NUTRITION.search(text):
        # Food and nutrition questions are answered by the nutrition guides (the pack's action 9).
        decision = replace(decision, action="play_guide", topic="nutrition")
    elif action == "list_products" and not named and not grounding.group and not _LIST.search(text):
        # A list needs words asking for one; "how many grams are in a pound" is a general question.
        decision = replace(decision, action="general")
    elif action == "play_guide" and _VIDEO.search(text):
        decision = replace(decision, action="play_demo")
    elif action in _SALES_FROM and not _EMAIL.search(text) and _SALES.search(text) and past_period(text):
        # A question about selling over another period: the sales action, whatever the model picked.
        decision = replace(decision, action="sales_period")
    elif action == "sales_period" and not past_period(text) and not (grounding.products or grounding.group):
        # Today's figures alone: today's sales.
        decision = replace(decision, action="todays_sales", item=None)
    elif action in ("todays_sales", "sales_period", "list_products", "low_stock", "store_health") and _EMAIL.search(text):
        decision = replace(decision, action="email_report", kind="sales" if "sales" in text else "inventory")
    return decision, grounding


def asks_about_sales(text: str) -> bool:
    """Whether the words are about selling or name a period other than today (what a shelf answer cannot answer)."""
    return bool(_SALES.search(text)) or past_period(text)


def past_period(text: str) -> bool:
    """Whether the words name a period other than today ("yesterday", "next week": said to be still to come)."""
    from ledger.periods import period_shapes

    return any(shape != "today" for shape in period_shapes(text))


def _validate(value: Any, schema: dict[str, Any]) -> tuple[str | None, Decision | None]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return "it is not JSON", None
    if not isinstance(value, dict):
        return "it must be one JSON object", None
    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda error: list(error.path))
    if errors:
        error = errors[0]
        field = ".".join(str(part) for part in error.path) or "action"
        return f"{field}: {error.message}", None
    item = value.get("item")
    item = item.strip() if isinstance(item, str) and item.strip() else None
    return None, Decision(action=value["action"], item=item, ask=value.get("ask"), topic=value.get("topic"),
                          kind=value.get("kind"))


def route_utterance(*, store, text: str, last_product: str = "", last_action: str = "", catalog=None,
                    fast: bool = False):
    """Route one utterance without running any tool: (normalised words, decision or None, grounding).

    For the routing set and prompt work: the same normalisation, prompt, schema, validation and
    repair as a real turn, then the same code-side grounding of the product words. With ``fast``
    the fast-path matcher answers first where it is sure (``route_request`` says which decided).
    """
    routed = route_request(store=store, text=text, last_product=last_product, last_action=last_action,
                           catalog=catalog, fast=fast)
    return routed.words, routed.decision, routed.grounding


def route_request(*, store, text: str, last_product: str = "", last_action: str = "", catalog=None,
                  fast: bool = True) -> RoutedRequest:
    """``route_utterance`` with who decided: the fast-path matcher (when ``fast`` and it is sure) or the model."""
    from types import SimpleNamespace

    from assistant.grounding import Catalog
    from assistant.lexicon import lexicon_for
    from assistant.normalize import normalize
    from ledger import selectors

    lexicon = lexicon_for(store_pack_key(store))
    words = normalize(text, lexicon)
    if catalog is None:
        catalog = Catalog.from_products(selectors.product_list(store=store), lexicon=lexicon)
    ctx = SimpleNamespace(
        store=store, words=words, catalog=catalog,
        state=SimpleNamespace(last_product=last_product, last_action=last_action),
    )
    pack = prompts.router_pack(store_pack_key(store))
    matched = fast_path(business_type=pack.business_type, words=words, catalog=catalog, lexicon=lexicon,
                        last_action=last_action, last_product=last_product, store_id=store.pk,
                        enabled=True) if fast else None
    decision = matched.decision if matched is not None else RouterMode().decide(ctx, pack)
    grounding = None
    if decision is not None:
        chosen = decision.action
        grounding = ground(words.text, catalog=catalog, lexicon=lexicon, last_product=last_product or None,
                           hint=decision.item)
        decision, grounding = refine(as_behaviour(pack, decision), words, grounding)
        decision = replace(decision, action=pack.action_for(decision.action, preferred=chosen))
    return RoutedRequest(words=words, decision=decision, grounding=grounding,
                         decided_by=DecidedBy.MATCHER if matched else DecidedBy.MODEL, match=matched)


@dataclass(frozen=True)
class RoutedRequest:
    """One routed utterance: the words, the decision (None: invalid twice), its grounding and who decided."""

    words: Any
    decision: Decision | None
    grounding: Grounding | None
    decided_by: str
    match: Any = None

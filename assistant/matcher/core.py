"""Match one request to the router's intent without the router model, or decline.

Three sources, in order:
0. phrases this store's owner taught it (``taught.py``), when the request's words are nearly the
   same as one (confidence: their similarity);
1. the pack's templates (``templates.py``): a template that covers the words whole, whose
   ``{item}`` words name a product of this store (or, for a product question, a product the store
   does not carry) and whose ``{group}`` words name a group; confidence 1.0;
2. an embedding head (``classifier.py``): MiniLM over the normalised words with the product words
   masked, a logistic head over the actions trained on the pack's examples, development set and
   template expansions (``training.py``); it answers only where the words fit the action
   (``fit``) and its probability reaches the pack's threshold (a higher one where grounding is
   weak; both chosen on development data); its probability is the confidence.

Before both, a whole sentence that is a unit conversion or a sum is the general action, which code
answers exactly (``assistant.quantities``). Anything else is declined (``None``) and the router model decides, as before. Context: "another
one" repeats the last action when that action takes no product; "and the ghee?" asks the last
product action again about another product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assistant.grounding import ground
from assistant.matcher.templates import TemplateHit, matcher_pack, template_hits
from assistant.modes.router.actions import Decision

if TYPE_CHECKING:
    from assistant.grounding import Catalog, Grounding
    from assistant.lexicon import Lexicon
    from assistant.matcher.taught import TaughtSet
    from assistant.normalize import Normalized

REPEAT_LAST = "repeat_last"
OTHER_ITEM = "same_action_other_item"
# Built-in behaviours whose words must (or must not) name products; packs map actions onto these.
PRODUCT_ACTIONS = frozenset({"find_product", "update_count", "draft_restock"})


@dataclass(frozen=True)
class Match:
    """The matcher's answer: the router's intent, how sure it is (0..1) and which source gave it."""

    decision: Decision
    confidence: float
    source: str  # "taught", "template", "context", "embedding" or "computed" (a conversion or a sum, see ``quantities``)
    weak: bool = False  # the head answered although grounding is weak (see ``fit``)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class Request:
    """What the matcher reads: the normalised words, the store's catalog and the conversation's context."""

    business_type: str
    words: Normalized
    catalog: Catalog
    lexicon: Lexicon
    last_action: str = ""
    last_product: str = ""
    taught: TaughtSet | None = None  # the store's taught phrases (``taught.taught_for``)


def _takes_item(business_type: str, action: str) -> bool:
    from assistant.modes.router.prompt import router_pack

    for spec in router_pack(business_type).actions:
        if spec["name"] == action:
            return "item" in (spec.get("args") or "")
    return False


_DETERMINERS = frozenset({"the", "our", "a", "an", "some", "any", "those", "that", "these", "this", "of"})


def _bare(item: str, lexicon: Lexicon) -> str:
    """The item words without leading determiners and trailing unit words ("the oat milk cartons" -> "oat milk")."""
    words = item.split()
    while words and words[0] in _DETERMINERS:
        words.pop(0)
    while words and words[-1] in lexicon.units:
        words.pop()
    return " ".join(words)


_JOINERS = frozenset({"and", "or", "&", ",", "of"})


def _only_products(item: str, grounding: Grounding, lexicon: Lexicon) -> bool:
    """Whether the item words are the products' own words (with joiners, units and determiners), nothing more.

    A wildcard can swallow half a sentence ("so we actually have 15 bags of atta fix the"); only
    words that grounding used for a product may be in it.
    """
    used = {word for ref in grounding.products for word in ref.words.split()}
    if grounding.via_pronoun:
        used |= {word for phrase in lexicon.pronouns for word in phrase}
    return all(word in used or word in _JOINERS or word in _DETERMINERS or word in lexicon.units
               for word in item.replace(",", " , ").split())


def _item_ok(action: str, item: str, grounding: Grounding, lexicon: Lexicon) -> bool:
    """Whether the ``{item}`` words name what the action needs, and nothing else.

    A product the store lacks counts only for a product question, and only when the unknown words
    are all of the item words (so "problems with the shop" is not a product called "problems").
    """
    if grounding.products:
        return not grounding.unknown and not grounding.group and _only_products(item, grounding, lexicon)
    if action != "find_product" or grounding.group:
        return False
    if grounding.unknown:
        bare = _bare(item, lexicon)
        return grounding.unknown == bare and len(bare.split()) <= 3
    return bool(grounding.ambiguous)


def _resolve(request: Request, hit: TemplateHit) -> Decision | None:
    action, slots = hit.intent, hit.slots
    if action == REPEAT_LAST:
        if not request.last_action or _takes_item(request.business_type, request.last_action):
            return None
        return Decision(action=request.last_action)
    if action == OTHER_ITEM:
        if not request.last_action or request.last_action not in PRODUCT_ACTIONS:
            return None
        action = request.last_action
        if action != "find_product":  # a count or an order needs its own words and number
            return None
    item = slots.get("item")
    if item is not None:
        grounding = ground(item, catalog=request.catalog, lexicon=request.lexicon,
                           last_product=request.last_product or None)
        if not _item_ok(action, item, grounding, request.lexicon):
            return None
    group = slots.get("group")
    if group is not None:
        grounding = ground(group, catalog=request.catalog, lexicon=request.lexicon)
        if not grounding.group or grounding.products or grounding.unknown:
            return None
    if list(request.words.numbers) != ([slots["n"]] if "n" in slots else []):
        return None  # every number said must be the template's one number (which is the count is the model's call)
    return Decision(action=action, item=item or group, ask=slots.get("ask"),
                    topic=slots.get("topic") or slots.get("small_talk"), kind=slots.get("kind"))


def template_match(request: Request) -> Match | None:
    """The first template hit whose slots check out, or None (source "context" when the conversation chose the action)."""
    pack = matcher_pack(request.business_type)
    if pack is None or not request.words.text:
        return None
    for hit in template_hits(pack, request.words.text):
        decision = _resolve(request, hit)
        if decision is not None:
            source = "context" if hit.intent in (REPEAT_LAST, OTHER_ITEM) else "template"
            return Match(decision=decision, confidence=1.0, source=source)
    return None


def fit(action: str, words: Normalized, grounding: Grounding) -> str | None:
    """How the words' grounding fits ``action``: "agrees", "weak" or None (it cannot be that action).

    A product action needs product words; a product question words saying what it asks (where,
    how many, the price, whether we have it: "what's the ghee made from" is no stock question); a
    count change a number and one product; an order words asking to order; sales over a period may
    name a product or not. Any other action cannot name a store product (those are the
    model's to sort out); words the catalog does not know beside it ("takings", "mail") make it
    weak, as do products named in a general question ("how do i cook poha"): the head then needs
    the pack's higher ``weak_threshold``.
    """
    from assistant.modes.router.actions import ask_read
    from assistant.policy import OwnerWords

    owner = OwnerWords(text=words.text, numbers=words.numbers)
    if owner.asks_order != (action == "draft_restock"):
        return None
    if action == "update_count":
        ok = len(grounding.products) == 1 and len(words.numbers) == 1 and owner.asks_count_change
        return "agrees" if ok else None
    if action == "find_product":  # and the words must say what they ask (a question about a product may be general)
        ok = (grounding.products or grounding.unknown) and not owner.asks_count_change and ask_read(words.text)
        return "agrees" if ok else None
    if action == "draft_restock":
        return None if grounding.unknown else "agrees"
    if action == "sales_period":  # a product's or a group's sales over a period, or the whole store's
        return "weak" if grounding.unknown else "agrees"
    if grounding.products:
        return "weak" if action == "general" else None
    return "weak" if grounding.unknown else "agrees"


def stable(request: Request, found: Match) -> bool:
    """Whether the router's code-side corrections keep the matcher's action.

    When code would read the words differently (an "order" without words asking to order, a
    "list" without words asking for one), the two readings disagree and the model decides.
    """
    from assistant.modes.router.mode import refine

    grounding = ground(request.words.text, catalog=request.catalog, lexicon=request.lexicon,
                       last_product=request.last_product or None, hint=found.decision.item)
    refined, _ = refine(found.decision, request.words, grounding)
    return refined.action == found.decision.action


def match_request(request: Request, *, head: Any = None, vector: Any = None,
                  threshold: float | None = None, weak_threshold: float | None = None) -> Match | None:
    """The matcher's intent for ``request``, or None when the router model should decide.

    A template's action must not be one the embedding head all but rules out (below the pack's
    ``agreement`` probability): two different readings that disagree go to the model.
    ``head``, ``vector`` (a fitted head, the embedding of the words' ``head_text``) and the
    thresholds (instead of the pack's) are for evaluation.
    """
    from assistant.matcher.classifier import action_probabilities, embed_one, embedding_match
    from assistant.matcher.taught import taught_match
    from assistant.matcher.training import head_text
    from assistant.quantities import computed_answer

    pack = matcher_pack(request.business_type)
    if pack is None or not request.words.text:
        return None
    if computed_answer(request.words.text) is not None:  # a conversion or a sum: code answers it exactly
        return Match(decision=Decision(action="general"), confidence=1.0, source="computed")
    grounding = ground(request.words.text, catalog=request.catalog, lexicon=request.lexicon,
                       last_product=request.last_product or None)
    text = head_text(request.words.text, grounding)
    found = None
    if request.taught is not None:
        vector = embed_one(text) if vector is None else vector
        found = taught_match(request, taught=request.taught, vector=vector, grounding=grounding)
    if found is None:
        found = template_match(request)
        if found is None or found.source != "context":
            probabilities = action_probabilities(request.business_type, text, head=head, vector=vector)
            if found is None:
                found = embedding_match(request, probabilities=probabilities, grounding=grounding,
                                        threshold=pack.threshold if threshold is None else threshold,
                                        weak_threshold=pack.weak_threshold if weak_threshold is None else weak_threshold)
            elif probabilities.get(found.decision.action, 0.0) < pack.agreement:
                return None
    if found is None or not stable(request, found):
        return None
    return found

"""Scenario generators for the small model's training data: one owner turn each, on a live store.

A scenario writes an ``Owner`` line, then ``Call`` / ``Result`` lines by running the real tools
(``Convo.call``: MCP tools through ``execute_tool`` with the assistant's owner-words policy,
client tools through the media library), then an ``Answer`` line that code words from the
result. Every number in an answer is copied from the ``Result`` line before it.

Conventions the model learns (the runtime relies on them):

- Product calls name the catalog product (``{"item": "Jaggery"}`` for "gur"); a product the
  store does not carry is still looked up with the owner's words (``{"item": "saffron"}``): the
  Catalog line lists only a few names, so the model cannot know a product is missing. The
  result says ``not carried: saffron`` and the answer says so. (One consistent behaviour.)
- Named restocks: ``place_reorder {"items": [{"item": "Toor dal"}], "confirmed": false}`` -- the
  model writes ``qty`` only when the owner said a number; code fills the rest
  (``results.complete_arguments``). Restock everything low: ``place_reorder {"confirmed": false}``.
- Count updates: ``update_inventory {"item": "Atta", "stock": 15}``; code fills ``expectedStock``.
- Greetings, reactions, declines and pushes to approve are answered without any call; general and
  medical questions go to ``ask_general``; tips and guides to ``play_audio_guide`` (with topic).
- A plain "yes"/"no" to a pending draft and the launch phrase never reach the model (code), so
  they are not trained; only phrasings ``assistant.phrases`` leaves to the model are.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant import replies
from assistant.grounding import Catalog, ground
from assistant.lexicon import Lexicon
from assistant.modes.small.protocol import Call
from assistant.modes.small.results import complete_arguments, result_line
from assistant.normalize import normalize
from assistant.phrases import Reply, is_launch, yes_or_no
from assistant.policy import OwnerWords, OwnerWordsPolicy
from audit.models import Channel
from lab.small.phrasings import (
    ALERT_TEMPLATES,
    ANOTHER,
    APPROVE_NUDGE,
    ASK_TEMPLATES,
    DECLINE_AFTER_DRAFT,
    DECLINE_NO_DRAFT,
    DEMO,
    FOLLOW_TEMPLATES,
    GENERAL,
    GREETINGS,
    GUIDES,
    HEALTH_TEMPLATES,
    LIST_TEMPLATES,
    MEDICAL,
    MEDICAL_ANSWER,
    NARROW,
    NOT_CARRIED,
    REACTIONS,
    REFUSE,
    REFUSE_ANSWER,
    REPORT_INVENTORY,
    REPORT_SALES,
    RESTOCK_ALL,
    RESTOCK_NAMED,
    RESTOCK_QTY,
    SALES_TEMPLATES,
    UPDATE,
    say_number,
    speechify,
)
from mcp_gateway.execution import execute_tool
from mcp_gateway.policy import Caller
from mcp_gateway.registry import MCP_SCOPE

CLIENT = ("play_demo_video", "play_audio_guide", "ask_general")


class Skip(Exception):
    """This draw cannot make a good example (a phrasing code handles, a refused call...): draw again."""


# ---------------------------------------------------------------------------------------------
# Product words


@dataclass(frozen=True)
class ProductInfo:
    """A catalog product and the ways an owner says it (each grounds to it alone)."""

    name: str
    unit: str
    forms: tuple[str, ...]
    hindi: tuple[str, ...] = ()


_MISHEAR = {"dal": ("doll", "dahl", "daal", "dhal"), "atta": ("otta", "ata", "aata"), "toor dal": ("turdal", "tour dal"),
            "basmati": ("basmatti",), "paneer": ("panir",), "besan": ("besun",), "sooji": ("suji",),
            "jaggery": ("jaggary",), "turmeric": ("tumeric",), "cardamom": ("cardamon",), "chili": ("chilli",),
            "samosas": ("samoosas",), "parathas": ("parantha", "paranthas"), "namkeen": ("namkin",), "ghee": ("ghi",),
            "hing": ("heeng",), "masoor": ("masur",), "urad": ("udad",), "moong": ("mung",), "poha": ("powa",)}


def product_infos(catalog: Catalog, lexicon: Lexicon, products: dict[str, Any]) -> dict[str, ProductInfo]:
    """Every product's spoken forms: its name, aliases, local names, mishearings and distinctive parts,
    kept only where grounding alone settles on that product (so the runtime's Catalog line has it)."""
    local: dict[str, list[str]] = {}
    for fix_from, fix in lexicon.corrections.items():
        local.setdefault(fix.target.lower(), []).append(" ".join(fix_from))
    infos = {}
    for entry in catalog.entries:
        name = entry.name.lower()
        candidates: list[str] = [name, *[a.lower() for a in entry.aliases]]
        candidates += local.get(name, [])
        for word, wrong in _MISHEAR.items():
            for base in list(candidates[:3]):
                if re.search(rf"\b{re.escape(word)}\b", base):
                    candidates += [re.sub(rf"\b{re.escape(word)}\b", w, base) for w in wrong]
        words = name.split()
        if len(words) > 1:
            candidates += words
        forms = []
        for form in dict.fromkeys(candidates):
            if not form or len(form) < 3:
                continue
            grounding = ground(form, catalog=catalog, lexicon=lexicon)
            if len(grounding.products) == 1 and grounding.products[0].name == entry.name and not grounding.ambiguous:
                forms.append(form)
        hindi = [f for f in forms if f in set(local.get(name, [])) | {a.lower() for a in entry.aliases}]
        infos[entry.name] = ProductInfo(entry.name, products[entry.name]["unit"], tuple(forms) or (name,), tuple(hindi))
    return infos


def product_words(info: ProductInfo, rng: random.Random) -> str:
    roll = rng.random()
    if info.hindi and roll < 0.3:
        return rng.choice(info.hindi)
    if roll < 0.55:
        return info.name.lower()
    return rng.choice(info.forms)


# ---------------------------------------------------------------------------------------------
# The conversation being built


@dataclass
class State:
    """What earlier turns left behind (what the runtime's conversation state would hold)."""

    last_product: str | None = None
    draft_lines: list[str] = field(default_factory=list)  # items of the draft on offer
    last_topic: str | None = None
    played: list[str] = field(default_factory=list)
    last_ask: str | None = None


@dataclass
class Convo:
    """The lines of one record as they are written, and the tools they run."""

    store: Any
    lexicon: Lexicon
    conversation: str
    normalized_owner: bool
    general_reply: str = ""  # what the general model answers (canned: no model runs in generation)
    lines: list[dict] = field(default_factory=list)
    state: State = field(default_factory=State)
    training: bool = False  # lines written now are the final turn's (trainable)
    words: Any = None
    draft_offered: bool = False
    owner_text: str = ""

    def owner(self, text: str) -> None:
        norm = normalize(text, self.lexicon)
        if not norm.text.strip() or is_launch(norm.text):
            raise Skip("launch phrase or empty")
        if self.state.draft_lines and yes_or_no(norm.text) != Reply.OTHER:
            raise Skip("a yes or no to the draft is code's")
        self.words = norm
        self.draft_offered = bool(self.state.draft_lines)
        self.owner_text = text
        shown = norm.text if self.normalized_owner else text
        self.lines.append({"tag": "Owner", "text": shown, "train": False})

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """Run one tool as the small mode would and write its Call and Result lines."""
        text = Call(name, arguments).line()[len("### Call: "):]
        self.lines.append({"tag": "Call", "text": text, "train": self.training})
        if name in CLIENT:
            data = self._client(name, arguments)
            ok, message = True, ""
        else:
            words = OwnerWords(text=self.words.text, numbers=self.words.numbers, draft_just_offered=self.draft_offered)
            caller = Caller(
                channel=Channel.ASSISTANT, actor="assistant:small", scopes=frozenset({MCP_SCOPE}),
                conversation=self.conversation, mode="small",
            )
            full = complete_arguments(name, arguments, store=self.store)
            result = execute_tool(name, full, store=self.store, caller=caller, policy=OwnerWordsPolicy(words))
            if result.outcome in ("refused", "invalid", "denied", "rate_limited", "timeout") or result.data.get("error") == "server_error":
                raise Skip(f"{name} {result.outcome}: {result.message}")
            ok, data, message = result.ok, result.data, result.message
        self.lines.append({"tag": "Result", "text": result_line(name, data, ok, message), "train": False})
        return ok, data

    def _client(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from assistant.media.library import demo_media, guide_pick

        if name == "play_demo_video":
            return {"playing": demo_media().title}
        if name == "play_audio_guide":
            guide = guide_pick(topic=arguments.get("topic"), words=self.words.text, exclude=self.state.played)
            self.state.played.append(guide.slug)
            self.state.last_topic = str(guide.topic)
            return {"playing": guide.title, "topic": str(guide.topic)}
        return {"answer": self.general_reply}

    def answer(self, text: str) -> None:
        self.lines.append({"tag": "Answer", "text": text, "train": self.training})


@dataclass
class Env:
    """What scenarios draw from: the store's products (values of this example) and the focus set."""

    rng: random.Random
    infos: dict[str, ProductInfo]
    focus: list[str]  # products this split asks about
    products: dict[str, dict]  # name -> get_inventory-like values, refreshed per example

    def product(self, *, low: bool | None = None, exclude: tuple[str, ...] = ()) -> ProductInfo:
        names = [n for n in self.focus if n not in exclude]
        if low is not None:
            picked = [n for n in names if self.products[n]["isLow"] == low]
            names = picked or names
        return self.infos[self.rng.choice(names)]


# ---------------------------------------------------------------------------------------------
# Answers (code-worded, from the result data the Result line was written from)


def _unit_word(product: dict, count: int) -> str:
    return replies.container(product["unit"], count)


def answer_product(product: dict, ask: str, currency: str = "USD") -> str:
    name, stock = product["name"], product["stock"]
    where = product["location"] + (f", {product['shelfNote']}" if product.get("shelfNote") else "")
    if ask == "where":
        return f"{name} is in {where}."
    if ask == "count":
        if stock == 0:
            return f"{name} is out of stock."
        text = f"We have {stock} {_unit_word(product, stock)} of {name}."
        if product.get("isLow"):
            text += f" That's at or below its reorder point of {product['reorderPoint']}."
        return text
    if ask == "available":
        if stock == 0:
            return f"No, {name} is out of stock right now."
        return f"Yes, we have {stock} {_unit_word(product, stock)} of {name}, in {product['location']}."
    return f"{name} is {replies.money(product['price'], currency)} per {product['unit']}."


def answer_not_carried(words: str) -> str:
    return f"Sorry, we don't carry {words}."


def answer_error(data: dict, ok: bool = False) -> str:
    return "Sorry, that didn't work: " + str(data.get("message", "")).split(". ")[0].rstrip(".") + "."


def _fill(template: str, info: ProductInfo, rng: random.Random, words: str | None = None, n: int | None = None) -> str:
    unit1 = replies.container(info.unit, 1)
    text = template.replace("{p}", words or product_words(info, rng)).replace("{u1}", unit1)
    text = text.replace("{u}", replies.container(info.unit, 2))
    if n is not None:
        text = text.replace("{n}", say_number(n, rng))
    return text


# ---------------------------------------------------------------------------------------------
# Scenarios: each writes one owner turn into ``convo``


def _lookup(env: Env, convo: Convo, ask: str, info: ProductInfo | None = None, template: str | None = None) -> None:
    rng = env.rng
    info = info or env.product()
    text = _fill(template or rng.choice(ASK_TEMPLATES[ask]), info, rng)
    convo.owner(speechify(text, rng))
    ok, data = convo.call("get_inventory", {"item": info.name})
    convo.answer(answer_product(data["product"], ask) if ok else answer_error(data, ok))
    convo.state.last_product, convo.state.last_ask = info.name, ask


def where(env: Env, convo: Convo) -> None:
    _lookup(env, convo, "where")


def count(env: Env, convo: Convo) -> None:
    _lookup(env, convo, "count")


def available(env: Env, convo: Convo) -> None:
    _lookup(env, convo, "available")


def price(env: Env, convo: Convo) -> None:
    _lookup(env, convo, "price")


def followup(env: Env, convo: Convo) -> None:
    rng = env.rng
    name = convo.state.last_product
    if not name:
        raise Skip("no earlier product")
    asks = [a for a in FOLLOW_TEMPLATES if a != convo.state.last_ask]
    ask = rng.choice(asks)
    convo.owner(speechify(rng.choice(FOLLOW_TEMPLATES[ask]), rng))
    ok, data = convo.call("get_inventory", {"item": name})
    convo.answer(answer_product(data["product"], ask) if ok else answer_error(data, ok))
    convo.state.last_ask = ask


def two_products(env: Env, convo: Convo) -> None:
    rng = env.rng
    first = env.product()
    second = env.product(exclude=(first.name,))
    ask = rng.choice(("where", "count", "price"))
    lead = {"where": "where are the {a} and the {b}", "count": "how many {a} and {b} do we have",
            "price": "prices for {a} and {b}"}[ask]
    convo.owner(speechify(lead.format(a=product_words(first, rng), b=product_words(second, rng)), rng))
    answers = []
    for info in (first, second):
        ok, data = convo.call("get_inventory", {"item": info.name})
        answers.append(answer_product(data["product"], ask) if ok else answer_error(data, ok))
    convo.answer(" ".join(answers))
    convo.state.last_product, convo.state.last_ask = None, ask


def not_carried(env: Env, convo: Convo) -> None:
    rng = env.rng
    words = rng.choice(NOT_CARRIED)
    template = rng.choice(ASK_TEMPLATES[rng.choice(("where", "available", "available", "price", "count"))])
    convo.owner(speechify(template.replace("{p}", words).replace("{u1}", "pack").replace("{u}", "packs"), rng))
    ok, _data = convo.call("get_inventory", {"item": words})
    if ok:
        raise Skip(f"the store's matching found {words!r}")
    convo.answer(answer_not_carried(words))
    convo.state.last_product = None


def list_all(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(LIST_TEMPLATES), env.rng))
    _ok, data = convo.call("get_inventory", {"filter": "all"})
    names = [p["name"] for p in data["products"]]
    convo.answer(f"We carry {len(names)} products: {replies.join(names)}.")


def sales(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(SALES_TEMPLATES), env.rng))
    _ok, data = convo.call("get_todays_transactions", {})
    top = [f"{s['item']} ({s['units']})" for s in data.get("topSellers", [])[:3]]
    text = (f"Today so far: {data['receipts']} receipts and {replies.money(data['revenue'])} in sales, "
            f"{data['unitsSold']} units sold.")
    if top:
        text += f" Top sellers: {replies.join(top)}."
    convo.answer(text)


def health(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(HEALTH_TEMPLATES), env.rng))
    _ok, data = convo.call("reconcile_inventory", {})
    text = f"I closed the day: {data['receipts']} receipts and {replies.money(data['revenue'])} in sales. "
    low = data.get("lowItems") or []
    if low:
        parts = [f"{i['item']} ({i['stock']} left)" for i in low]
        text += f"{len(low)} {'item needs' if len(low) == 1 else 'items need'} reordering: {replies.join(parts)}."
    else:
        text += "Nothing is low."
    convo.answer(text)


def alerts(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(ALERT_TEMPLATES), env.rng))
    _ok, data = convo.call("get_inventory", {"filter": "low"})
    items = data["products"]
    if not items:
        convo.answer("Nothing is at or below its reorder point right now.")
        return
    parts = [f"{p['name']} ({p['stock']} left)" for p in items]
    noun = "item is" if len(parts) == 1 else "items are"
    convo.answer(f"{len(parts)} {noun} low: {replies.join(parts)}.")


def _offer(convo: Convo, ok: bool, data: dict) -> None:
    if not ok:
        if data.get("error") == "nothing_to_order" or "nothing" in str(data.get("message", "")).lower():
            convo.answer("Nothing is low right now, so there is nothing to reorder.")
        else:
            convo.answer(answer_error(data, ok))
        convo.state.draft_lines = []
        return
    lines = [f"{line['qty']} {line['item']}" for line in data["lines"]]
    convo.answer(
        f"I've drafted an order for {replies.join(lines)}, about {replies.money(data['estimatedTotal'])} "
        f"from {data['supplier']}. Shall I place it?"
    )
    convo.state.draft_lines = [line["item"] for line in data["lines"]]


def restock_all(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(RESTOCK_ALL), env.rng))
    ok, data = convo.call("place_reorder", {"confirmed": False})
    _offer(convo, ok, data)
    convo.state.last_product = None


def restock_named(env: Env, convo: Convo) -> None:
    rng = env.rng
    info = env.product(low=rng.random() < 0.6)
    if rng.random() < 0.2:
        other = env.product(exclude=(info.name,))
        text = rng.choice(("order more {a} and {b}", "restock the {a} and the {b}", "reorder {a} and {b}")).format(
            a=product_words(info, rng), b=product_words(other, rng))
        items = [{"item": info.name}, {"item": other.name}]
    else:
        text = _fill(rng.choice(RESTOCK_NAMED), info, rng)
        items = [{"item": info.name}]
    convo.owner(speechify(text, rng))
    ok, data = convo.call("place_reorder", {"items": items, "confirmed": False})
    _offer(convo, ok, data)
    convo.state.last_product = info.name if len(items) == 1 else None


def restock_qty(env: Env, convo: Convo) -> None:
    rng = env.rng
    info = env.product()
    n = rng.choice((rng.randint(2, 30), rng.randint(2, 60), 12, 10, 20, 24))
    convo.owner(speechify(_fill(rng.choice(RESTOCK_QTY), info, rng, n=n), rng))
    if convo.words.numbers != (n,):
        raise Skip("number not heard as said")
    ok, data = convo.call("place_reorder", {"items": [{"item": info.name, "qty": n}], "confirmed": False})
    _offer(convo, ok, data)
    convo.state.last_product = info.name


def narrow(env: Env, convo: Convo) -> None:
    rng = env.rng
    if not convo.state.draft_lines:
        raise Skip("no draft on offer")
    name = rng.choice(convo.state.draft_lines)
    info = env.infos.get(name)
    if info is None:
        raise Skip("draft item not in the focus set")
    convo.owner(speechify(_fill(rng.choice(NARROW), info, rng), rng))
    ok, data = convo.call("place_reorder", {"items": [{"item": name}], "confirmed": False})
    _offer(convo, ok, data)
    convo.state.last_product = name


def decline(env: Env, convo: Convo) -> None:
    rng = env.rng
    if convo.state.draft_lines:
        convo.owner(speechify(rng.choice(DECLINE_AFTER_DRAFT), rng))
        convo.answer("Okay, I won't place it. Nothing has been ordered.")
    else:
        convo.owner(speechify(rng.choice(DECLINE_NO_DRAFT), rng))
        convo.answer("Okay, I won't order anything.")
    convo.state.draft_lines = []


def approve_nudge(env: Env, convo: Convo) -> None:
    if not convo.state.draft_lines:
        raise Skip("no draft on offer")
    convo.owner(speechify(env.rng.choice(APPROVE_NUDGE), env.rng))
    convo.answer("Nothing is ordered until you say yes. Say yes to place it, or no to drop it.")


def update(env: Env, convo: Convo) -> None:
    rng = env.rng
    info = env.product()
    current = env.products[info.name]["stock"]
    n = rng.choice([k for k in range(80) if k != current and k != 1])
    convo.owner(speechify(_fill(rng.choice(UPDATE), info, rng, n=n), rng))
    if convo.words.numbers != (n,):
        raise Skip("number not heard as said")
    ok, data = convo.call("update_inventory", {"item": info.name, "stock": n})
    if ok:
        text = f"Done. {data['item']} is now set to {data['stock']}; it was {data['previousStock']}."
        if data.get("isLow"):
            text += f" That's at or below its reorder point of {data['reorderPoint']}."
        convo.answer(text)
    else:
        convo.answer(answer_error(data, ok))
    convo.state.last_product = info.name


def report(env: Env, convo: Convo) -> None:
    rng = env.rng
    kind = rng.choice(("inventory", "sales"))
    convo.owner(speechify(rng.choice(REPORT_INVENTORY if kind == "inventory" else REPORT_SALES), rng))
    tool = "send_inventory_report" if kind == "inventory" else "send_sales_report"
    ok, data = convo.call(tool, {})
    convo.answer(replies.report_sent(data) if ok else answer_error(data, ok))


def demo(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(DEMO), env.rng))
    _ok, data = convo.call("play_demo_video", {})
    convo.answer(f"Here is {data['playing']}.")


def guide(env: Env, convo: Convo) -> None:
    rng = env.rng
    topic = rng.choice(list(GUIDES))
    convo.owner(speechify(rng.choice(GUIDES[topic]), rng))
    _ok, data = convo.call("play_audio_guide", {"topic": topic})
    convo.answer(f"Here's a guide: {data['playing']}.")


def another_guide(env: Env, convo: Convo) -> None:
    if not convo.state.last_topic:
        raise Skip("no guide played")
    convo.owner(speechify(env.rng.choice(ANOTHER), env.rng))
    _ok, data = convo.call("play_audio_guide", {"topic": convo.state.last_topic})
    convo.answer(f"Here's another: {data['playing']}.")


def general(env: Env, convo: Convo) -> None:
    rng = env.rng
    if rng.random() < 0.25:
        question, reply = rng.choice(MEDICAL), MEDICAL_ANSWER
    else:
        question, reply = rng.choice(GENERAL)
    convo.general_reply = reply
    convo.owner(speechify(question, rng))
    convo.call("ask_general", {"question": convo.words.text})
    convo.answer(reply)


def reaction(env: Env, convo: Convo) -> None:
    text, reply = env.rng.choice(REACTIONS)
    convo.owner(speechify(text, env.rng))
    convo.answer(reply)


def greeting(env: Env, convo: Convo) -> None:
    text, reply = env.rng.choice(GREETINGS)
    convo.owner(speechify(text, env.rng))
    convo.answer(reply)


def refuse(env: Env, convo: Convo) -> None:
    convo.owner(speechify(env.rng.choice(REFUSE), env.rng))
    convo.answer(REFUSE_ANSWER)


Scenario = Callable[[Env, Convo], None]

#: Every scenario, its weight in the train and dev splits, and what must come before it.
SCENARIOS: dict[str, tuple[Scenario, float]] = {
    "where": (where, 13), "count": (count, 12), "available": (available, 10), "price": (price, 9),
    "followup": (followup, 7), "two_products": (two_products, 2), "not_carried": (not_carried, 6),
    "list": (list_all, 2), "sales": (sales, 2.5), "health": (health, 3), "alerts": (alerts, 3),
    "restock_all": (restock_all, 4), "restock_named": (restock_named, 5), "restock_qty": (restock_qty, 4),
    "narrow": (narrow, 2.5), "decline": (decline, 2.5), "approval": (approve_nudge, 1), "update": (update, 6),
    "report": (report, 2), "demo": (demo, 1.5), "guide": (guide, 3), "another_guide": (another_guide, 1.5),
    "general": (general, 4.5), "reaction": (reaction, 4), "greeting": (greeting, 3), "refuse": (refuse, 1.5),
}
#: Scenarios that need a particular earlier turn, and the scenarios that can provide it.
NEEDS: dict[str, tuple[str, ...]] = {
    "followup": ("where", "count", "available", "price", "update", "restock_qty"),
    "narrow": ("restock_all",),
    "decline": ("restock_all", "restock_named", "restock_qty"),
    "approval": ("restock_all", "restock_named", "restock_qty"),
    "another_guide": ("guide",),
}
#: Scenarios the held-out split uses (the ones about one product).
PRODUCT_SCENARIOS = ("where", "count", "available", "price", "followup", "restock_named", "restock_qty", "update")
#: Earlier turns drawn as unrelated context.
CONTEXT_SCENARIOS = tuple(name for name in SCENARIOS if name not in NEEDS)



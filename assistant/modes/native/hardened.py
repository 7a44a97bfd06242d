"""Native tool calling, hardened as in seed 002: retrieval, constrained decoding, validation, one repair.

1. Retrieval: the request is embedded and the top-k tools are declared (``assistant.retrieval``),
   plus the tool of the conversation's last action (for "another one") and ``ask_general``, the
   escape hatch, so the model is never forced into a bad fit.
2. Every tool is declared, always in the same order, by the model's own chat template after a
   static system prompt (the store, the rules and the business type's example requests written as
   calls), so all of the prompt before the owner's words is the same on every call of a store and
   llama.cpp's prefix cache serves it; the shortlist acts only through decoding, which is
   constrained by one JSON schema. The first step is
   exactly one of the shortlisted calls (name and that tool's argument schema, without the
   fields code owns); ``ask_general``, always listed, is the reply path for greetings, reactions
   and general questions (escalation to the general model). A plain reply ``{"reply": str}`` is
   decodable only after tool results, so no store fact is ever stated before a tool ran.
3. Validation: the arguments are checked again with ``jsonschema`` (grammar engines skip some
   keywords), then semantically: a product must be one this store has and the owner's words name
   (the model's item words are grounded together with the owner's words and the catalog name is
   passed); a product the store lacks is a "we don't carry" answer, not a call. Code fills what
   the model must not invent: ``update_inventory``'s ``expectedStock`` from a ledger read just
   before, ``place_reorder``'s quantities from the owner's number or the ledger's suggestion;
   the full call is validated against the registry schema. ``confirmed`` passes through as the
   model wrote it, so a ``true`` reaches the policy and is refused and audited there.
4. One repair with a short message naming the field, then a clarifying question.
5. After tool results a second constrained step lets the model write the reply (or call another
   store tool, at most six steps). The reply is checked: every number must appear in the turn's
   tool results or the owner's words, and a number said of a product must be that product's; the
   products it names, its units and its other words must come from them too (``reply_words``: no
   "popular choice for desserts"); a single-product answer must carry the fact asked for
   (count, price, shelf); a draft or count change must repeat its quantity, total or new count;
   a reply claiming a media tool's effect that did not run is re-asked as a call. Otherwise one
   repair, then the reply that code builds from the last
   result (``assistant.replies``). That fallback is harness code, not the model: it is recorded
   as ``reply_source: "code"`` in the turn's ``native_harness`` audit record and the outcome is
   not marked model-written.
6. Early exit (``code_replies``, on by default): when the first call's result answers the turn whole
   (a count change or a drafted order that succeeded, after nothing but product reads; today's sales, a period's sales or the store's
   health asked for without a write; the one product the owner's words name, or the low-stock list),
   code states it (``assistant.replies``, the router's sentences) and no reply step runs: the model
   would only restate the result, and a model-written restatement also costs the output guard's
   check. Recorded as ``reply_source: "code-direct"``; anything that needs wording (several
   products, a catalog question, a comparison, a general question) stays the model's.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from jsonschema import Draft202012Validator

from assistant import replies, sentences
from assistant.events import ToolsShortlisted
from assistant.grounding import ground
from assistant.model_log import ask
from assistant.modes.base import ModeOutcome, TurnContext
from assistant.modes.client_tools import CLIENT_TOOLS, is_client_tool
from assistant.modes.router.actions import Decision, _ask_for
from assistant.modes.router.mode import asks_about_sales, past_period
from assistant.numbers import canonical, said_values
from assistant.reply_numbers import (
    misattributed_numbers,
    numbers_in,
    unsupported_numbers,
)
from assistant.reply_words import said_beyond
from assistant.retrieval import DEFAULT_K, ESCAPE_HATCH, tool_shortlist
from assistant.types import Outcome
from inference.base import ModelRequest, Role, parse_json
from mcp_gateway.registry import tool_get, tool_list
from packs.source import store_pack_key

from . import common, intent, sales, template

CALL_TOKENS = 96
REPLY_TOKENS = 240
REPLY_CHARS = 400  # one or two spoken sentences; the grammar ends a longer one (a bound on decoding time)
FORMAT_RULE = (
    "\nAnswer with exactly one JSON object. First a tool call {\"name\": ..., \"arguments\": {...}}: a store tool for "
    "the store, ask_general for greetings, reactions and general questions. After the tool results, "
    "{\"reply\": \"...\"} when they answer the owner, or another call."
)
# The router's example requests (the business type's pack) rewritten as the native calls they need.
_EXAMPLE_CALLS = {
    "todays_sales": ("get_todays_transactions", {}), "store_health": ("reconcile_inventory", {}),
    "low_stock": ("get_inventory", {"filter": "low"}), "list_products": ("get_inventory", {"filter": "all"}),
    "play_demo": ("play_demo_video", {}),
}
_GENERAL_EXAMPLES = 3
# The tool that continues each action the conversation remembers ("another one", "and its price").
_ACTION_TOOL = {
    "find_product": "get_inventory", "list_products": "get_inventory", "low_stock": "get_inventory",
    "play_guide": "play_audio_guide", "play_demo": "play_demo_video", "draft_restock": "place_reorder",
}
_ITEM = {"type": "string", "minLength": 1, "maxLength": 120}
_LIST_ITEMS = frozenset({"all", "everything", "products", "all products", "every product", "catalog", "low",
                         "low stock", "low items", "all low items"})
_CLIENT = {tool["name"]: tool for tool in CLIENT_TOOLS}


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def model_schema(name: str) -> dict[str, Any]:
    """The arguments the model writes for ``name``: the registry's schema less the fields code owns.

    update_inventory: no expectedStock (the ledger's). place_reorder: item names only (code sets
    quantities) and confirmed. Email reports: no recipient (the store's own address).
    """
    if name in _CLIENT:
        return copy.deepcopy(_CLIENT[name]["parameters"])
    if name == "update_inventory":
        return _object({"item": _ITEM, "stock": {"type": "integer", "minimum": 0, "maximum": 100000}},
                       required=("item", "stock"))
    if name == "place_reorder":
        return _object({"items": {"type": "array", "minItems": 1, "maxItems": 20,
                                  "items": _object({"item": _ITEM}, required=("item",))},
                        "confirmed": {"type": "boolean"}}, required=("confirmed",))
    if name in ("send_inventory_report", "send_sales_report"):
        return _object({})
    spec = tool_get(name)
    if spec is None:
        raise KeyError(name)
    return copy.deepcopy(spec.input_schema)


def example_call(say: str, answer: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The native call a router example of the business type's pack needs (None: not one call)."""
    action, item = answer.get("action"), answer.get("item")
    if item == "it":
        return None  # a follow-up: its product comes from the conversation, not the words
    if action == "find_product" and item:
        return "get_inventory", {"item": item}
    if action == "draft_restock":
        return "place_reorder", ({"items": [{"item": item}], "confirmed": False} if item else {"confirmed": False})
    if action == "update_count" and item:
        numbers = [int(word) for word in re.findall(r"\b\d+\b", say)]
        return ("update_inventory", {"item": item, "stock": numbers[0]}) if len(numbers) == 1 else None
    if action == "play_guide":
        return "play_audio_guide", ({"topic": answer["topic"]} if answer.get("topic") else {})
    if action == "email_report":
        return ("send_sales_report" if answer.get("kind") == "sales" else "send_inventory_report"), {}
    if action == "general":
        return "ask_general", {"question": say}
    if action == "list_products" and item:
        return None  # a group ("lentils"): grounded by code, not worth a line of prompt
    return _EXAMPLE_CALLS.get(str(action))


def examples_prompt(business_type: str) -> str:
    """A few of the business type's example requests with the call each needs (static per type: cached)."""
    from assistant.modes.router.prompt import router_pack

    try:
        pack = router_pack(business_type)
    except ImproperlyConfigured:  # a business type without a pack: no examples, the tool descriptions still apply
        return ""
    lines, seen = [], set()
    for say, answer in pack.examples:
        # One example per kind of request (what is asked, with or without a product, which topic or report),
        # a few for the general path: short, yet every tool and argument shape is shown.
        call = example_call(say, answer)
        key = (answer.get("action"), answer.get("ask"), bool(answer.get("item")), answer.get("topic"), answer.get("kind"))
        if answer.get("action") == "general":
            key = ("general", say) if sum(1 for seen_key in seen if seen_key[0] == "general") < _GENERAL_EXAMPLES else key
        if call is None or key in seen:
            continue
        seen.add(key)
        lines.append(f"{say} -> " + json.dumps({"name": call[0], "arguments": call[1]}, separators=(",", ":")))
    return "\nExamples (owner's words -> first call):\n" + "\n".join(lines) if lines else ""


def declared_tools() -> list[dict[str, Any]]:
    """Every tool in the chat-template shape, always the same and in registry order.

    The declarations follow the system prompt in the rendered prompt, so a per-turn shortlist here
    made the prompt differ from the owner's words' start onwards about 1,400 tokens in, and llama.cpp
    re-read the rest (500-900 tokens) on every call. Declared whole and fixed, everything before the
    owner's words is the same on every call of a store and served from the prefix cache; the shortlist
    restricts the model only through the grammar (``call_schema``).
    """
    tools = []
    for name in [spec.name for spec in tool_list()] + list(_CLIENT):
        description = _CLIENT[name]["description"] if name in _CLIENT else tool_get(name).description
        if name == "update_inventory":  # expectedStock is filled by code, so its instruction is left out
            description = description.split(" expectedStock")[0]
        tools.append({"type": "function", "function": {"name": name, "description": description,
                                                       "parameters": model_schema(name)}})
    return tools


def call_schema(shortlist: list[str]) -> dict[str, Any]:
    """One of the shortlisted calls, or a plain reply (seed 002's ``call_schema``)."""
    calls = [_object({"name": {"const": name}, "arguments": model_schema(name)}, required=("name", "arguments"))
             for name in shortlist]
    reply = _object({"reply": {"type": "string", "minLength": 1, "maxLength": REPLY_CHARS}}, required=("reply",))
    return {"anyOf": [*calls, reply]}


@dataclass
class _Checked:
    """A validated model answer: a reply, a call ready to run, an answer code gives instead, or a problem."""

    reply: str | None = None
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    answer: ModeOutcome | None = None
    problem: str = ""


class Harness:
    """One hardened turn."""

    def __init__(self, ctx: TurnContext, *, k: int = DEFAULT_K, code_replies: bool = True) -> None:
        self.ctx = ctx
        self.code_replies = code_replies
        extra = [_ACTION_TOOL[ctx.state.last_action]] if ctx.state.last_action in _ACTION_TOOL else []
        self.shortlist = tool_shortlist(ctx.words.text, k=k, extra=extra, always=(ESCAPE_HATCH,))
        self.tools = declared_tools()
        self.schema = call_schema(self.shortlist)
        # After results, a write stays decodable only if the owner's words asked for that kind of write
        # (the policy's own reading of them), so a loop that started with a lookup cannot drift into an
        # order or a count change. The first step keeps the whole shortlist: a write asked for there
        # still meets the policy in the gateway, refused and audited.
        words = ctx.policy.words
        asked = {"update_inventory": words.asks_count_change, "place_reorder": words.asks_order,
                 "send_inventory_report": words.asks_report, "send_sales_report": words.asks_report}
        self.call_only_schema = {"anyOf": call_schema(self.shortlist)["anyOf"][:-1]}
        # After results the reply branch is the answer; ask_general is not, because the general model cannot see
        # the store's results (escalating then would answer a store question without them).
        self.followup_schema = call_schema([name for name in self.shortlist
                                            if asked.get(name, True) and name != ESCAPE_HATCH])
        self.steps: list[common.Step] = []
        self.audit: dict[str, Any] = {"variant": "hardened", "k": k, "shortlist": self.shortlist, "repairs": [],
                                      "reply_source": None}
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": common.system_prompt(ctx) + FORMAT_RULE
             + examples_prompt(store_pack_key(ctx.store))},
            {"role": "user", "content": common.user_prompt(ctx)},
        ]

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> ModeOutcome:
        self.ctx.emit(ToolsShortlisted(shortlist=tuple(self.shortlist)))
        call_repaired = reply_repaired = False
        calls_only = False
        for number in range(common.MAX_STEPS):
            # The first step is always one of the shortlisted calls (ask_general, always listed, is the path for
            # greetings and general questions: escalation to the general model). A plain reply is decodable only
            # once tool results exist, so no store fact can be stated before a tool ran.
            schema = self.call_only_schema if calls_only or not self.steps else self.followup_schema
            if self.steps and not calls_only and any(step.client is not None for step in self.steps):
                # Media played: its result answers the turn, so only the reply is left (no second film or guide).
                schema = {"anyOf": schema["anyOf"][-1:]}
            response = ask(
                ModelRequest(role=Role.NATIVE, prompt=template.render(self.messages, self.tools), temperature=0.0,
                             max_tokens=REPLY_TOKENS if self.steps else CALL_TOKENS, json_schema=schema,
                             schema_name="native_step", stop=("<|im_end|>",)),
                purpose=f"native hardened step {number + 1}",
            )
            calls_only = False
            value = response.parsed if response.parsed is not None else parse_json(response.text.strip())
            checked = self.check(value)
            if checked.reply is not None and not self.steps:
                checked = _Checked(problem="call a tool first: use ask_general when no store tool fits")
            if checked.problem:
                if call_repaired:
                    return self.fallback(f"invalid twice: {checked.problem}")
                call_repaired = True
                self.repair(response.text, f"Your answer was invalid: {checked.problem}. Answer again with one JSON object.",
                            checked.problem)
                continue
            if checked.answer is not None:
                self.audit["reply_source"] = "harness"
                return self.done(checked.answer)
            if checked.reply is not None:
                problem, described = self.reply_problem(checked.reply)
                if not problem:
                    return self.finish(checked.reply, source="model", model_written=True)
                if reply_repaired:
                    return self.fallback(f"reply: {problem}")
                reply_repaired = True
                calls_only = described
                self.repair(response.text, problem, f"reply: {problem}")
                continue
            if any(step.name == checked.name and step.arguments == checked.arguments for step in self.steps):
                return self.fallback("the model repeated a call")
            step = common.run_call(self.ctx, checked.name, checked.arguments)
            self.steps.append(step)
            if step.refused:
                self.audit["reply_source"] = "refusal"
                return self.done(common.refusal(self.ctx, self.steps))
            if step.name == "ask_general":  # escalation: the general model's answer is the reply
                return self.finish(step.data.get("answer") or sentences.say(common.CLARIFY), source="escalation", model_written=True)
            direct = common.code_reply(self.ctx, self.steps) if self.answers_whole(step) else None
            if direct:
                return self.finish(direct, source="code-direct")
            self.messages += [template.tool_call_message([(step.name, step.arguments)]),
                              {"role": "tool", "content": common.result_for_model(step)}]
        return self.fallback("six steps without a reply")

    def answers_whole(self, step: common.Step) -> bool:
        """Whether the turn's first result is the whole answer, so code can state it (see the module's point 6)."""
        if not self.code_replies or not step.ok:
            return False
        earlier = self.steps[:-1]  # code's own reads for this call, or the model's earlier calls
        if step.client is not None:  # the film or guide playing is the answer; after it only a reply was decodable
            return step.name in ("play_demo_video", "play_audio_guide") and not earlier
        if step.name in ("update_inventory", "place_reorder"):
            # A write that went through is said whole by its result; reads before it only prepared it.
            return all(s.ok and s.name == "get_inventory" and "product" in s.data for s in earlier)
        if earlier:
            return False
        words = self.ctx.policy.words
        if words.asks_count_change or words.asks_order or words.asks_report:
            return False  # a read on the way to a write the owner asked for
        if step.name in ("get_sales", "reconcile_inventory"):
            return True
        if step.name == "get_todays_transactions":
            return not past_period(self.ctx.words.text)
        if step.name != "get_inventory" or asks_about_sales(self.ctx.words.text):
            return False  # a product read for a sales question ("how much paneer went out last week") is not its answer
        named = self.ctx.ground(last_product=self.ctx.state.last_product or None)  # "and how much is it"
        if isinstance(step.data.get("product"), dict):
            return (len(named.products) == 1 and not named.ambiguous
                    and named.products[0].name == step.data["product"].get("name"))
        if step.data.get("filter") == "all":  # the whole list, unless the words name a group to pick from it
            return not (named.products or named.group or named.unknown or named.ambiguous)
        return step.data.get("filter") == "low"

    def reply_problem(self, reply: str) -> tuple[str, bool]:
        """What is wrong with a reply written after tool results: (repair message, re-ask with calls only).

        Code owns every number spoken back: each must come from the results or the owner's words, and a
        single-product answer must carry the fact the owner asked for (count, price, shelf). A reply that
        claims a client tool's effect ("here is the video") when that tool did not run describes a step
        instead of taking it.
        """
        ran = {step.name for step in self.steps if step.ok}
        for name, pattern in _DESCRIBED.items():
            if name in self.shortlist and name not in ran and pattern.search(reply):
                return f"You did not call {name}. Call it now.", True
        results = [common.shown_to_model(step) for step in self.steps]
        unsupported = unsupported_numbers(reply, results, self.ctx.words.numbers)
        if unsupported:
            return (f"The reply says {', '.join(unsupported)}, which is not in the tool results. "
                    "Use only numbers from the tool results."), False
        swapped = misattributed_numbers(reply, results, self.ctx.words.numbers)
        if swapped:
            product, number = swapped[0]
            return (f"The reply gives {product} the number {number}, which is another product's. "
                    f"Say {product}'s own numbers from the tool results."), False
        beyond = said_beyond(reply, results=results, owner_text=self.ctx.words.text,
                             catalog=[(entry.name, tuple(entry.aliases)) for entry in self.ctx.catalog.entries])
        if beyond:
            return _BEYOND[beyond.kind].format(", ".join(repr(word) for word in beyond.said[:4])), False
        for step in self.steps:
            missing = _missing_write_facts(step, reply) if step.ok else None
            if missing:
                return f"The reply must say what was done: {missing}, from the tool result.", False
        lookups = [step for step in self.steps if step.ok and step.name == "get_inventory" and "product" in step.data]
        if len(lookups) == 1 and len(self.steps) == 1:
            missing = _missing_fact(lookups[0].data["product"], _ask_for(Decision(action="find_product"), self.ctx.words.text),
                                    reply)
            if missing:
                return f"The owner asked for the {missing[0]}: say {missing[1]!r} from the tool result.", False
        return "", False

    def repair(self, said: str, message: str, note: str) -> None:
        self.audit["repairs"].append(note)
        self.messages += [{"role": "assistant", "content": said.strip()}, {"role": "user", "content": message}]

    def fallback(self, why: str) -> ModeOutcome:
        reply = common.code_reply(self.ctx, self.steps)
        self.audit["fallback"] = why
        if reply is None:
            return self.finish(sentences.say(common.CLARIFY), source="clarify", result=Outcome.CLARIFIED)
        return self.finish(reply, source="code")

    def finish(self, reply: str, *, source: str, model_written: bool = False,
               result: Outcome = Outcome.ANSWERED) -> ModeOutcome:
        self.audit["reply_source"] = source
        return self.done(common.outcome(self.ctx, self.steps, " ".join(reply.split()), model_written=model_written,
                                        result=result))

    def done(self, outcome: ModeOutcome) -> ModeOutcome:
        self.audit["steps"] = [step.name for step in self.steps]
        _audit(self.ctx, self.audit)
        return outcome

    # -- validation ----------------------------------------------------------------------------

    def check(self, value: Any) -> _Checked:
        if not isinstance(value, dict):
            return _Checked(problem="it must be one JSON object")
        if "reply" in value:
            reply = value.get("reply")
            if set(value) != {"reply"} or not isinstance(reply, str) or not reply.strip():
                return _Checked(problem="reply: must be the only field, a non-empty string")
            return _Checked(reply=reply.strip())
        name = value.get("name")
        if name not in self.shortlist:
            return _Checked(problem=f"name: {str(name)[:40]!r} is not one of {', '.join(self.shortlist)}")
        arguments = value.get("arguments")
        if not isinstance(arguments, dict):
            return _Checked(problem="arguments: must be an object")
        problem = _schema_problem(model_schema(name), arguments)
        if problem:
            return _Checked(problem=problem)
        return self.prepare(name, dict(arguments))

    def prepare(self, name: str, arguments: dict[str, Any]) -> _Checked:
        """Semantic checks and the fields code owns; the registry schema checks the result."""
        if not self.steps:  # the router's rules for a nutrition or general question the model read as a product
            name, arguments = intent.first_call(self.ctx, name, arguments)
        answer = sales.period_answer(self.ctx, name) if not self.steps else None
        if answer is not None:  # selling over a past period: the router's sales action (``sales``)
            self.audit["repairs"].append(f"{name}: sales over a past period, answered by code")
            return _Checked(answer=answer)
        if sales.today_alone(self.ctx, name, arguments):
            name, arguments = "get_todays_transactions", {}
        if name == "get_inventory" and str(arguments.get("item", "")).strip().lower() in _LIST_ITEMS:
            # "all" or "low" written as an item means the list filter of the same name, not a product.
            item = str(arguments["item"]).strip().lower()
            arguments = {"filter": "low" if "low" in item else "all"}
        elif name == "get_inventory" and arguments.get("item"):
            product, answer, problem = self.product(arguments["item"], list_ok=True)
            if problem or answer:
                return _Checked(problem=problem, answer=answer)
            arguments = {"filter": "all"} if product is None else {"item": product}
        elif name == "update_inventory":
            product, answer, problem = self.product(arguments["item"])
            if problem or answer:
                return _Checked(problem=problem, answer=answer)
            read = self.read(product)
            if read is None:
                return _Checked(answer=common.refusal(self.ctx, self.steps) or self.failed())
            arguments = {"item": product, "stock": arguments["stock"], "expectedStock": read["stock"]}
        elif name == "place_reorder" and arguments.get("items") and self.names_nothing():
            # Items must come from the conversation (seed 002's provenance check). The owner named no product
            # ("restock the low stuff"), so the model's items are invented: the call the owner asked for is the
            # tool's own "no items: every low item". Recorded as a repair made by code.
            self.audit["repairs"].append("items dropped: the owner named no product")
            arguments = {"confirmed": arguments["confirmed"]}
        elif name == "place_reorder" and arguments.get("items"):
            items = []
            for position, line in enumerate(arguments["items"]):
                product, answer, problem = self.product(line["item"], field=f"items[{position}].item")
                if problem or answer:
                    return _Checked(problem=problem, answer=answer)
                items.append(product)
            arguments = {"items": [{"item": product, "qty": self.quantity(product, len(items))} for product in items],
                         "confirmed": arguments["confirmed"]}
            if any(line["qty"] is None for line in arguments["items"]):
                return _Checked(answer=self.failed())
        if not is_client_tool(name):
            problem = _schema_problem(tool_get(name).input_schema, arguments)
            if problem:
                return _Checked(problem=problem)
        return _Checked(name=name, arguments=arguments)

    def product(self, words: str, *, field: str = "item", list_ok: bool = False) -> tuple[str | None, ModeOutcome | None, str]:
        """The catalog product the model's item words and the owner's words name: (name, answer, problem)."""
        ctx = self.ctx
        grounding = ground(ctx.words.text, catalog=ctx.catalog, lexicon=ctx.lexicon,
                           last_product=ctx.state.last_product or None, hint=words)
        if grounding.products:
            return grounding.products[0].name, None, ""
        if list_ok and grounding.group:
            return None, None, ""  # a broad group ("any lentils"): the list answers it
        if grounding.unknown:
            return None, ModeOutcome(action="find_product", reply=replies.not_carried(grounding.unknown)), ""
        hint = ("leave items out to restock every low item" if field.startswith("items")
                else "for a general question call ask_general; for the product list leave item out")
        return None, None, f"{field}: {str(words)[:40]!r} is not a product the owner named; {hint}"

    def names_nothing(self) -> bool:
        """Whether the owner's words (with "it" for the last product) name no product, group or unknown product."""
        ctx = self.ctx
        grounding = ground(ctx.words.text, catalog=ctx.catalog, lexicon=ctx.lexicon,
                           last_product=ctx.state.last_product or None)
        return not grounding.products and not grounding.group and not grounding.unknown and not grounding.ambiguous

    def read(self, product: str) -> dict[str, Any] | None:
        """The product as the ledger has it now (a get_inventory call, audited like any other)."""
        step = common.run_call(self.ctx, "get_inventory", {"item": product})
        self.steps.append(step)
        return step.data["product"] if step.ok else None

    def quantity(self, product: str, lines: int) -> int | None:
        """The owner's number for a single product, else the ledger's suggested reorder quantity."""
        numbers = self.ctx.words.numbers
        if lines == 1 and len(numbers) == 1 and 1 <= numbers[0] <= 1000:
            return numbers[0]
        read = self.read(product)
        if read is None:
            return None
        return read.get("suggestedReorderQty") or read.get("parLevel") or 1

    def failed(self) -> ModeOutcome:
        step = self.steps[-1]
        return ModeOutcome(action=common.action_of(self.steps), reply=f"Sorry, that didn't work: {step.message}",
                           outcome=Outcome.ERROR)


_BEYOND = {
    "names": "The reply names {}, which the tool results do not. Speak only of the products in the results.",
    "units": "The reply says {}, a unit the tool results do not give. Use the units in the results.",
    "words": "The reply adds {}, which the tool results do not say. Say only what the results say, plainly.",
}
_DESCRIBED = {
    "play_demo_video": re.compile(r"\b(demo|video|film)\b", re.IGNORECASE),
    "play_audio_guide": re.compile(r"\b(guide|playing|here'?s a tip|here is a tip)\b", re.IGNORECASE),
}


def _said(reply: str) -> set[str]:
    """The numbers a reply says (digits, words, spoken prices), with the whole part of each decimal."""
    said = {canonical(value) for value in said_values(reply)}
    return said | {number.split(".")[0] for number in said}


def _missing_write_facts(step: common.Step, reply: str) -> str:
    """What a reply must repeat from a write the turn made (empty when it does): the owner approves what they hear."""
    said = _said(reply)
    if step.name == "place_reorder" and step.data.get("lines"):
        wanted = [str(line["qty"]) for line in step.data["lines"]] if len(step.data["lines"]) == 1 else []
        total = numbers_in(str(step.data.get("estimatedTotal", "")))
        wanted += sorted({number.split(".")[0] for number in total})
        missing = [value for value in wanted if value not in said]
        return f"say {', '.join(missing)} (the draft's quantity and estimated total)" if missing else ""
    if step.name == "update_inventory" and step.data.get("stock") is not None:
        return "" if str(step.data["stock"]) in said else f"say the new count {step.data['stock']}"
    return ""


def _missing_fact(product: dict[str, Any], ask: str, reply: str) -> tuple[str, str] | None:
    """(what, value) when the reply leaves out the product fact the owner asked for."""
    said = _said(reply)
    if ask in ("count", "available") and product.get("stock") is not None:
        if ask == "available" and product["stock"] == 0:
            return None
        return None if str(product["stock"]) in said else ("count", str(product["stock"]))
    if ask == "price" and product.get("price") is not None:
        return None if numbers_in(str(product["price"])) & said else ("price", str(product["price"]))
    if ask == "where" and product.get("location"):
        place = str(product["location"]).split(",")[0].strip()  # "Aisle 2" of "Aisle 2, bottom shelf, left"
        return None if place.lower() in reply.lower() else ("shelf", str(product["location"]))
    return None


def _schema_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    errors = sorted(Draft202012Validator(schema).iter_errors(arguments), key=lambda error: list(error.path))
    if not errors:
        return ""
    error = errors[0]
    where = ".".join(str(part) for part in error.path)
    return f"arguments{'.' + where if where else ''}: {error.message[:120]}"


def _audit(ctx: TurnContext, data: dict[str, Any]) -> None:
    """The harness's own decisions (shortlist, repairs, where the reply came from) in the turn's audit."""
    from audit.models import Record, Turn
    from audit.turns import event_record

    if ctx.caller.turn_id is None:
        return
    turn = Turn.objects.filter(pk=ctx.caller.turn_id).first()
    if turn is not None:
        event_record(turn=turn, kind=Record.Kind.EVENT, name="native_harness", data=json.loads(json.dumps(data)))


def handle(ctx: TurnContext, *, k: int = DEFAULT_K, code_replies: bool = True) -> ModeOutcome:
    return Harness(ctx, k=k, code_replies=code_replies).run()

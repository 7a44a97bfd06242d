"""The small model's loop: ask for the next protocol line, run the call it names, append the result, repeat.

One turn (seed 000 §3.3, ``assistant.modes.small.protocol``):

1. Code renders the prompt: the ``Catalog`` line (``catalog_line_names``), the previous turn of
   this conversation compacted (``compact_lines``: owner words, calls, a short answer), the
   ``Owner`` line.
2. The model writes the next line after ``###``: ``Call: tool {json}`` or ``Answer: ...``.
3. A call runs through ``ctx.call_tool`` (MCP tools, with the owner-words policy and the audit)
   or ``client_tools.run_client_tool``; code appends ``### Result: `` + ``result_line(...)``; at
   most ``MAX_STEPS`` calls.
4. An ``Answer`` ends the turn. One that states a number or product fact before any tool ran
   is re-asked once with the line forced to start as ``### Call:``.

What must be exact stays in code: item words are grounded in the catalog from the owner's
words (the model's item is only a hint); an unknown product gets "we don't carry" from code;
``update_inventory``'s stock is the number the owner said and its expected stock the ledger's;
``place_reorder``'s quantity is the owner's number or the ledger's suggestion and ``confirmed``
is always false; a refused write ends the turn with code's "I didn't change anything".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assistant import replies, sentences
from assistant.grounding import ground
from assistant.model_log import ask
from assistant.modes.small import protocol
from assistant.modes.small.protocol import MAX_STEPS, Call, parse_call, parse_next
from assistant.numbers import amounts_in
from assistant.reply_numbers import misattributed_numbers, numbers_in
from assistant.sentences import say
from assistant.types import Outcome
from inference.base import InferenceError, ModelRequest, Role

if TYPE_CHECKING:
    from assistant.media.library import MediaItem
    from assistant.modes.base import ModeOutcome, TurnContext

HISTORY_ANSWER_LIMIT = 100  # characters of an earlier turn's answer kept in the prompt
LINE_TOKENS = 96  # one protocol line
MAX_LINE_TOKENS = 512  # an answer that restates a long result (the catalog's 38 names) may need more
CHARS_PER_TOKEN = 3  # a low estimate for product names, so the budget errs long
PROMPT_END = "###"  # the model continues with " Call: ..." or " Answer: ..." (see train.encode)
FORCED_CALL = "### Call:"
UNAVAILABLE = sentences.MODEL_UNAVAILABLE
CLARIFY = sentences.CLARIFY
TOO_MANY = sentences.TOO_MANY_STEPS
ACTIONS = {"play_demo_video": "play_demo", "play_audio_guide": "play_guide", "ask_general": "general"}
_FACT = re.compile(r"\d|\$|\b(aisle|shelf|cooler|freezer|in stock|left|price|costs?|units?|bags?|bottles?)\b", re.IGNORECASE)


def _tag(line: Any) -> str:
    return str(line["tag"] if isinstance(line, dict) else line[0])


def _text(line: Any) -> str:
    return str(line["text"] if isinstance(line, dict) else line[1])


def compact_lines(lines: list[Any]) -> list[Any]:
    """A record's lines as the model sees them: the catalog, the previous turn compacted, the current turn.

    Only the last earlier turn is kept, without its result lines, its answer cut to
    ``HISTORY_ANSWER_LIMIT`` characters: enough for "it" and "another one", short enough to be cheap.
    The trainer and the runtime both use this, so prompts cannot drift apart.
    """
    owners = [i for i, line in enumerate(lines) if _tag(line) == "Owner"]
    if len(owners) < 2:
        return list(lines)
    head = [line for line in lines[: owners[0]] if _tag(line) == "Catalog"]
    previous: list[Any] = []
    for line in lines[owners[-2]: owners[-1]]:
        tag = _tag(line)
        if tag == "Result":
            continue
        text = " ".join(_text(line).split())
        if tag == "Answer" and len(text) > HISTORY_ANSWER_LIMIT:
            text = text[: HISTORY_ANSWER_LIMIT - 1].rstrip() + "…"
        previous.append({"tag": tag, "text": text, "train": False})
    return head + previous + list(lines[owners[-1]:])


def states_fact(answer: str) -> bool:
    """Whether an answer claims a number or a product fact (which only a tool result may supply)."""
    return bool(_FACT.search(answer) or amounts_in(answer))


def previous_turn_lines(ctx: TurnContext) -> list[dict[str, Any]]:
    """The conversation's previous turn as protocol lines (owner words, calls, answer), from the audit."""
    from audit.models import Turn

    if ctx.turn_index <= 1:
        return []
    turn = (
        Turn.objects.filter(store=ctx.store, conversation=ctx.state.key, index=ctx.turn_index - 1)
        .order_by("-id").first()
    )
    if turn is None:
        return []
    lines: list[dict[str, Any]] = [{"tag": "Owner", "text": turn.normalized or turn.text}]
    for call in (turn.result or {}).get("tool_calls") or []:
        if call.get("tool"):
            lines.append({"tag": "Call", "text": Call(call["tool"], dict(call.get("arguments") or {})).line()[len(protocol.CALL):]})
    if turn.reply:
        lines.append({"tag": "Answer", "text": turn.reply})
    return lines


@dataclass
class Loop:
    """One turn's state while the loop runs."""

    ctx: TurnContext
    lines: list[dict[str, Any]]
    tools_ran: int = 0
    media: list[MediaItem] = field(default_factory=list)
    lookups: list[dict[str, Any]] = field(default_factory=list)  # single products looked up
    action: str | None = None
    last_product: str | None = None
    offered_draft_id: int | None = None
    topic: str | None = None
    guide: str | None = None
    turn_start: int = 0  # index of this turn's first line after the Owner line
    done: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)  # (tool, args, data) that succeeded

    def prompt(self, *, end: str = PROMPT_END) -> str:
        return protocol.render(compact_lines(self.lines)) + end

    def outcome(self, reply: str, *, model_written: bool, outcome: Outcome = Outcome.ANSWERED) -> ModeOutcome:
        from assistant.modes.base import ModeOutcome

        media = list(self.media)
        if len(self.lookups) == 1 and self.lookups[0].get("photoUrl"):
            product = self.lookups[0]
            from assistant.media.library import MediaItem

            media.insert(0, MediaItem(kind="photo", url=product["photoUrl"],
                                      title=f"{product['name']}: {product.get('location', '')}"))
        return ModeOutcome(
            action=self.action or "chat", reply=reply, outcome=outcome, model_written=model_written, media=media,
            offered_draft_id=self.offered_draft_id, last_product=self.last_product, topic=self.topic, guide=self.guide,
        )


def line_budget(lines: list[Any]) -> int:
    """Tokens for the next line: one line's worth, and room to restate the result just before it.

    An answer may say a whole result back ("We carry 38 products: Assam tea, ..."); cut at a fixed
    budget it stopped mid-list, so the owner heard part of the catalog.
    """
    if lines and _tag(lines[-1]) == "Result":
        return min(MAX_LINE_TOKENS, LINE_TOKENS + len(_text(lines[-1])) // CHARS_PER_TOKEN)
    return LINE_TOKENS


def _next_line(loop: Loop, *, forced: bool = False) -> str:
    response = ask(
        ModelRequest(role=Role.SMALL, prompt=loop.prompt(end=FORCED_CALL if forced else PROMPT_END), temperature=0.0,
                     max_tokens=line_budget(loop.lines), stop=("\n",)),
        purpose="small forced call" if forced else "small step",
    )
    return response.text.split("\n", 1)[0]


def run_turn(ctx: TurnContext) -> ModeOutcome:
    """Run the small model's loop for one turn and return what it did."""
    names = protocol.catalog_line_names(ctx.catalog, ctx.words.text, ctx.state.last_product or None,
                                        lexicon=ctx.lexicon)
    catalog = [{"tag": "Catalog", "text": "; ".join(names)}] if names else []
    lines = [*catalog, *previous_turn_lines(ctx), {"tag": "Owner", "text": ctx.words.text}]
    loop = Loop(ctx=ctx, lines=lines, turn_start=len(lines))
    forced_once = False
    try:
        for _ in range(MAX_STEPS + 1):
            raw = _next_line(loop)
            parsed = parse_next(raw.strip())
            if parsed is not None and parsed[0] == "Answer":
                answer = parsed[1].strip()
                if loop.tools_ran == 0 and not forced_once and (states_fact(answer) or not answer):
                    forced_once = True
                    call = parse_call(_next_line(loop, forced=True))
                    if call is None:
                        return loop.outcome(say(CLARIFY), model_written=False, outcome=Outcome.CLARIFIED)
                else:
                    if not answer:
                        return loop.outcome(say(CLARIFY), model_written=False, outcome=Outcome.CLARIFIED)
                    return _checked_answer(loop, answer)
            else:
                call = parse_call(parsed[1]) if parsed is not None else None
                if call is None:  # a malformed line: nothing runs on a guess
                    return loop.outcome(say(CLARIFY), model_written=False, outcome=Outcome.CLARIFIED)
            if loop.tools_ran >= MAX_STEPS:
                break
            text = Call(call.name, call.arguments).line()[len(protocol.CALL):]
            if any(line["tag"] == "Call" and line["text"] == text for line in loop.lines[loop.turn_start:]):
                # The same call again would return the same result: the model is looping. Answer from it.
                reply = code_reply(loop)
                if reply is not None:
                    return loop.outcome(reply, model_written=False)
                return loop.outcome(say(TOO_MANY), model_written=False, outcome=Outcome.CLARIFIED)
            finished = _run_call(loop, call)
            if finished is not None:
                return finished
    except InferenceError:
        return loop.outcome(say(UNAVAILABLE), model_written=False, outcome=Outcome.ERROR)
    return loop.outcome(say(TOO_MANY), model_written=False, outcome=Outcome.CLARIFIED)


def _ground_item(loop: Loop, item: Any) -> tuple[str | None, str | None]:
    """(catalog name, unknown words) for a model's item, grounded in the owner's words first."""
    ctx = loop.ctx
    hint = item if isinstance(item, str) and item.strip() else None
    grounding = ground(ctx.words.text, catalog=ctx.catalog, lexicon=ctx.lexicon,
                       last_product=ctx.state.last_product or None, hint=hint)
    if grounding.products:
        return grounding.products[0].name, None
    if hint:
        entry = ctx.catalog.entry_named(hint)
        if entry is not None and not grounding.unknown:
            return entry.name, None
    if grounding.unknown:
        return None, grounding.unknown
    return None, None


def _run_call(loop: Loop, call: Call) -> ModeOutcome | None:
    """Run one call, append its lines; a ModeOutcome when code ends the turn instead of the model."""
    from assistant.modes.client_tools import is_client_tool, run_client_tool
    from assistant.modes.small.results import result_line

    ctx = loop.ctx
    name, args = call.name, dict(call.arguments)
    if loop.action is None:
        loop.action = ACTIONS.get(name, name)
    if is_client_tool(name):
        done = run_client_tool(ctx, name, args)
        loop.tools_ran += 1
        loop.media.extend(done.media)
        loop.topic = done.topic or loop.topic
        loop.guide = done.guide or loop.guide
        loop.done.append((name, args, done.data))
        loop.lines += [{"tag": "Call", "text": Call(name, args).line()[len(protocol.CALL):]},
                       {"tag": "Result", "text": result_line(name, done.data)}]
        return None
    numbers = list(ctx.words.numbers)
    if name in ("get_inventory", "update_inventory") and "item" in args:
        product, unknown = _ground_item(loop, args.get("item"))
        if product is None and unknown and name == "update_inventory":
            return loop.outcome(replies.not_carried(unknown), model_written=False)
        if product is not None:
            args["item"] = product
        elif unknown:
            args["item"] = unknown  # the tool's own matching gets the owner's words
    if name == "update_inventory":
        args.pop("expectedStock", None)  # always the ledger's count, filled below
        if len(numbers) == 1:
            args["stock"] = numbers[0]
    if name == "place_reorder":
        args.pop("draftId", None)
        items = args.get("items")
        if isinstance(items, list) and items:
            grounded = []
            for entry in items:
                item = entry.get("item") if isinstance(entry, dict) else entry
                product, unknown = _ground_item(loop, item)
                if product is None:
                    return loop.outcome(replies.not_carried(unknown or str(item)), model_written=False)
                grounded.append({"item": product})
            if len(grounded) == 1 and len(numbers) == 1:
                grounded[0]["qty"] = numbers[0]
            args["items"] = grounded
        else:
            args.pop("items", None)
        args["confirmed"] = False
    result = ctx.call_tool(name, args)  # the arguments layer fills expectedStock and quantities (assistant/tool_args.py)
    loop.tools_ran += 1
    if not result.ok and result.outcome == "refused":
        return loop.outcome("I didn't change anything: " + result.message, model_written=False,
                            outcome=Outcome.REFUSED)
    from assistant.modes.small.results import not_found_words

    if not result.ok and name == "get_inventory":
        words = not_found_words(result.data or {}, result.message)
        if words is not None:
            return loop.outcome(replies.not_carried(words or str(args.get("item", ""))), model_written=False)
    if result.ok:
        data = result.data or {}
        loop.done.append((name, args, data))
        if name == "get_inventory" and "product" in data:
            loop.lookups.append(data["product"])
            loop.last_product = data["product"]["name"]
        elif name == "update_inventory":
            loop.last_product = args.get("item")
        elif name == "place_reorder" and data.get("draftId"):
            loop.offered_draft_id = data["draftId"]
            items = args.get("items") or []
            loop.last_product = items[0]["item"] if len(items) == 1 else loop.last_product
    loop.lines += [{"tag": "Call", "text": Call(name, call.arguments).line()[len(protocol.CALL):]},
                   {"tag": "Result", "text": result_line(name, result.data, result.ok, result.message)}]
    return None


def _checked_answer(loop: Loop, answer: str) -> ModeOutcome:
    """The model's answer when every number in it came from this turn's results or the owner's words.

    Code owns every number spoken back: an answer quoting a number no result gave (a guessed
    count, a price from another product) is replaced by the reply code builds from the last result.
    """
    known = numbers_in(" ".join(line["text"] for line in loop.lines if line["tag"] in ("Result", "Owner")))
    results = [data for _, _, data in loop.done]
    if numbers_in(answer) <= known and not misattributed_numbers(answer, results, loop.ctx.words.numbers):
        return loop.outcome(answer, model_written=True)
    reply = code_reply(loop)
    if reply is None:
        return loop.outcome(say(CLARIFY), model_written=False, outcome=Outcome.CLARIFIED)
    return loop.outcome(reply, model_written=False)


def code_reply(loop: Loop) -> str | None:
    """The reply code writes from the last successful call's result, as the router's actions do."""
    from assistant.modes.router.actions import Decision, _ask_for

    if not loop.done:
        return None
    name, args, data = loop.done[-1]
    currency = data.get("currency", "USD") if isinstance(data, dict) else "USD"
    if name == "get_inventory" and "product" in data:
        return replies.product_answer(data["product"], _ask_for(Decision(action="find_product"), loop.ctx.words.text),
                                      currency)
    if name == "get_inventory" and "products" in data:
        if args.get("filter") == "low":
            return replies.low_items(data["products"])
        return replies.product_list(data["products"])
    if name == "get_todays_transactions":
        return replies.sales_today(data)
    if name == "reconcile_inventory":
        return replies.store_health(data)
    if name == "place_reorder" and data.get("draftId"):
        return replies.draft_offer(data)
    if name == "update_inventory":
        return replies.count_updated(data)
    if name in ("send_inventory_report", "send_sales_report"):
        return replies.report_sent(data)
    if name == "ask_general":
        return str(data.get("answer") or "") or None
    if name in ("play_demo_video", "play_audio_guide"):
        return f"Here is {data.get('playing', 'it')}."
    return None

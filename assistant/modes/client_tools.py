"""The tools a model-driven mode (native, small) sees besides the store's MCP tools.

The router names numbered actions and code plays the media; the native and small modes call
tools, so that the comparison is fair the same abilities are declared to them as tools:
playing the demo film, playing an audio guide, and handing a general question to the general
model (escalation, seed 002). These run on the client (or another model), not on the ledger:
``run_client_tool`` records them as simulator calls under the turn and returns what the model
is told, plus the media the client should render.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.media.library import GUIDE_TOPICS, MediaItem
from assistant.modes.base import TurnContext
from mcp_gateway.registry import tool_list

CLIENT_TOOLS: tuple[dict[str, Any], ...] = (
    {
        "name": "play_demo_video",
        "description": "Play the Shelfwise demo film on the owner's screen. Use only when the owner asks for the "
        "demo, the video or the film; not for questions about products.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    {
        "name": "play_audio_guide",
        "description": "Play a short audio guide: tips on running the store, or which of our foods are good "
        "sources of a nutrient. Use when the owner asks for a tip, advice, a guide, or another one; not for stock.",
        "parameters": {
            "type": "object",
            "properties": {"topic": {"type": "string", "enum": list(GUIDE_TOPICS), "description": "The guide's topic."}},
            "additionalProperties": False,
        },
    },
    {
        "name": "ask_general",
        "description": "Hand a general question (world knowledge, cooking, conversions, a greeting or small talk) "
        "to the general assistant and get its short answer. Never for the store's stock, prices, sales or orders.",
        "parameters": {
            "type": "object",
            "properties": {"question": {"type": "string", "minLength": 1, "maxLength": 300}},
            "required": ["question"],
            "additionalProperties": False,
        },
    },
)
CLIENT_TOOL_NAMES = frozenset(tool["name"] for tool in CLIENT_TOOLS)


def model_tools() -> list[dict[str, Any]]:
    """Every tool a model may call, as ``{"name", "description", "parameters"}``: the MCP tools, then the client's."""
    return [spec.model_view() for spec in tool_list()] + [dict(tool) for tool in CLIENT_TOOLS]


def openai_tools() -> list[dict[str, Any]]:
    """The same tools in the OpenAI / chat-template shape: ``{"type": "function", "function": {...}}``."""
    return [{"type": "function", "function": tool} for tool in model_tools()]


def is_client_tool(name: str) -> bool:
    return name in CLIENT_TOOL_NAMES


@dataclass
class ClientToolResult:
    """What a client tool did: the result the model is told, and media for the client to render."""

    data: dict[str, Any]
    media: list[MediaItem] = field(default_factory=list)
    guide: str | None = None
    topic: str | None = None


def run_client_tool(ctx: TurnContext, name: str, arguments: dict[str, Any]) -> ClientToolResult:
    """Run a client tool for this turn and record it as a tool call.

    Raises:
        KeyError: ``name`` is not a client tool (callers check ``is_client_tool`` first).
    """
    if name == "play_demo_video":
        from assistant.media.library import demo_media

        media = demo_media()
        data = {"playing": media.title}
        ctx.simulator_call(name, {}, data)
        return ClientToolResult(data=data, media=[media])
    if name == "play_audio_guide":
        from assistant.media.library import guide_media, guide_pick

        topic = arguments.get("topic")
        if topic not in GUIDE_TOPICS:
            topic = ctx.state.last_topic if ctx.state.last_action == "play_guide" else None
        guide = guide_pick(topic=topic, words=ctx.words.text, exclude=ctx.state.played_guides)
        data = {"playing": guide.title, "topic": str(guide.topic)}
        ctx.simulator_call(name, {"topic": guide.topic}, data)
        return ClientToolResult(data=data, media=[guide_media(guide)], guide=guide.slug, topic=str(guide.topic))
    if name == "ask_general":
        from assistant.general import general_answer
        from assistant.guard.store_facts import STORE_FACTS_NEUTRAL, store_fact_claims
        from assistant.sentences import say

        answer = general_answer(ctx)
        if store_fact_claims(answer):  # the general model saw no books: the native model must not relay this
            answer = say(STORE_FACTS_NEUTRAL)
        data = {"answer": answer}
        ctx.simulator_call(name, {"question": str(arguments.get("question") or ctx.words.text)}, data)
        return ClientToolResult(data=data)
    raise KeyError(name)

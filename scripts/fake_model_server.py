"""A fake OpenAI-compatible model server for load and fault runs: the model's process boundary,
answered by rules and paced like the real thing.

    python scripts/fake_model_server.py --port 8091 --latency-ms 900 --jitter-ms 300

Point the roles at it (``SHELFWISE_ROUTER_BACKEND=openai``, ``SHELFWISE_ROUTER_URL=http://127.0.0.1:8091/v1``,
``SHELFWISE_ROUTER_MODEL=fake``, and the same for ``GUARD`` and ``GENERAL``). Everything else in a
turn (guard classifier, grounding, policy, MCP tools, ledger, audit) runs for real.

* ``GET /v1/models``; ``POST /v1/chat/completions`` and ``/v1/completions``. A router request (a JSON
  schema with ``action``) gets the action its words ask for, by keyword: counts ("we have 15 ..."),
  restocking ("order ..."), today's sales, low stock, "where is ..."; a guard request (``verdict``)
  gets "safe"; anything else a short sentence.
* Each answer waits ``--latency-ms`` ± ``--jitter-ms`` (the bundled router's median call on this
  CPU is about 1.1 s, p90 1.5 s; README, "Measured figures").
* ``POST /control {"mode": "ok" | "hang" | "down"}``: fault injection. ``hang`` never answers
  (until the client's timeout), ``down`` answers 503.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

STATE = {"mode": "ok", "latency_ms": 900.0, "jitter_ms": 300.0, "calls": 0}
NUMBER = re.compile(r"\b(\d+)\b")


def _owner_words(body: dict) -> str:
    messages = body.get("messages") or []
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return str(body.get("prompt") or "")


def _item(text: str) -> str:
    lowered = text.lower().rstrip("?.! ")
    for marker in (" of ", " the ", " is ", " are ", " for "):
        if marker in lowered:
            return lowered.rsplit(marker, 1)[1].strip()
    return lowered.split()[-1] if lowered.split() else ""


def route(text: str) -> dict:
    """The action a router model would pick for these words (the load script's phrasings)."""
    lowered = text.lower()
    if NUMBER.search(lowered) and any(word in lowered for word in ("have", "counted", "there are", "we got")):
        return {"action": "update_count", "item": _item(text)}
    if any(word in lowered for word in ("order", "restock", "reorder")):
        return {"action": "draft_restock", "item": _item(text) if " of " in lowered else ""}
    if any(word in lowered for word in ("sales", "sold", "today")):
        return {"action": "todays_sales"}
    if "low" in lowered or "running out" in lowered:
        return {"action": "low_stock"}
    if any(word in lowered for word in ("where", "find", "how many")):
        return {"action": "find_product", "item": _item(text), "ask": "where" if "where" in lowered else "stock"}
    return {"action": "general"}


def _answer(body: dict) -> str:
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    properties = schema.get("properties") or {}
    if "action" in properties:
        choice = route(_owner_words(body))
        allowed = (properties["action"].get("enum") or [choice["action"]])
        if choice["action"] not in allowed:
            choice = {"action": "general"}
        return json.dumps({key: value for key, value in choice.items() if key in properties}, separators=(",", ":"))
    if "verdict" in properties:
        return json.dumps({"verdict": "safe", "category": "none"})
    return "Happy to help with your store."


async def _pace() -> JSONResponse | None:
    STATE["calls"] += 1
    if STATE["mode"] == "down":
        return JSONResponse({"error": {"message": "model server unavailable"}}, status_code=503)
    if STATE["mode"] == "hang":
        await asyncio.sleep(3600)
    delay = max(0.0, random.gauss(STATE["latency_ms"], STATE["jitter_ms"] / 2)) / 1000
    await asyncio.sleep(delay)
    return None


async def models(request: Request) -> JSONResponse:
    return JSONResponse({"object": "list", "data": [{"id": "fake", "object": "model"}]})


async def chat(request: Request) -> JSONResponse:
    body = await request.json()
    refused = await _pace()
    if refused is not None:
        return refused
    text = _answer(body)
    return JSONResponse({
        "id": "fake", "object": "chat.completion", "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1500, "completion_tokens": len(text.split()), "total_tokens": 1500 + len(text.split())},
    })


async def completions(request: Request) -> JSONResponse:
    body = await request.json()
    refused = await _pace()
    if refused is not None:
        return refused
    return JSONResponse({"id": "fake", "object": "text_completion", "model": body.get("model", "fake"),
                         "choices": [{"index": 0, "text": "ok", "finish_reason": "stop"}]})


async def control(request: Request) -> JSONResponse:
    body = await request.json()
    if body.get("mode") in ("ok", "hang", "down"):
        STATE["mode"] = body["mode"]
    return JSONResponse(STATE)


app = Starlette(routes=[
    Route("/v1/models", models), Route("/v1/chat/completions", chat, methods=["POST"]),
    Route("/v1/completions", completions, methods=["POST"]), Route("/control", control, methods=["POST", "GET"]),
])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--latency-ms", type=float, default=900.0)
    parser.add_argument("--jitter-ms", type=float, default=300.0)
    args = parser.parse_args()
    STATE["latency_ms"], STATE["jitter_ms"] = args.latency_ms, args.jitter_ms
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()

"""The router's prompt and output schema, generated from the business type's pack and the store.

The prompt is ordered for llama.cpp's prefix cache: the business type's actions, rules and
examples first (the same for every store of that type), then the store and its products (the
same for every turn of that store), and only then the conversation's context and the request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

PACKS = Path(__file__).resolve().parents[2] / "business_types"
ASKS = ("where", "count", "price", "available")
TOPICS = ("inventory", "business", "nutrition")
KINDS = ("inventory", "sales")
# Above this many products only those that match the owner's words are listed, so the prompt
# does not grow with the catalog.
FULL_CATALOG_LIMIT = 60


@dataclass(frozen=True)
class RouterPack:
    business_type: str
    actions: tuple[dict[str, Any], ...]
    examples: tuple[tuple[str, dict[str, Any]], ...]
    context_examples: tuple[tuple[str, str, dict[str, Any]], ...]
    rules: tuple[str, ...]
    launch_reply: str

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(action["name"] for action in self.actions)


@lru_cache(maxsize=16)
def router_pack(business_type: str) -> RouterPack:
    """The business type's numbered actions, examples and rules (``business_types/<slug>/router.json``)."""
    path = PACKS / business_type / "router.json"
    try:
        data = json.loads(path.read_text())
        return RouterPack(
            business_type=business_type,
            actions=tuple(data["actions"]),
            examples=tuple((say, dict(answer)) for say, answer in data["examples"]),
            context_examples=tuple((say, last, dict(answer)) for say, last, answer in data.get("context_examples", [])),
            rules=tuple(data["rules"]),
            launch_reply=data.get("launch_reply", "Hi, I'm ready."),
        )
    except FileNotFoundError as exc:
        raise ImproperlyConfigured(f"Business type {business_type!r} has no router pack at {path}.") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise ImproperlyConfigured(f"The router pack {path} is malformed: {exc}.") from exc


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


def store_prompt(*, store_name: str, owner: str, products: list[str]) -> str:
    """The part shared by every turn of one store: its name, owner and products."""
    return f"Store: {store_name}, owned by {owner or 'the owner'}.\nProducts: {'; '.join(products)}.\n"


def request_prompt(*, text: str, last_product: str, last_action: str) -> str:
    """The turn's own part, kept short: the conversation's context and the request."""
    context = []
    if last_product:
        context.append(f"Last product: {last_product}")
    if last_action:
        context.append(f"Last action: {last_action}")
    prefix = "\n".join(context)
    return (prefix + "\n" if prefix else "") + f"Request: {text}\nJSON:"

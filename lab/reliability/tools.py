"""Seed 001's five mock tools: their parameters, the system message that lists them, the output schema.

The tools are never executed: a call "succeeds" when it agrees with the prompt's expected call.
``call_schema`` is the JSON schema the constrained conditions decode under (one branch per tool,
every parameter required, no extra keys), so a grammar can guarantee syntax and keys, not values.
"""

from __future__ import annotations

from typing import Any

# name -> (description, {parameter: JSON schema})
TOOLS: dict[str, tuple[str, dict[str, dict[str, Any]]]] = {
    "get_weather": ("Current weather for a place.", {
        "location": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    }),
    "search_web": ("Search the web.", {
        "query": {"type": "string"},
        "num_results": {"type": "integer", "minimum": 1, "maximum": 50},
    }),
    "calculate": ("Evaluate an arithmetic expression.", {
        "expression": {"type": "string"},
    }),
    "send_email": ("Send an email.", {
        "to": {"type": "string"},
        "subject": {"type": "string"},
        "body": {"type": "string"},
    }),
    "create_todo": ("Add a task to the to-do list.", {
        "title": {"type": "string"},
        "due_date": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "priority": {"type": "string", "enum": ["low", "medium", "high"]},
    }),
}


def system_message() -> str:
    """The tool list every prompt is sent with (the same for every model and condition)."""
    lines = ["You can call these tools:"]
    for name, (description, params) in TOOLS.items():
        args = ", ".join(f"{key}: {schema['type']}" for key, schema in params.items())
        lines.append(f"- {name}({args}): {description}")
    lines.append('Answer with a JSON object {"tool": <tool name>, "parameters": {<argument>: <value>}}.')
    return "\n".join(lines)


def call_schema() -> dict[str, Any]:
    """The union of the five tools' call objects, for constrained decoding."""
    branches = []
    for name, (_description, params) in TOOLS.items():
        branches.append({
            "type": "object",
            "properties": {
                "tool": {"const": name},
                "parameters": {"type": "object", "properties": params, "required": list(params),
                               "additionalProperties": False},
            },
            "required": ["tool", "parameters"],
            "additionalProperties": False,
        })
    return {"anyOf": branches}

"""Argument validation with ``jsonschema``, reported as sentences a small model can act on.

Every message names the argument (``items[0].qty``) and the rule it broke, and nothing else:
no schema internals, no stack. The model copies what it reads, so the sentence says what a
correct value looks like.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

_TYPE_WORDS = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}
_MAX_MESSAGES = 3


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else _json_literal(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _json_literal(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return str(value)


def field_path(path: Any) -> str:
    """``['items', 0, 'qty']`` as ``items[0].qty``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _sentence(error: ValidationError) -> str:
    where = field_path(error.absolute_path)
    rule = error.validator
    value = error.validator_value
    instance = error.instance
    subject = f"'{where}'" if where else "The arguments"
    if rule == "required":
        missing = next((name for name in value if isinstance(instance, dict) and name not in instance), value[0])
        name = f"{where}.{missing}" if where else missing
        described = (error.schema.get("properties", {}).get(missing) or {}).get("description")
        return f"'{name}' is required" + (f": {described[0].lower()}{described[1:]}" if described else ".")
    if rule == "additionalProperties":
        allowed = sorted((error.schema.get("properties") or {}).keys())
        extra = sorted(set(instance) - set(allowed)) if isinstance(instance, dict) else []
        names = ", ".join(f"'{field_path([*error.absolute_path, name])}'" for name in extra) or "an argument"
        allowed_text = ", ".join(allowed) if allowed else "none"
        return f"Unknown argument {names}; the allowed arguments here are: {allowed_text}."
    if rule == "type":
        wanted = " or ".join(_TYPE_WORDS.get(t, t) for t in ([value] if isinstance(value, str) else value))
        return f"{subject} must be {wanted}, not {_json_type(instance)} ({_shown(instance)})."
    if rule == "minimum":
        return f"{subject} must be at least {value}, not {_shown(instance)}."
    if rule == "maximum":
        return f"{subject} must be at most {value}, not {_shown(instance)}."
    if rule == "exclusiveMinimum":
        return f"{subject} must be more than {value}, not {_shown(instance)}."
    if rule == "exclusiveMaximum":
        return f"{subject} must be less than {value}, not {_shown(instance)}."
    if rule in ("enum", "const"):
        options = [value] if rule == "const" else value
        listed = " or ".join(_shown(option) for option in options)
        return f"{subject} must be {listed}, not {_shown(instance)}."
    if rule == "minLength":
        return f"{subject} must not be empty." if value == 1 else f"{subject} must be at least {value} characters long."
    if rule == "maxLength":
        return f"{subject} must be at most {value} characters long."
    if rule == "minItems":
        return f"{subject} must list at least {value} item{'s' if value != 1 else ''}."
    if rule == "maxItems":
        return f"{subject} must list at most {value} items."
    if rule == "uniqueItems":
        return f"{subject} must not repeat an item."
    if rule == "format":
        return f"{subject} must be {'an email address' if value == 'email' else f'a valid {value}'}, not {_shown(instance)}."
    if rule == "pattern":
        return f"{subject} has the wrong form ({_shown(instance)})."
    return f"{subject} is not valid here ({rule})."


_validators: dict[int, tuple[Mapping[str, Any], Draft202012Validator]] = {}


def _validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    """One compiled validator per schema object (the registry's schemas are module constants)."""
    cached = _validators.get(id(schema))
    if cached is None or cached[0] is not schema:
        Draft202012Validator.check_schema(schema)
        cached = (schema, Draft202012Validator(schema, format_checker=FormatChecker()))
        _validators[id(schema)] = cached
    return cached[1]


def validation_message(schema: Mapping[str, Any], arguments: Any) -> str | None:
    """None when ``arguments`` satisfy ``schema``; otherwise one to three sentences naming the fields."""
    if not isinstance(arguments, Mapping):
        return f"The arguments must be a JSON object, not {_json_type(arguments)}."
    validator = _validator(schema)
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        return None
    sentences: list[str] = []
    for error in errors:
        sentence = _sentence(error)
        if sentence not in sentences:
            sentences.append(sentence)
        if len(sentences) == _MAX_MESSAGES:
            break
    return " ".join(sentences)

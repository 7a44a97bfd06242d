"""BFCL's own AST checker, and BFCL's decoding of the plain prompting format.

``bfcl_eval.eval_checker.ast_eval.ast_checker`` imports ``bfcl_eval.constants.model_config`` only
to ask whether a model's function names had their dots replaced by underscores; that module
imports every vendor's SDK (anthropic, cohere, mistralai...), which the lab does not install. When
it cannot be imported, a stand-in answers "no" for every model (our models keep the dots).

``decode_calls`` follows BFCL's ``default_decode_ast_prompting`` and ``ast_parse`` for Python
(strip backticks, newlines and spaces; wrap in brackets; parse as one expression; each element a
call with keyword arguments, values taken literally), written with ``ast`` here because BFCL's
module imports tree-sitter parsers for Java and JavaScript. Arithmetic in a value is computed
only for numbers (BFCL ``eval``s it).
"""

from __future__ import annotations

import ast
import operator
import sys
import types
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from lab.bfcl.data import Entry

_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Pow: operator.pow, ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv,
}


class DecodeError(ValueError):
    """The answer is not a list of function calls in BFCL's format."""


class _NoDots:
    underscore_to_dot = False


def _ast_checker() -> Callable[..., dict[str, Any]]:
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        try:
            __import__(name)
        except ImportError:
            stand_in = types.ModuleType(name)
            stand_in.MODEL_CONFIG_MAPPING = defaultdict(_NoDots)  # type: ignore[attr-defined]
            sys.modules[name] = stand_in
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(key): _value(value) for key, value in zip(node.keys, node.values, strict=True) if key is not None}
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _value(node.left), _value(node.right)
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return _ARITHMETIC[type(node.op)](left, right)
        return ast.unparse(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _call(node) if node.keywords else ast.unparse(node)
    return ast.unparse(node)


def _call(node: ast.Call) -> dict[str, dict[str, Any]]:
    parts, func = [], node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return {".".join(reversed(parts)): {kw.arg: _value(kw.value) for kw in node.keywords if kw.arg}}


def decode_calls(text: str) -> list[dict[str, dict[str, Any]]]:
    """BFCL's Python prompting format as its checker reads it: ``[{name: {argument: value}}]``.

    Raises:
        DecodeError: the text is not one bracketed list of calls.
    """
    text = text.strip("`\n ")
    text = text if text.startswith("[") else "[" + text
    text = text if text.endswith("]") else text + "]"
    try:
        body = ast.parse(text.strip().strip("'"), mode="eval").body
    except (SyntaxError, ValueError) as exc:
        raise DecodeError(f"not a list of calls ({type(exc).__name__})") from None
    elements = [body] if isinstance(body, ast.Call) else getattr(body, "elts", None)
    if elements is None or not all(isinstance(element, ast.Call) for element in elements):
        raise DecodeError("an element is not a function call")
    try:
        return [_call(element) for element in elements]
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as exc:
        raise DecodeError(f"a value cannot be read ({type(exc).__name__})") from None


def score(entry: Entry, calls: list[dict[str, dict[str, Any]]] | None) -> tuple[bool, str]:
    """Whether the decoded calls (None: nothing decodable) pass the entry, and BFCL's error type when not."""
    if entry.scoring == "irrelevance":
        return (not calls, "" if not calls else "irrelevance:called_a_function")
    if entry.scoring == "relevance":
        return (bool(calls), "" if calls else "relevance:no_call")
    if calls is None:
        return False, "ast_decoder:decoder_failed"
    if not calls:
        return False, "ast_decoder:empty"
    from bfcl_eval.constants.enums import Language

    result = _ast_checker()(list(entry.functions), calls, list(entry.answer or ()), Language.PYTHON,
                            entry.category, "shelfwise")
    return bool(result["valid"]), "" if result["valid"] else str(result.get("error_type", "ast:invalid"))

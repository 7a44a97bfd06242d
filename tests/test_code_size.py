"""Issue 11's size limits, held: no module over 600 lines, no function over 80 (migrations left out)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE_LINES, FUNCTION_LINES = 600, 80


def _sources():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if any(part.startswith(".") or part in ("migrations", "node_modules", "var") for part in parts):
            continue
        yield path


def test_no_module_or_function_is_too_long():
    too_long = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT)
        if text.count("\n") > MODULE_LINES:
            too_long.append(f"{name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    assert not too_long, "split these: " + "; ".join(too_long)

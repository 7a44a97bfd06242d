"""Issue 11's size limits, held: no module over 600 lines, no function over 80 (migrations left out)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE_LINES, FUNCTION_LINES = 600, 80


def _sources():
    """The project's Python files; hidden folders (the venv), migrations and run data are not walked."""
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("migrations", "node_modules", "var"))
        yield from (Path(folder) / name for name in sorted(files) if name.endswith(".py"))


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

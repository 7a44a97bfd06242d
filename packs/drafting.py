"""Drafting a pack in the vendor portal: a new pack from a bundled template, and the files a vendor edits.

Nothing here stores anything: these functions build ``PackFiles`` (read with the same checks as a
folder or an archive) that ``packs.validate`` then judges and ``packs.services`` stores.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from packs.errors import Problem
from packs.source import BUNDLED, MANIFEST, PackFiles, read_folder, read_texts

SLUG = re.compile(r"^[a-z][a-z0-9-]{1,39}$")  # the schema's pattern for a pack's slug
_BUSINESS_TYPE = re.compile(r'("business_type"\s*:\s*)"[^"]*"')


def template_choices() -> list[tuple[str, str]]:
    """The bundled packs a new pack may start from: (slug, name), by name."""
    choices = []
    for folder in sorted(BUNDLED.iterdir()):
        manifest = folder / MANIFEST
        if manifest.is_file():
            data = yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}
            choices.append((folder.name, str(data.get("name") or folder.name)))
    return sorted(choices, key=lambda choice: choice[1])


def manifest_with(text: str, **fields: str | int) -> str:
    """``pack.yaml``'s text with its top-level ``slug``/``name``/``version`` lines set (comments kept)."""
    for key, value in fields.items():
        plain = isinstance(value, int) or SLUG.match(value)
        line = f"{key}: {value if plain else _yaml_string(str(value))}"
        text, found = re.subn(rf"(?m)^{key}:.*$", line.replace("\\", "\\\\"), text, count=1)
        if not found:
            text = text.rstrip("\n") + f"\n{line}\n"
    return text


def _yaml_string(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML string


def pack_from_template(*, template: str, slug: str, name: str) -> PackFiles:
    """The bundled pack ``template``'s files as version 1 of a new type ``slug`` called ``name``.

    Every ``business_type`` the template's files name becomes ``slug``; nothing else changes.
    """
    if template not in dict(template_choices()):
        return read_texts({}, origin=f"template {template!r}")  # no manifest: "missing" is the problem
    files: dict[str, str | bytes] = dict(read_folder(BUNDLED / template).files)
    files[MANIFEST] = manifest_with(str(files[MANIFEST]), slug=slug, name=name, version=1)
    for path, text in files.items():
        if path.endswith(".json"):
            files[path] = _BUSINESS_TYPE.sub(lambda m: f'{m.group(1)}"{slug}"', str(text), count=1)
    return read_texts(files, origin=f"{slug} (from {template})")


def pack_files_edited(*, current: Mapping[str, str], texts: Mapping[str, str], uploads: Mapping[str, bytes],
                      remove: Iterable[str] = (), origin: str = "edit") -> PackFiles:
    """The pack after an edit: ``current`` files with typed ``texts`` and ``uploads`` (a new file
    when the name is new) in their place, less the names in ``remove``. An upload wins over text."""
    removed = set(remove)
    files: dict[str, str | bytes] = {name: text for name, text in current.items() if name not in removed}
    files.update({name: text for name, text in texts.items() if name not in removed})
    files.update({name: data for name, data in uploads.items() if name not in removed})
    return read_texts(files, origin=origin)


def manifest_problems(files: PackFiles, *, slug: str, version: int) -> list[Problem]:
    """What keeps an edit from being version ``version`` of ``slug``: the manifest must say both."""
    try:
        manifest: Any = yaml.safe_load(files.files.get(MANIFEST, ""))
    except yaml.YAMLError:
        return []  # the validator reports unreadable YAML with its line
    if not isinstance(manifest, dict):
        return []
    problems = []
    if manifest.get("slug") != slug:
        problems.append(Problem(MANIFEST, "/slug", f"this page edits {slug!r}; keep slug: {slug} (a new business "
                                                   "type starts from a template)"))
    if manifest.get("version") != version:
        problems.append(Problem(MANIFEST, "/version", f"this page edits version {version}; keep version: {version}"))
    return problems

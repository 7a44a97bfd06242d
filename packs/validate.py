"""Validate a pack: the published JSON Schema, then the rules a schema cannot say, every problem listed.

``pack_validate(files)`` parses each file by its role, checks the assembled document against
``packs/schema/pack.schema.json`` (all errors, not the first) and then the pack's own consistency:
unique action names and ids, a known behaviour with parameters it takes, examples for every
action, lexicon corrections that do not turn one product into another, matcher intents that are
actions, and evaluation files that name only products of the sample catalog. Nothing is stored
here; ``packs.services`` stores what passes.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from packs.errors import PackInvalid, Problem
from packs.source import MANIFEST, ROLES, SAMPLE_CATALOG, SCHEMA_PATH, PackFiles


@dataclass(frozen=True)
class Pack:
    """A pack that passed validation: its manifest's fields and its files."""

    slug: str
    name: str
    version: int
    description: str
    files: PackFiles
    document: dict[str, Any]

    @property
    def digest(self) -> str:
        return self.files.digest


@lru_cache(maxsize=1)
def pack_schema() -> dict[str, Any]:
    """The published JSON Schema of a pack (``packs/schema/pack.schema.json``)."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def _parse(name: str, text: str, problems: list[Problem]) -> Any:
    try:
        if name.endswith(".json"):
            return json.loads(text)
        return yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        problems.append(Problem(name, "", f"not readable {'JSON' if name.endswith('.json') else 'YAML'}: "
                                          f"{str(exc).splitlines()[0][:200]}"))
        return None


def _catalog_rows(text: str, problems: list[Problem]) -> list[dict[str, str]]:
    """The sample catalog's rows, each cell checked as the catalog import checks it."""
    from ledger.services.product_fields import CLEANERS, COLUMNS, InvalidField

    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        header = [name.strip() for name in reader.fieldnames or []]
        rows = list(reader)
    except csv.Error as exc:
        problems.append(Problem(SAMPLE_CATALOG, "", f"not a readable CSV: {exc}"))
        return []
    for column, count in Counter(header).items():
        if column not in COLUMNS:
            problems.append(Problem(SAMPLE_CATALOG, f"/header/{column}",
                                    f"not a catalog column (the columns are: {', '.join(COLUMNS)})"))
        elif count > 1:
            problems.append(Problem(SAMPLE_CATALOG, f"/header/{column}", "appears twice"))
    for column in ("sku", "name"):
        if column not in header:
            problems.append(Problem(SAMPLE_CATALOG, "/header", f"needs a {column!r} column"))
    cleaned: list[dict[str, str]] = []
    for number, row in enumerate(rows, start=2):
        values = {str(k).strip(): (v or "").strip() for k, v in row.items() if k is not None}
        if None in row:
            problems.append(Problem(SAMPLE_CATALOG, f"/row {number}", "more cells than the header has columns"))
        for column, value in values.items():
            cleaner = CLEANERS.get(column)
            if cleaner is None or (not value and column not in ("sku", "name")):
                continue
            try:
                cleaner(value)
            except InvalidField as exc:
                problems.append(Problem(SAMPLE_CATALOG, f"/row {number}/{column}", str(exc.reason)))
        cleaned.append(values)
    return cleaned


def _read_document(files: PackFiles, problems: list[Problem]) -> tuple[dict[str, Any], dict[str, str]]:
    """The pack as one document keyed by role, and which file each role came from."""
    document: dict[str, Any] = {}
    origin: dict[str, str] = {}
    used = {MANIFEST, SAMPLE_CATALOG}
    manifest = _parse(MANIFEST, files.files.get(MANIFEST, ""), problems)
    document["pack"], origin["pack"] = manifest, MANIFEST
    for role in ROLES:
        names = [f"{role}{suffix}" for suffix in (".json", ".yaml", ".yml") if f"{role}{suffix}" in files.files]
        if len(names) > 1:
            problems.append(Problem(names[1], "", f"the pack already has {names[0]}; keep one {role} file"))
        if names:
            used.update(names)
            document[role], origin[role] = _parse(names[0], files.files[names[0]], problems), names[0]
    if SAMPLE_CATALOG in files.files:
        document["sample_catalog"] = _catalog_rows(files.files[SAMPLE_CATALOG], problems)
        origin["sample_catalog"] = SAMPLE_CATALOG
    evaluation = manifest.get("evaluation") if isinstance(manifest, dict) else None
    references: list[tuple[str, str]] = []
    if isinstance(evaluation, dict):
        suites = evaluation.get("suites")
        references += [("suites", path) for path in (suites if isinstance(suites, list) else []) if isinstance(path, str)]
        if isinstance(evaluation.get("routing_set"), str):
            references.append(("routing_set", evaluation["routing_set"]))
    matcher = document.get("matcher")
    if isinstance(matcher, dict) and isinstance(matcher.get("development_set"), str):
        references.append(("development_set", matcher["development_set"]))
    for role, path in references:
        where = MANIFEST if role != "development_set" else origin["matcher"]
        if path not in files.files:
            problems.append(Problem(where, f"/{'evaluation/' if role != 'development_set' else ''}{role}",
                                    f"names {path!r}, which is not in the pack"))
            continue
        used.add(path)
        parsed = _parse(path, files.files[path], problems)
        if role == "suites":
            document.setdefault("suites", {})[path] = parsed
        else:
            document[role], origin[role] = parsed, path
    for name in files.files:
        if name not in used:
            problems.append(Problem(name, "", "not part of the pack: no file role has this name and the manifest "
                                              "does not name it"))
    return document, origin


def _schema_problems(document: dict[str, Any], origin: dict[str, str]) -> Iterator[Problem]:
    for error in Draft202012Validator(pack_schema()).iter_errors(document):
        path = list(error.absolute_path)
        if not path:
            missing = error.message.split("'")[1] if error.validator == "required" else ""
            file = {"router": "router.json", "lexicon": "lexicon.json"}.get(missing, origin.get(missing, missing))
            yield Problem(file if missing else "", "", "missing" if missing else error.message)
            continue
        role = str(path.pop(0))
        file = origin.get(role, role)
        if role == "suites" and path:
            file = str(path.pop(0))
        yield Problem(file, "/" + "/".join(str(p) for p in path), error.message[:300])


def pack_validate(files: PackFiles) -> Pack:
    """The pack, if it is valid.

    Raises:
        PackInvalid: with every problem found (file, path inside it, reason).
    """
    problems: list[Problem] = list(files.problems)
    document, origin = _read_document(files, problems)
    schema_problems = list(_schema_problems(document, origin))
    problems += schema_problems
    from packs.consistency import consistency_problems

    problems += consistency_problems(document, origin)
    if problems:
        raise PackInvalid(problems, origin=files.origin)
    manifest = document["pack"]
    return Pack(slug=manifest["slug"], name=manifest["name"], version=manifest["version"],
                description=manifest["description"], files=files, document=document)


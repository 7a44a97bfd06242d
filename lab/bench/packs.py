"""Which pack version an evaluation runs, and the files of it that it runs.

A pack's suites and routing set say which store they run on: ``"store": "sample"`` (a fresh store
of the pack's type holding its ``sample_catalog.csv``, through the catalog import) or ``"demo"``
(the demo catalog with its generated sales: grocery's). Either store is pinned to the version under
test, draft or published (``lab.bench.stores.bench_store_create``), so its prompt, lexicon, actions
and matcher are that version's.

``pack_version_find`` reads what an owner of the shell names: a pack folder or zip archive
(validated, then stored as a draft unless those exact files are already stored), ``slug@N``, or a
business type's slug (its newest version, a draft included).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packs.errors import PackInvalid
from packs.source import MANIFEST, SAMPLE_CATALOG, read_path
from tenants.models import PackVersion

_SPEC = re.compile(r"^(?P<slug>[a-z][a-z0-9-]{1,39})(?:@(?P<version>\d+))?$")
MAX_PACK_DEPTH = 4  # how far above a suite file its pack.yaml may be (evaluation/suites/x.json: 3)


class PackEvalError(ValueError):
    """The pack or its evaluation files cannot be used as asked; the message says why."""


def pack_version_find(spec: str, *, actor: str = "cli:pack-eval") -> PackVersion:
    """The stored version ``spec`` names: a pack folder or .zip, ``slug@N``, or ``slug`` (its newest version).

    A folder or archive is validated and stored as a draft of its version number, unless that
    version is stored with the same files already (a published version with other files is refused:
    give the changed pack a new version number).

    Raises:
        PackInvalid: the folder or archive is not a valid pack, or its version is published with other files.
        PackEvalError: no pack has that name.
    """
    path = Path(spec)
    if path.exists():
        from packs.services import pack_install
        from packs.validate import pack_validate

        pack = pack_validate(read_path(path))
        stored = (PackVersion.objects.select_related("business_type")
                  .filter(business_type__slug=pack.slug, version=pack.version, digest=pack.digest).first())
        return stored or pack_install(pack=pack, publish=False, actor=actor)
    match = _SPEC.match(spec.strip())
    if match is None:
        raise PackEvalError(f"{spec!r} is neither a pack folder, a .zip of one, nor a business type (slug or slug@N).")
    versions = PackVersion.objects.select_related("business_type").filter(business_type__slug=match["slug"])
    if match["version"] is not None:
        versions = versions.filter(version=int(match["version"]))
    found = versions.order_by("-version").first()
    if found is None:
        raise PackEvalError(f"No stored pack version {spec!r}: install it first (manage.py pack install PATH), "
                            "or name its folder.")
    return found


def pack_folder_of(path: str | Path) -> Path | None:
    """The pack folder an evaluation file sits in (the nearest folder above it with a pack.yaml), or None."""
    folder = Path(path).resolve().parent
    for _ in range(MAX_PACK_DEPTH):
        if (folder / MANIFEST).is_file():
            return folder
        folder = folder.parent
    return None


def sample_catalog_names(version: PackVersion) -> frozenset[str]:
    """The product names of the version's sample catalog (what its suites' checks may name)."""
    text = version.files.get(SAMPLE_CATALOG, "")
    return frozenset(row["name"].strip() for row in csv.DictReader(io.StringIO(text)) if (row.get("name") or "").strip())


def manifest(version: PackVersion) -> dict[str, Any]:
    """The version's manifest (validated when it was stored)."""
    import yaml

    data = yaml.safe_load(version.files.get(MANIFEST, "")) or {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class EvaluationFile:
    """One of a version's evaluation files, parsed: its path inside the pack and its JSON."""

    path: str
    data: Any


def _evaluation_file(version: PackVersion, path: str) -> EvaluationFile:
    try:
        return EvaluationFile(path=path, data=json.loads(version.files[path]))
    except KeyError:
        raise PackEvalError(f"The pack has no file {path!r} (its manifest names it).") from None
    except ValueError as exc:
        raise PackEvalError(f"{path}: not valid JSON ({exc}).") from None


def pack_suites(version: PackVersion) -> Iterator[EvaluationFile]:
    """The version's owner-session suites, as its manifest lists them."""
    for path in (manifest(version).get("evaluation") or {}).get("suites") or ():
        yield _evaluation_file(version, path)


def pack_routing_set(version: PackVersion) -> EvaluationFile | None:
    """The version's routing set, or None when its manifest names none."""
    path = (manifest(version).get("evaluation") or {}).get("routing_set")
    return _evaluation_file(version, path) if path else None


def pack_for_file(path: str | Path, *, spec: str | None) -> PackVersion | None:
    """The version an evaluation file runs with: ``spec`` when given, else the pack folder the file sits in.

    None where neither names one (a grocery demo-store file outside a pack).

    Raises:
        PackInvalid, PackEvalError: as ``pack_version_find``.
    """
    if spec:
        return pack_version_find(spec)
    folder = pack_folder_of(path)
    return pack_version_find(str(folder)) if folder is not None else None


__all__ = [
    "EvaluationFile", "PackEvalError", "PackInvalid", "manifest", "pack_folder_of", "pack_for_file",
    "pack_routing_set", "pack_suites", "pack_version_find", "sample_catalog_names",
]

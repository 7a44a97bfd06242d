"""A pack's files, read from a folder, an uploaded zip archive or the database, and how the runtime finds them.

A pack is text only: a fixed set of file roles (``ROLES``), each a ``.json`` or ``.yaml`` file of
that name (``sample_catalog.csv`` is CSV), plus the evaluation files its manifest names. Reading
refuses anything else (a ``.py`` file, a symlink, a path that climbs out, a binary file), so a
pack can never bring code; ``packs.validate`` then checks what was read.

The runtime names a pack by a *key*: ``"grocery"`` is the bundled folder ``packs/bundled/grocery``
(the lab, scripts and tests use it), and ``"grocery@1+<digest>"`` is the published version stored
in the database (a store runs the one it is pinned to: ``store_pack_key``). A published version
never changes, and the key carries its content digest, so what a key names is cached for good.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import TYPE_CHECKING

from packs.errors import PackInvalid, Problem

if TYPE_CHECKING:
    from tenants.models import BusinessType, Store

BUNDLED = Path(__file__).resolve().parent / "bundled"
GROCERY_EVALUATION = BUNDLED / "grocery" / "evaluation"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "pack.schema.json"
MANIFEST = "pack.yaml"
# File roles other than the manifest: each one file named <role>.json or <role>.yaml.
ROLES = ("router", "lexicon", "guard_vocabulary", "matcher", "guides")
SAMPLE_CATALOG = "sample_catalog.csv"
MAX_FILES = 40
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_PACK_BYTES = 8 * 1024 * 1024
_PATH = re.compile(r"^[a-z0-9_][a-z0-9_./-]{0,150}$")
_TEXT_SUFFIXES = (".json", ".yaml", ".yml", ".csv")
_KEY = re.compile(r"^(?P<slug>[a-z][a-z0-9-]{1,39})(?:@(?P<version>\d+)\+(?P<digest>[0-9a-f]{16}))?$")


@dataclass(frozen=True)
class PackFiles:
    """A pack's files as text, by their path inside the pack (``"router.json"``, ``"evaluation/suite.json"``)."""

    files: Mapping[str, str]
    origin: str = ""  # where it was read from, for messages
    key: str = ""  # the runtime key, when it came from the bundled folder or the database
    digest: str = field(default="", compare=False)
    problems: tuple[Problem, ...] = field(default=(), compare=False)  # what reading refused (validation lists them)

    def role(self, role: str) -> str | None:
        """The file name holding ``role`` (``"router"`` -> ``"router.json"``), or None."""
        for suffix in (".json", ".yaml", ".yml"):
            if f"{role}{suffix}" in self.files:
                return f"{role}{suffix}"
        return None

    def text(self, role: str) -> str | None:
        name = self.role(role)
        return self.files[name] if name else None


def digest_of(files: Mapping[str, str]) -> str:
    """The content digest of a pack's files (sha256 over the sorted names and texts)."""
    hasher = hashlib.sha256()
    for name in sorted(files):
        for part in (name, files[name]):
            data = part.encode("utf-8")
            hasher.update(len(data).to_bytes(8, "big"))
            hasher.update(data)
    return hasher.hexdigest()


def _check_name(name: str, size: int, problems: list[Problem]) -> bool:
    pure = PurePosixPath(name)
    if not _PATH.match(name) or any(part in ("", ".", "..") for part in pure.parts):
        problems.append(Problem(name, "", "not an allowed file name: lower-case letters, digits, _ - . and /, "
                                          "inside the pack"))
        return False
    if pure.suffix not in _TEXT_SUFFIXES:
        problems.append(Problem(name, "", "a pack holds only .json, .yaml and .csv files (no code, no binaries)"))
        return False
    if size > MAX_FILE_BYTES:
        problems.append(Problem(name, "", f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"))
        return False
    return True


def _decoded(name: str, data: bytes, problems: list[Problem]) -> str | None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        problems.append(Problem(name, "", "not UTF-8 text"))
        return None
    if "\x00" in text:
        problems.append(Problem(name, "", "not a text file"))
        return None
    return text


def _finish(files: dict[str, str], problems: list[Problem], origin: str) -> PackFiles:
    if len(files) > MAX_FILES:
        problems.append(Problem("", "", f"more than {MAX_FILES} files"))
    if MANIFEST not in files and not any(p.file == MANIFEST for p in problems):
        problems.append(Problem(MANIFEST, "", "missing: every pack starts with its manifest"))
    return PackFiles(files=MappingProxyType(dict(sorted(files.items()))), origin=origin, digest=digest_of(files),
                     problems=tuple(problems))


def read_folder(path: Path) -> PackFiles:
    """Every file of the pack folder ``path``; what a pack may not hold is in ``problems``.

    Raises:
        PackInvalid: not a folder.
    """
    if not path.is_dir():
        raise PackInvalid([Problem("", "", f"{path} is not a folder")], origin=str(path))
    problems: list[Problem] = []
    files: dict[str, str] = {}
    total = 0
    for item in sorted(path.rglob("*")):
        name = item.relative_to(path).as_posix()
        if any(part.startswith(".") for part in PurePosixPath(name).parts):
            continue  # editor and VCS files (.git, .DS_Store) are not part of the pack
        if item.is_symlink():
            problems.append(Problem(name, "", "a symbolic link; a pack holds plain files only"))
            continue
        if item.is_dir():
            continue
        size = item.stat().st_size
        total += size
        if _check_name(name, size, problems):
            text = _decoded(name, item.read_bytes(), problems)
            if text is not None:
                files[name] = text
    if total > MAX_PACK_BYTES:
        problems.append(Problem("", "", f"the pack is larger than {MAX_PACK_BYTES // (1024 * 1024)} MB"))
    return _finish(files, problems, str(path))


def read_zip(content: bytes, *, origin: str = "upload") -> PackFiles:
    """Every file of an uploaded zip archive (one top folder around the pack is allowed).

    What a pack may not hold (code, links, paths that climb out) is in ``problems``.

    Raises:
        PackInvalid: not a zip archive, or too large.
    """
    if len(content) > MAX_PACK_BYTES:
        raise PackInvalid([Problem("", "", f"the archive is larger than {MAX_PACK_BYTES // (1024 * 1024)} MB")],
                          origin=origin)
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        members = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, ValueError) as exc:
        raise PackInvalid([Problem("", "", f"not a zip archive ({exc})")], origin=origin) from exc
    names = [info.filename for info in members if not _hidden(info.filename)]
    tops = {name.split("/", 1)[0] for name in names}
    strip = len(tops) == 1 and all("/" in name for name in names)
    problems: list[Problem] = []
    files: dict[str, str] = {}
    if len(members) > MAX_FILES * 2:
        raise PackInvalid([Problem("", "", f"more than {MAX_FILES} files")], origin=origin)
    if sum(info.file_size for info in members) > MAX_PACK_BYTES:
        raise PackInvalid([Problem("", "", f"the pack unpacks to more than {MAX_PACK_BYTES // (1024 * 1024)} MB")],
                          origin=origin)
    for info in members:
        if _hidden(info.filename):
            continue
        name = info.filename.split("/", 1)[1] if strip else info.filename
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            problems.append(Problem(name, "", "a symbolic link; a pack holds plain files only"))
            continue
        if _check_name(name, info.file_size, problems):
            text = _decoded(name, archive.read(info)[: MAX_FILE_BYTES + 1], problems)
            if text is not None:
                files[name] = text
    return _finish(files, problems, origin)


def read_path(path: Path) -> PackFiles:
    """The pack at ``path``: a folder or a zip archive.

    Raises:
        PackInvalid: it cannot be read as a pack.
    """
    if path.is_file() and path.suffix == ".zip":
        return read_zip(path.read_bytes(), origin=str(path))
    return read_folder(path)


def _hidden(name: str) -> bool:
    return any(part.startswith(".") and part not in (".", "..") or part == "__MACOSX" for part in name.split("/"))


def read_texts(files: Mapping[str, str | bytes], *, origin: str = "edit") -> PackFiles:
    """A pack from files given by name (the portal's editor: typed text or an uploaded file's bytes).

    The same checks as a folder or an archive: allowed names inside the pack, text suffixes, sizes,
    UTF-8; what a pack may not hold is in ``problems``. Line endings are made ``\\n`` (a browser
    sends a textarea with ``\\r\\n``), so unchanged text keeps its digest.
    """
    problems: list[Problem] = []
    texts: dict[str, str] = {}
    total = 0
    for name, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        total += len(data)
        if _check_name(name, len(data), problems):
            text = _decoded(name, data, problems)
            if text is not None:
                texts[name] = text.replace("\r\n", "\n")
    if total > MAX_PACK_BYTES:
        problems.append(Problem("", "", f"the pack is larger than {MAX_PACK_BYTES // (1024 * 1024)} MB"))
    return _finish(texts, problems, origin)


# ---------------------------------------------------------------------------------------------
# The runtime: which pack a key names


class UnknownPack(LookupError):
    """No pack has this key (no bundled folder, or no published version with this digest)."""


def pack_key(*, slug: str, version: int, digest: str) -> str:
    """The runtime key of a stored version: ``"grocery@1+0123456789abcdef"``."""
    return f"{slug}@{version}+{digest[:16]}"


def key_slug(key: str) -> str:
    """The business type's slug of a key (``"grocery@1+…"`` -> ``"grocery"``)."""
    return key.split("@", 1)[0]


@lru_cache(maxsize=64)
def pack_files(key: str) -> PackFiles:
    """The files a runtime key names, read once per process.

    The key carries the content digest, so what it names never changes: a published version never
    does, and a draft that is uploaded again gets a new digest, hence a new key. Only a published
    version is ever a real store's (``store_pack_move`` refuses drafts); a draft key is what a pack
    evaluation's throwaway store runs (``lab.bench.packs``).

    Raises:
        UnknownPack: no bundled folder or stored version has this key.
    """
    match = _KEY.match(key or "")
    if match is None:
        raise UnknownPack(f"{key!r} is not a business type slug.")
    if match["version"] is None:
        folder = BUNDLED / match["slug"]
        if not (folder / MANIFEST).is_file():
            raise UnknownPack(f"No bundled pack {key!r} (expected {folder / MANIFEST}).")
        read = read_folder(folder)
        return PackFiles(files=read.files, origin=read.origin, key=key, digest=read.digest)
    from tenants.models import PackVersion

    row = (PackVersion.objects.filter(business_type__slug=match["slug"], version=int(match["version"]),
                                      digest__startswith=match["digest"])
           .values_list("files", "digest").first())
    if row is None:
        raise UnknownPack(f"No pack version {key!r}.")
    return PackFiles(files=MappingProxyType(dict(row[0])), origin=key, key=key, digest=row[1])


def store_pack_key(store: Store) -> str:
    """The key of the pack version ``store`` runs: the published version it is pinned to.

    A store not pinned (none of its type was published when it was made) runs its type's bundled
    folder, when there is one.
    """
    pinned = getattr(store, "pack_version_id", None)
    cached: str | None = getattr(store, "_pack_key", None)
    if cached is not None and getattr(store, "_pack_key_of", None) == pinned:
        return cached
    key = store.business_type.slug
    loaded = store._state.fields_cache.get("pack_version") if pinned is not None else None
    if loaded is not None and loaded.pk == pinned:  # fetched with the store (``select_related``)
        key = pack_key(slug=loaded.business_type.slug, version=loaded.version, digest=loaded.digest)
    elif pinned is not None:
        from tenants.models import PackVersion

        row = PackVersion.objects.filter(pk=pinned).values_list(
            "business_type__slug", "version", "digest").first()
        if row is not None:
            key = pack_key(slug=row[0], version=row[1], digest=row[2])
    store._pack_key, store._pack_key_of = key, pinned  # type: ignore[attr-defined]
    return key


def type_pack_keys(business_types: Iterable[BusinessType]) -> dict[int, str]:
    """``type_pack_key`` of each business type, by id, in one query."""
    from tenants.models import PackVersion

    kinds = {kind.pk: kind.slug for kind in business_types}
    keys = dict(kinds)
    rows = (PackVersion.objects.filter(business_type_id__in=kinds, status=PackVersion.Status.PUBLISHED)
            .order_by("business_type_id", "-version").values_list("business_type_id", "version", "digest"))
    seen: set[int] = set()
    for kind_id, version, digest in rows:
        if kind_id not in seen:
            seen.add(kind_id)
            keys[kind_id] = pack_key(slug=kinds[kind_id], version=version, digest=digest)
    return keys


def type_pack_key(business_type: BusinessType) -> str:
    """The key of a business type's newest published version (its bundled folder's slug when it has none)."""
    from tenants.models import PackVersion

    row = (PackVersion.objects.filter(business_type=business_type, status=PackVersion.Status.PUBLISHED)
           .order_by("-version").values_list("version", "digest").first())
    return pack_key(slug=business_type.slug, version=row[0], digest=row[1]) if row else business_type.slug

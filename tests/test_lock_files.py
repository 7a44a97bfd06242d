"""The lock files say what the requirement files ask for: every pin of requirements*.txt is in its
lock at the same version, every locked package carries a sha256 hash, and the runtime lock holds no
lab or test package (a deployment installs requirements.lock alone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", re.M)


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def _asked(path: Path) -> dict[str, str]:
    """The pins of a requirements file and of the files it includes with -r."""
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            pins |= _asked(path.parent / line[3:].strip())
        elif match := PIN.match(line):
            pins[_name(match[1])] = match[2]
    return pins


def _locked(path: Path) -> dict[str, str]:
    return {_name(name): version for name, version in PIN.findall(path.read_text())}


@pytest.mark.parametrize(("source", "lock"), [
    ("requirements.txt", "requirements.lock"),
    ("requirements-dev.txt", "requirements-dev.lock"),
    ("requirements-nodeps.txt", "requirements-nodeps.lock"),
])
def test_every_pin_is_locked_at_its_version(source, lock):
    asked, locked = _asked(ROOT / source), _locked(ROOT / lock)
    # A local version label (torch's "+cpu" build) is the same release as far as the pin goes.
    drift = {name: (version, locked.get(name)) for name, version in asked.items()
             if (locked.get(name) or "").split("+")[0] != version.split("+")[0]}
    assert not drift, f"{lock} is stale; run `make lock`: {drift}"


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock", "requirements-nodeps.lock"])
def test_every_locked_package_has_a_hash(lock):
    entries = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text())
    unhashed = [entry.split()[0] for entry in entries if PIN.match(entry) and "--hash=sha256:" not in entry]
    assert not unhashed


def test_the_runtime_lock_holds_no_lab_or_test_package():
    runtime = _locked(ROOT / "requirements.lock")
    lab_only = set(_asked(ROOT / "requirements-dev.txt")) - set(_asked(ROOT / "requirements.txt"))
    assert lab_only and not (lab_only & set(runtime))

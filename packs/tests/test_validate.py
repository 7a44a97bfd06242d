"""Bad packs are refused with every problem listed (file, path, reason); a pack cannot bring code."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from packs.errors import PackInvalid
from packs.source import BUNDLED, read_folder, read_zip
from packs.validate import pack_schema, pack_validate


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A copy of the grocery pack to break."""
    folder = tmp_path / "pack"
    shutil.copytree(BUNDLED / "grocery", folder)
    return folder


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _problems(folder: Path) -> list[tuple[str, str, str]]:
    with pytest.raises(PackInvalid) as caught:
        pack_validate(read_folder(folder))
    return [(p.file, p.path, p.reason) for p in caught.value.problems]


def test_every_problem_is_listed_with_its_file_and_path_not_only_the_first(pack: Path):
    def router(data):
        data["actions"][1]["behaviour"] = "cut_keys"  # an unknown behaviour
        data["actions"][2]["name"] = data["actions"][3]["name"]  # a duplicate name
        data["actions"][4]["parameters"] = {"topic": "keys"}  # a parameter its behaviour does not take
        data["examples"] = [e for e in data["examples"] if e[1]["action"] != "play_demo"]  # an action without examples

    _edit(pack / "router.json", router)
    _edit(pack / "lexicon.json", lambda d: d["mishearings"].append({"to": "ghee", "from": ["paneer"]}))
    _edit(pack / "evaluation/suites/owner_session.json",
          lambda d: d["turns"][1]["expect"]["args"]["get_inventory"].update(item="Saffron"))
    problems = _problems(pack)
    files_and_paths = {(file, path) for file, path, _ in problems}
    assert ("router.json", "/actions/1/behaviour") in files_and_paths
    assert ("router.json", "/actions/3/name") in files_and_paths
    assert ("router.json", "/actions/4/parameters/topic") in files_and_paths
    assert any(f == "router.json" and "'play_demo' has no examples" in r for f, _, r in problems)
    assert any(f == "lexicon.json" and "'paneer' is the sample catalog's product 'Paneer'" in r for f, _, r in problems)
    assert ("evaluation/suites/owner_session.json", "/turns/1/expect/args/get_inventory/item",
            "'Saffron' is not a product of the sample catalog") in problems


def test_schema_errors_are_all_reported_in_the_files_they_are_in(pack: Path):
    (pack / "pack.yaml").write_text("slug: Grocery!\nname: ''\nversion: zero\n")
    _edit(pack / "guard_vocabulary.json", lambda d: d.update(safe_terms="drill"))
    problems = _problems(pack)
    assert {("pack.yaml", "/slug"), ("pack.yaml", "/name"), ("pack.yaml", "/version"),
            ("guard_vocabulary.json", "/safe_terms")} <= {(f, p) for f, p, _ in problems}
    assert any(f == "pack.yaml" and "'description' is a required property" in r for f, _, r in problems)


def test_code_and_unknown_files_are_refused(pack: Path):
    (pack / "handlers.py").write_text("import os\n")
    (pack / "notes.json").write_text("{}")
    problems = _problems(pack)
    assert ("handlers.py", "", "a pack holds only .json, .yaml and .csv files (no code, no binaries)") in problems
    assert any(f == "notes.json" and "not part of the pack" in r for f, _, r in problems)


def test_an_archive_that_climbs_out_or_links_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pack.yaml", "slug: x\n")
        archive.writestr("../evil.json", "{}")
        link = zipfile.ZipInfo("router.json")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")
    with pytest.raises(PackInvalid) as caught:
        pack_validate(read_zip(buffer.getvalue()))
    problems = [(p.file, p.reason) for p in caught.value.problems]
    assert any(file == "../evil.json" and "inside the pack" in reason for file, reason in problems)
    assert any(file == "router.json" and "symbolic link" in reason for file, reason in problems)


def test_a_zip_of_the_grocery_folder_is_the_same_pack(pack: Path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(pack.rglob("*")):
            if path.is_file():
                archive.write(path, f"grocery/{path.relative_to(pack).as_posix()}")
    assert read_zip(buffer.getvalue()).digest == read_folder(pack).digest


def test_the_sample_catalog_is_checked_as_the_catalog_import_checks_it(pack: Path):
    csv = (pack / "sample_catalog.csv").read_text().splitlines()
    csv[0] += ",colour"
    csv[1] = csv[1].replace("24.99", "cheap") + ",red"
    csv.append(csv[2] + ",")
    (pack / "sample_catalog.csv").write_text("\n".join(csv) + "\n")
    problems = _problems(pack)
    assert any(f == "sample_catalog.csv" and p == "/header/colour" for f, p, _ in problems)
    assert any(f == "sample_catalog.csv" and p == "/row 2/price" for f, p, _ in problems)
    assert any(p.endswith("/sku") and "the same sku as row 3" in r for _, p, r in problems)


def test_the_validate_command_lists_every_problem_and_fails(pack: Path, capsys):
    _edit(pack / "router.json", lambda d: d["actions"][0].update(behaviour="teleport"))
    (pack / "run.sh").write_text("rm -rf /")
    with pytest.raises(CommandError, match="2 problem"):
        call_command("pack", "validate", str(pack))
    err = capsys.readouterr().err
    assert "router.json /actions/0/behaviour: 'teleport' is not one of" in err
    assert "run.sh" in err


def test_the_validate_command_accepts_the_grocery_pack(capsys):
    call_command("pack", "validate", str(BUNDLED / "grocery"), "--json")
    assert json.loads(capsys.readouterr().out)["slug"] == "grocery"


def test_the_schema_is_published_at_a_url(client):
    response = client.get("/packs/schema.json")
    assert response.status_code == 200
    assert response.json() == pack_schema()


def test_the_schemas_behaviours_are_the_routers_handlers():
    from assistant.modes.router.actions import ACTIONS
    from packs.behaviours import BEHAVIOURS

    assert set(pack_schema()["$defs"]["behaviour"]["enum"]) == set(BEHAVIOURS) == set(ACTIONS)

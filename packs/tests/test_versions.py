"""Pack versions in the database: drafts, publishing, a published version that never changes, pinned stores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, transaction

from packs.errors import PackInvalid
from packs.services import pack_install, pack_publish, store_pack_move
from packs.source import BUNDLED, read_folder, store_pack_key
from packs.validate import pack_validate
from tenants.models import BusinessType, PackVersion, Store
from tests.factories import StoreFactory, UserFactory


def _corner_shop(tmp_path: Path, *, version: int = 1, description: str = "milk, bread, eggs and the daily paper",
                 heard: str = "daily papper") -> Path:
    """A new business type made from the grocery pack, with words of its own."""
    folder = tmp_path / f"corner-{version}"
    shutil.copytree(BUNDLED / "grocery", folder)
    manifest = (folder / "pack.yaml").read_text().replace("slug: grocery", "slug: corner-shop")
    (folder / "pack.yaml").write_text(manifest.replace("version: 1", f"version: {version}"))
    for name in ("router.json", "lexicon.json", "guard_vocabulary.json"):
        data = json.loads((folder / name).read_text())
        data["business_type"] = "corner-shop"
        if name == "router.json":
            data["launch_reply"] = "Morning {owner}, the corner shop is open."
            data["actions"][1]["description"] = description
        if name == "lexicon.json":
            data["local_names"].append({"to": "newspaper", "from": [heard]})
        if name == "guard_vocabulary.json":
            data["safe_terms"].append("paper knife")
        (folder / name).write_text(json.dumps(data))
    return folder


def _install(folder: Path, *, publish: bool) -> PackVersion:
    return pack_install(pack=pack_validate(read_folder(folder)), publish=publish, actor="tests")


def test_existing_stores_run_groceries_first_published_version_from_the_bundled_pack(db):
    version = PackVersion.objects.get(business_type__slug="grocery", version=1)
    assert version.status == PackVersion.Status.PUBLISHED
    assert version.digest == read_folder(BUNDLED / "grocery").digest
    store = StoreFactory()
    assert store.pack_version == version
    assert store_pack_key(store) == f"grocery@1+{version.digest[:16]}"


def test_a_published_version_never_changes_not_even_by_a_direct_update(db):
    version = PackVersion.objects.get(business_type__slug="grocery", version=1)
    with pytest.raises(DatabaseError), transaction.atomic():
        PackVersion.objects.filter(pk=version.pk).update(files={"pack.yaml": "slug: grocery\n"})
    with pytest.raises(DatabaseError), transaction.atomic():
        PackVersion.objects.filter(pk=version.pk).update(status=PackVersion.Status.DRAFT)
    with pytest.raises(DatabaseError), transaction.atomic():
        PackVersion.objects.filter(pk=version.pk).update(description="Now with hardware")
    version.refresh_from_db()
    assert version.digest == read_folder(BUNDLED / "grocery").digest == _digest(version)
    version.save()  # the same values again change nothing and pass


def _digest(version: PackVersion) -> str:
    from packs.source import digest_of

    return digest_of(version.files)


def test_a_draft_is_replaced_by_a_new_upload_and_a_published_one_is_refused(db, tmp_path):
    draft = _install(_corner_shop(tmp_path), publish=False)
    assert draft.status == PackVersion.Status.DRAFT and not Store.objects.filter(pack_version=draft).exists()
    again = _install(_corner_shop(tmp_path / "b", heard="dayly paper"), publish=False)
    assert again.pk == draft.pk and again.digest != draft.digest
    published = pack_publish(version=again)
    with pytest.raises(PackInvalid, match="published and never changes"):
        _install(_corner_shop(tmp_path / "c", heard="daly paper"), publish=True)
    published.refresh_from_db()
    assert published.digest == again.digest and published.status == PackVersion.Status.PUBLISHED


def test_a_stores_prompt_lexicon_and_actions_come_from_its_own_types_published_version(db, tmp_path):
    from assistant.guard.vocabulary import safe_terms_mask
    from assistant.lexicon import lexicon_for
    from assistant.modes.router.prompt import router_pack, static_prompt
    from tenants.services import store_create

    v1 = _install(_corner_shop(tmp_path), publish=True)
    corner = store_create(name="Corner", business_type="corner-shop", timezone="UTC", currency="USD",
                          owner=UserFactory())
    grocery = StoreFactory()
    assert corner.pack_version == v1
    key = store_pack_key(corner)
    assert "milk, bread, eggs and the daily paper" in static_prompt(router_pack(key))
    assert router_pack(key).launch_reply == "Morning {owner}, the corner shop is open."
    assert lexicon_for(key).corrections[("daily", "papper")].target == "newspaper"
    grocery_key = store_pack_key(grocery)
    assert "daily paper" not in static_prompt(router_pack(grocery_key))
    assert ("daily", "papper") not in lexicon_for(grocery_key).corrections
    assert safe_terms_mask("where is the paper knife", key) == "where is the item"  # its guard vocabulary too
    assert safe_terms_mask("where is the paper knife", grocery_key) == "where is the paper knife"

    # A new version does not move the store; moving it does.
    v2 = _install(_corner_shop(tmp_path / "v2", version=2, description="the day's papers, milk and bread"),
                  publish=True)
    corner = Store.objects.get(pk=corner.pk)
    assert corner.pack_version == v1 and "daily paper" in static_prompt(router_pack(store_pack_key(corner)))
    store_pack_move(store=corner, version=v2)
    corner = Store.objects.get(pk=corner.pk)
    assert "the day's papers" in static_prompt(router_pack(store_pack_key(corner)))


def test_a_store_cannot_move_onto_a_draft_or_another_types_version(db, tmp_path):
    draft = _install(_corner_shop(tmp_path), publish=False)
    store = StoreFactory()
    with pytest.raises(PackInvalid):
        store_pack_move(store=store, version=draft)
    with pytest.raises(PackInvalid):
        store_pack_move(store=store, version=pack_publish(version=draft))
    assert Store.objects.get(pk=store.pk).pack_version.business_type.slug == "grocery"


def test_the_install_command_validates_then_stores_a_draft_or_publishes(db, tmp_path, capsys):
    folder = _corner_shop(tmp_path)
    call_command("pack", "install", str(folder), "--json")
    assert json.loads(capsys.readouterr().out)["status"] == "draft"
    call_command("pack", "install", str(folder), "--publish", "--json")
    out = json.loads(capsys.readouterr().out)
    assert (out["slug"], out["version"], out["status"]) == ("corner-shop", 1, "published")
    assert BusinessType.objects.get(slug="corner-shop").versions.count() == 1


def test_a_refused_install_stores_nothing(db, tmp_path):
    folder = _corner_shop(tmp_path)
    router = json.loads((folder / "router.json").read_text())
    router["actions"][0]["behaviour"] = "open_the_till"
    (folder / "router.json").write_text(json.dumps(router))
    with pytest.raises(CommandError, match="nothing was stored"):
        call_command("pack", "install", str(folder), "--publish")
    assert not BusinessType.objects.filter(slug="corner-shop").exists()
    assert not PackVersion.objects.filter(business_type__slug="corner-shop").exists()

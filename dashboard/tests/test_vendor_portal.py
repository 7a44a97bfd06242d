"""The vendor portal over HTTP: upload a pack, see every problem, publish; vendors see no store data and no /ops/."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from packs.source import BUNDLED
from tenants.models import BusinessType, PackVersion, Store
from tests.factories import UserFactory


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _zip(folder: Path) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return SimpleUploadedFile(f"{folder.name}.zip", buffer.getvalue(), content_type="application/zip")


def _pack(tmp_path: Path, slug: str = "corner-shop", *, break_it: bool = False) -> Path:
    folder = tmp_path / slug
    shutil.copytree(BUNDLED / "grocery", folder)
    (folder / "pack.yaml").write_text((folder / "pack.yaml").read_text().replace("slug: grocery", f"slug: {slug}")
                                      .replace("name: Grocery", "name: Corner shop"))
    for name in ("router.json", "lexicon.json", "guard_vocabulary.json"):
        data = json.loads((folder / name).read_text())
        data["business_type"] = slug
        if break_it and name == "router.json":
            data["actions"][0]["behaviour"] = "print_money"
            data["examples"] = [e for e in data["examples"] if e[1]["action"] != "alerts"]
        (folder / name).write_text(json.dumps(data))
    if break_it:
        (folder / "hook.py").write_text("import os\n")
    return folder


@pytest.fixture
def vendor(db):
    return UserFactory(username="vera", vendor=True)


def test_a_vendor_uploads_a_pack_as_a_draft_then_publishes_it_and_sign_up_offers_it(vendor, tmp_path):
    client = _client(vendor)
    response = client.post("/vendors/packs/", {"pack": _zip(_pack(tmp_path))})
    assert response.status_code == 302
    draft = PackVersion.objects.get(business_type__slug="corner-shop", version=1)
    assert draft.status == PackVersion.Status.DRAFT
    assert draft.business_type.vendor == vendor

    owner = UserFactory(username="olive")
    signup = _client(owner).get("/app/stores/new/")
    assert "corner-shop" not in [slug for slug, _ in signup.context["form"].fields["business_type"].choices]

    assert client.post("/vendors/packs/corner-shop/1/publish").status_code == 302
    draft.refresh_from_db()
    assert draft.status == PackVersion.Status.PUBLISHED
    signup = _client(owner).get("/app/stores/new/")
    assert ("corner-shop", "Corner shop") in signup.context["form"].fields["business_type"].choices


def test_a_broken_upload_lists_every_problem_and_stores_nothing(vendor, tmp_path):
    response = _client(vendor).post("/vendors/packs/", {"pack": _zip(_pack(tmp_path, break_it=True))})
    assert response.status_code == 400
    problems = {(p.file, p.path) for p in response.context["problems"]}
    assert ("router.json", "/actions/0/behaviour") in problems
    assert ("hook.py", "") in problems
    assert any(p.file == "router.json" and "'alerts' has no examples" in p.reason for p in response.context["problems"])
    html = response.content.decode()
    assert "Nothing was stored" in html and "print_money" in html
    assert not BusinessType.objects.filter(slug="corner-shop").exists()


def test_a_vendor_cannot_change_another_vendors_type_or_grocery(vendor, tmp_path):
    other = UserFactory(username="otto", vendor=True)
    assert _client(other).post("/vendors/packs/", {"pack": _zip(_pack(tmp_path))}).status_code == 302
    response = _client(vendor).post("/vendors/packs/", {"pack": _zip(_pack(tmp_path / "again"))})
    assert response.status_code == 400
    assert any("belongs to another vendor" in p.reason for p in response.context["problems"])
    assert _client(vendor).post("/vendors/packs/corner-shop/1/publish").status_code == 404
    grocery = tmp_path / "g"
    shutil.copytree(BUNDLED / "grocery", grocery)
    (grocery / "pack.yaml").write_text((grocery / "pack.yaml").read_text().replace("version: 1", "version: 2"))
    response = _client(vendor).post("/vendors/packs/", {"pack": _zip(grocery)})
    assert response.status_code == 400
    assert not PackVersion.objects.filter(business_type__slug="grocery", version=2).exists()


def test_a_vendor_sees_no_store_data_and_no_ops_page(vendor, demo):
    client = _client(vendor)
    for url in ("/ops/", "/ops/audit/", "/ops/audit/calls/", "/ops/metrics/", "/app/", "/app/inventory/",
                "/app/talk/", "/api/v1/products", "/api/v1/sales/today", "/api/v1/audit", "/api/v1/drafts"):
        response = client.get(url)
        assert response.status_code in (302, 403, 404), url
        assert "Turmeric powder" not in response.content.decode(), url
    page = client.get("/vendors/packs/").content.decode()
    assert "Turmeric powder" not in page and demo.name not in page
    preview = client.get("/vendors/grocery/", {"store": demo.slug})
    assert preview.status_code == 404 and preview.context["prompt"] is None
    assert Store.objects.filter(memberships__user=vendor).count() == 0


def test_owners_and_signed_out_visitors_get_no_portal(owner, store, tmp_path):
    assert Client().get("/vendors/packs/").status_code == 302
    assert _client(owner).get("/vendors/packs/").status_code == 403
    assert _client(owner).post("/vendors/packs/", {"pack": _zip(_pack(tmp_path))}).status_code == 403
    assert not BusinessType.objects.filter(slug="corner-shop").exists()


def test_a_vendor_previews_the_router_prompt_of_a_draft_for_its_sample_catalog(vendor, tmp_path):
    client = _client(vendor)
    client.post("/vendors/packs/", {"pack": _zip(_pack(tmp_path))})
    response = client.get("/vendors/packs/corner-shop/1/", {"say": "where is the jeera"})
    assert response.status_code == 200
    system, user = (m["content"] for m in response.context["messages"])
    assert "1 find_product:" in system and "Turmeric powder (haldi)" in system and "Store: Sample store" in system
    assert user.endswith("Request: where is the jeera\nJSON:")
    assert response.context["tokens"] == -(-response.context["chars"] // 4) > 0
    other = _client(UserFactory(username="otto", vendor=True))
    assert other.get("/vendors/packs/corner-shop/1/").status_code == 404  # another vendor's draft

"""The vendor portal's editor over HTTP: a new pack from a template, files edited in the page, every problem listed.

A draft is saved in place; a published version never changes (editing it saves the next version's
draft); only the vendor who created a type edits it; bad input is a 400 that stores nothing.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from packs.services import pack_publish
from packs.source import MAX_FILE_BYTES
from tenants.models import BusinessType, PackVersion
from tests.factories import UserFactory

NEW = "/vendors/packs/new"
EDIT = "/vendors/packs/key-kiosk/{}/edit"


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def vendor(db):
    return UserFactory(username="vera", vendor=True)


@pytest.fixture
def kiosk(vendor) -> PackVersion:
    """Draft 1 of "Key kiosk", made from the hardware template through the portal."""
    response = _client(vendor).post(NEW, {"template": "hardware", "slug": "key-kiosk", "name": "Key kiosk"})
    assert response.status_code == 302 and response["Location"] == EDIT.format(1) + "?created=1"
    return PackVersion.objects.get(business_type__slug="key-kiosk", version=1)


def _form(version: PackVersion, **changes: str) -> dict[str, str]:
    """The edit form as the page posts it: every file's textarea, with ``changes`` (file -> text)."""
    return {f"file:{name}": changes.get(name, text) for name, text in version.files.items()}


def _renamed(text: str) -> str:
    return text.replace("find_product", "check_peg")


def test_a_new_pack_from_a_template_is_the_templates_files_under_the_new_slug_and_name(vendor, kiosk):
    assert kiosk.status == PackVersion.Status.DRAFT and kiosk.business_type.vendor == vendor
    assert kiosk.business_type.name == "Key kiosk"
    assert "slug: key-kiosk\nname: \"Key kiosk\"\nversion: 1\n" in kiosk.files["pack.yaml"]
    for name in ("router.json", "lexicon.json", "guard_vocabulary.json"):
        assert json.loads(kiosk.files[name])["business_type"] == "key-kiosk"
    assert "Wood screws" in kiosk.files["sample_catalog.csv"]
    page = _client(vendor).get(EDIT.format(1))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="file:router.json"' in html and 'name="upload:sample_catalog.csv"' in html


def test_a_new_pack_needs_a_free_valid_slug_and_a_known_template(vendor, kiosk):
    client = _client(vendor)
    for data, field in (({"template": "hardware", "slug": "key-kiosk", "name": "Again"}, "slug"),
                        ({"template": "hardware", "slug": "Key Kiosk!", "name": "Bad"}, "slug"),
                        ({"template": "../grocery", "slug": "other-kiosk", "name": "Other"}, "template"),
                        ({"template": "hardware", "slug": "other-kiosk", "name": "   "}, "name")):
        response = client.post(NEW, data)
        assert response.status_code == 400 and field in response.context["form"].errors, data
    response = client.post(NEW, {"template": "grocery", "slug": "packs", "name": "Packs"})
    assert response.status_code == 400
    assert [(p.file, p.path) for p in response.context["problems"]] == [("pack.yaml", "/slug")]
    assert set(BusinessType.objects.values_list("slug", flat=True)) == {"grocery", "key-kiosk"}


def test_a_draft_edit_with_problems_lists_every_one_with_file_and_path_and_stores_nothing(vendor, kiosk):
    form = _form(kiosk, **{"router.json": _renamed(kiosk.files["router.json"]),
                           "lexicon.json": "{\"version\": 1,"})
    response = _client(vendor).post(EDIT.format(1), form)
    assert response.status_code == 400
    where = {(p.file, p.path) for p in response.context["problems"]}
    assert ("lexicon.json", "") in where  # not readable JSON
    assert any(file == "matcher.yaml" and path.startswith("/intents") for file, path in where)
    assert any(file == "evaluation/routing_set.json" for file, _ in where)
    html = response.content.decode()
    assert "Nothing was stored" in html and "not readable JSON" in html and "check_peg" in html  # the typed text stays
    kiosk.refresh_from_db()
    assert "check_peg" not in kiosk.files["router.json"]


def test_a_valid_draft_edit_is_saved_in_place_and_unchanged_text_keeps_its_digest(vendor, kiosk):
    client = _client(vendor)
    before = kiosk.digest
    crlf = {key: value.replace("\n", "\r\n") for key, value in _form(kiosk).items()}  # as a browser sends a textarea
    assert client.post(EDIT.format(1), crlf).status_code == 302
    kiosk.refresh_from_db()
    assert kiosk.digest == before

    renamed = {name: _renamed(text) for name, text in kiosk.files.items()}
    router = json.loads(renamed["router.json"])
    next(a for a in router["actions"] if a["name"] == "check_peg")["behaviour"] = "find_product"
    renamed["router.json"] = json.dumps(router, indent=1)
    response = client.post(EDIT.format(1), _form(kiosk, **renamed))
    assert response.status_code == 302 and response["Location"] == EDIT.format(1) + "?saved=1"
    kiosk.refresh_from_db()
    assert kiosk.status == PackVersion.Status.DRAFT and kiosk.digest != before
    assert any(a["name"] == "check_peg" for a in json.loads(kiosk.files["router.json"])["actions"])
    assert PackVersion.objects.filter(business_type__slug="key-kiosk").count() == 1


def test_editing_a_published_version_saves_the_next_versions_draft_and_never_changes_it(vendor, kiosk):
    client = _client(vendor)
    published = pack_publish(version=kiosk)
    page = client.get(EDIT.format(1))
    assert page.status_code == 200 and page.context["target"] == 2
    assert "version: 2" in dict(page.context["files"])["pack.yaml"]
    shown = dict(page.context["files"])
    catalog = shown["sample_catalog.csv"].rstrip("\n") + "\nKK-001,Brass key blank SC1,,Keys,each,1,Aisle 9,key board,hook 12,,1.99," \
                                            "0.40,Kaba,50,10,sc1 blank,true\n"
    form = {f"file:{name}": text for name, text in shown.items()} | {"file:sample_catalog.csv": catalog}
    response = client.post(EDIT.format(1), form)
    assert response.status_code == 302 and response["Location"] == EDIT.format(2) + "?saved=1"
    draft = PackVersion.objects.get(business_type__slug="key-kiosk", version=2)
    assert draft.status == PackVersion.Status.DRAFT and "Brass key blank SC1" in draft.files["sample_catalog.csv"]
    assert PackVersion.objects.get(pk=published.pk).digest == published.digest

    # The next draft exists now: the published version's page sends the vendor there and saves nothing.
    again = client.post(EDIT.format(1), form)
    assert again.status_code == 400 and again.context["newer"].version == 2
    assert PackVersion.objects.filter(business_type__slug="key-kiosk").count() == 2


def test_an_edit_must_keep_the_slug_and_version_the_page_edits(vendor, kiosk):
    manifest = kiosk.files["pack.yaml"].replace("slug: key-kiosk", "slug: grocery").replace("version: 1", "version: 7")
    response = _client(vendor).post(EDIT.format(1), _form(kiosk, **{"pack.yaml": manifest}))
    assert response.status_code == 400
    assert {("pack.yaml", "/slug"), ("pack.yaml", "/version")} <= {(p.file, p.path) for p in response.context["problems"]}
    assert not PackVersion.objects.filter(version=7).exists()
    assert PackVersion.objects.filter(business_type__slug="grocery").count() == 1


def test_bad_files_are_clear_problems_never_a_500_and_store_nothing(vendor, kiosk):
    client = _client(vendor)
    before = kiosk.digest
    cases = [
        ({"file:pack.yaml": "slug: [key-kiosk\n"}, "pack.yaml", "not readable YAML"),
        ({"file:../../etc/passwd.json": "{}"}, "../../etc/passwd.json", "not an allowed file name"),
        ({"new_path": "evaluation/../../hook.json", "new_text": "{}"}, "evaluation/../../hook.json",
         "not an allowed file name"),
        ({"new_path": "hook.py", "new_text": "import os"}, "hook.py", "no code"),
        ({"upload:guides.json": SimpleUploadedFile("guides.json", b"\xff\xfe{}")}, "guides.json", "not UTF-8"),
        ({"upload:sample_catalog.csv": SimpleUploadedFile("big.csv", b"x" * (MAX_FILE_BYTES + 1))},
         "sample_catalog.csv", "larger than 2 MB"),
    ]
    for change, file, reason in cases:
        response = client.post(EDIT.format(1), _form(kiosk) | change)
        assert response.status_code == 400, change
        assert any(p.file == file and reason in p.reason for p in response.context["problems"]), (change, reason)
    kiosk.refresh_from_db()
    assert kiosk.digest == before


def test_text_over_the_request_limit_is_a_clear_problem(vendor, kiosk, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 50_000
    response = _client(vendor).post(EDIT.format(1), _form(kiosk, **{"router.json": "x" * 60_000}))
    assert response.status_code == 400
    assert response.context["problems"][0].reason.startswith("the edited text is larger than 48.8\xa0KB")


def test_only_the_vendor_who_created_the_type_edits_it(vendor, kiosk, owner, store):
    other = _client(UserFactory(username="otto", vendor=True))
    assert other.get(EDIT.format(1)).status_code == 404
    assert other.post(EDIT.format(1), _form(kiosk, **{"pack.yaml": "slug: x"})).status_code == 404
    assert _client(owner).get(EDIT.format(1)).status_code == 403
    assert _client(owner).post(NEW, {"template": "hardware", "slug": "owner-kiosk", "name": "O"}).status_code == 403
    assert Client().get(EDIT.format(1)).status_code == 302
    assert _client(vendor).get("/vendors/packs/grocery/1/edit").status_code == 404  # the platform's type
    assert _client(vendor).get("/vendors/packs/key-kiosk/9/edit").status_code == 404
    assert PackVersion.objects.get(pk=kiosk.pk).digest == kiosk.digest
    assert not BusinessType.objects.filter(slug="owner-kiosk").exists()


@pytest.mark.parametrize("template", ["grocery", "hardware", "pharmacy", "bakery"])
def test_every_bundled_pack_is_a_template_that_validates_under_a_new_slug(template):
    from packs.drafting import pack_from_template, template_choices
    from packs.validate import pack_validate

    assert template in dict(template_choices())
    pack = pack_validate(pack_from_template(template=template, slug="new-shop", name="New shop"))
    assert (pack.slug, pack.name, pack.version) == ("new-shop", "New shop", 1)


def test_a_file_is_replaced_by_an_upload_and_added_or_removed_only_when_the_pack_still_holds(vendor, kiosk):
    client = _client(vendor)
    catalog = kiosk.files["sample_catalog.csv"].replace("yellow boxes", "yellow tubs")
    response = client.post(EDIT.format(1), _form(kiosk) | {
        "upload:sample_catalog.csv": SimpleUploadedFile("mine.csv", catalog.replace("\n", "\r\n").encode())})
    assert response.status_code == 302
    kiosk.refresh_from_db()
    assert kiosk.files["sample_catalog.csv"] == catalog  # the upload won over the textarea; line ends as \n

    removed = client.post(EDIT.format(1), _form(kiosk) | {"remove": "evaluation/routing_dev.json"})
    added = client.post(EDIT.format(1), _form(kiosk) | {"new_path": "notes.yaml", "new_text": "hello: there\n"})
    assert removed.status_code == added.status_code == 400
    assert any(p.file == "matcher.yaml" and "routing_dev.json" in p.reason for p in removed.context["problems"])
    assert any(p.file == "notes.yaml" and "not part of the pack" in p.reason for p in added.context["problems"])
    assert PackVersion.objects.get(pk=kiosk.pk).digest == kiosk.digest

"""The catalog, import, sale and goods-received pages through the Django test client, with the books
checked afterwards; staff and other stores get nothing they may not have."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from ledger import selectors, services
from ledger.models import CatalogImport, Product, ReorderDraft, StockEntry
from tenants.context import use_store

HEADER = "sku,name,barcode,category,unit,pack_size,aisle,shelf,position,shelf_note,price,unit_cost,supplier,par_level,reorder_point,aliases,active"


def _csv(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def _upload(client, content: bytes, kind: str = "catalog", name: str = "catalog.csv"):
    return client.post("/app/catalog/import/", {"kind": kind, "file": SimpleUploadedFile(name, content, "text/csv")})


def _run_import(client, content, django_capture_on_commit_callbacks, kind="catalog"):
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(client, content, kind)
    assert response.status_code == 302, response.content.decode()[:500]
    return response["Location"]


def _apply(client, url, django_capture_on_commit_callbacks):
    job_id = int(url.rstrip("/").rsplit("/", 1)[1])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/app/catalog/imports/{job_id}/apply")
    return job_id


def _products(store):
    with use_store(store):
        return {p.sku: p for p in Product.objects.filter(store=store)}


@pytest.fixture
def signed_in(client, owner):
    client.force_login(owner)
    return client


def test_the_owner_adds_a_product_and_it_opens_with_its_count(signed_in, store):
    response = signed_in.post("/app/inventory/new", {
        "name": "Kala namak", "sku": "", "barcode": "", "category": "Spices", "unit": "100 g pack", "pack_size": 12,
        "aisle": "1", "shelf": "spice rack", "position": "row 5", "shelf_note": "pink packs", "price": "2.49",
        "unit_cost": "1.10", "supplier": "Spice Co", "par_level": 20, "reorder_point": 4, "aliases": "black salt | kala namak",
        "stock": 15,
    })
    assert response.status_code == 302
    product = _products(store)["P-00001"]
    assert (product.name, product.stock, product.location, product.aliases) == (
        "Kala namak", 15, "Aisle 1, spice rack, row 5", ["black salt"])
    assert selectors.journal_for(store=store, product=product)[0].reason == StockEntry.Reason.OPENING


def test_a_bad_value_is_a_form_error_naming_the_field_and_nothing_is_added(signed_in, store):
    response = signed_in.post("/app/inventory/new", {"name": "Tea", "price": "1", "pack_size": 1, "unit_cost": 0,
                                                     "par_level": 2, "reorder_point": 5})
    assert response.status_code == 400
    assert "cannot be above par_level" in response.content.decode()
    assert _products(store) == {}


def test_two_people_editing_the_same_product_get_a_conflict_not_an_overwrite(signed_in, store, owner):
    with use_store(store):
        tea = services.product_create(store=store, name="Assam tea", price="9.99", actor="system:test")
    page = signed_in.get(f"/app/inventory/{tea.pk}/edit")
    assert page.status_code == 200
    initial = page.context["form"].initial
    form = {field: "" if initial.get(field) is None else initial[field] for field in page.context["form"].fields}
    form.update(price="10.49", version=tea.version, stock="")
    first = signed_in.post(f"/app/inventory/{tea.pk}/edit", {**form, "name": "Assam tea (loose)"})
    second = signed_in.post(f"/app/inventory/{tea.pk}/edit", {**form, "name": "Assam tea 1 lb"})
    assert first.status_code == 302 and second.status_code == 409
    assert "changed by someone else" in second.content.decode()
    tea = selectors.product_get(store=store, product_id=tea.pk)
    assert (tea.name, tea.price) == ("Assam tea (loose)", Decimal("10.49"))


def test_archived_products_leave_the_catalog_and_keep_their_history(signed_in, store):
    with use_store(store):
        tea = services.product_create(store=store, name="Assam tea", price="9.99", stock=5, actor="system:test")
    assert signed_in.post(f"/app/inventory/{tea.pk}/archive", follow=True).status_code == 200
    assert [p.name for p in selectors.product_list(store=store)] == []
    assert len(selectors.journal_for(store=store, product=tea)) == 1
    assert "Assam tea" not in signed_in.get("/app/inventory/").content.decode()
    signed_in.post(f"/app/inventory/{tea.pk}/restore")
    assert [p.name for p in selectors.product_list(store=store)] == ["Assam tea"]


def _jpeg_with_exif() -> bytes:
    image = Image.new("RGB", (64, 48), (200, 30, 30))
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    return out.getvalue()


def test_a_shelf_photo_is_reencoded_without_exif_and_a_bad_file_keeps_the_old_one(signed_in, store):
    with use_store(store):
        tea = services.product_create(store=store, name="Assam tea", price="9.99", actor="system:test")
    good = SimpleUploadedFile("tea.jpg", _jpeg_with_exif(), "image/jpeg")
    assert signed_in.post(f"/app/inventory/{tea.pk}/photo", {"photo": good}).status_code == 302
    tea = selectors.product_get(store=store, product_id=tea.pk)
    stored = tea.photo.read()
    assert b"SecretCam" not in stored and Image.open(io.BytesIO(stored)).format == "JPEG"
    bad = SimpleUploadedFile("tea.jpg", b"<?php evil ?>", "image/jpeg")
    response = signed_in.post(f"/app/inventory/{tea.pk}/photo", {"photo": bad}, follow=True)
    assert "could not be read" in response.content.decode()
    assert selectors.product_get(store=store, product_id=tea.pk).photo.name == tea.photo.name


def test_staff_cannot_change_the_catalog_or_import(client, staff, store):
    client.force_login(staff)
    assert client.get("/app/inventory/new").status_code == 403
    assert _upload(client, _csv("A1,Tea,,,,,,,,,1.00,,,,,,true")).status_code == 403
    assert client.get("/app/catalog/export.csv").status_code == 403
    with use_store(store):
        assert not CatalogImport.objects.filter(store=store).exists()


def test_importing_a_catalog_previews_each_row_then_applies_it_all(signed_in, store, django_capture_on_commit_callbacks):
    content = _csv(
        "T-1,Assam tea,8901234567890,Tea,1 lb box,12,4,tea shelf,,,9.99,5.50,Tea House,24,5,chai patti|chai,true",
        "T-2,Darjeeling tea,,Tea,,,4,tea shelf,left,,12.00,,,,,,",
        "T-3,,,,,,,,,,oops,,,,,,maybe",
    )
    url = _run_import(signed_in, content, django_capture_on_commit_callbacks)
    page = signed_in.get(url + "?show=all")
    text = page.content.decode()
    job = page.context["job"]
    assert (job.status, job.created, job.rejected) == ("previewed", 2, 1)
    assert "name: is required" in text and "price: &#x27;oops&#x27; is not an amount" in text and "active:" in text
    rejected = [row for row in job.plan if row["status"] == "reject"][0]
    assert rejected["row"] == 4 and {e["column"] for e in rejected["errors"]} == {"name", "price", "active"}
    _apply(signed_in, url, django_capture_on_commit_callbacks)
    assert _products(store) == {}  # a rejected row blocks the whole file

    url = _run_import(signed_in, _csv(*content.decode().splitlines()[1:3]), django_capture_on_commit_callbacks)
    job_id = _apply(signed_in, url, django_capture_on_commit_callbacks)
    with use_store(store):
        assert CatalogImport.objects.get(pk=job_id).status == "applied"
    products = _products(store)
    assert set(products) == {"T-1", "T-2"}
    assert (products["T-1"].location, products["T-1"].aliases, products["T-1"].pack_size) == (
        "Aisle 4, tea shelf", ["chai patti", "chai"], 12)
    assert products["T-2"].location == "Aisle 4, tea shelf, left"


def test_re_importing_the_same_file_changes_nothing(signed_in, store, django_capture_on_commit_callbacks):
    content = _csv("T-1,Assam tea,,Tea,,,4,,,,9.99,,,,,,true")
    _apply(signed_in, _run_import(signed_in, content, django_capture_on_commit_callbacks), django_capture_on_commit_callbacks)
    before = _products(store)["T-1"]
    url = _run_import(signed_in, content, django_capture_on_commit_callbacks)
    job = signed_in.get(url).context["job"]
    assert (job.created, job.changed, job.unchanged, job.rejected) == (0, 0, 1, 0)
    _apply(signed_in, url, django_capture_on_commit_callbacks)
    after = _products(store)["T-1"]
    assert (after.version, after.updated_at) == (before.version, before.updated_at)


def test_export_then_edit_then_import_round_trips(signed_in, store, django_capture_on_commit_callbacks):
    with use_store(store):
        services.product_create(store=store, name="=HYPERLINK(1)", sku="X-1", price="1.00", aliases=["a", "b"],
                                aisle="2", actor="system:test")
        services.product_create(store=store, name="Ghee", sku="G-1", price="17.99", actor="system:test")
    exported = signed_in.get("/app/catalog/export.csv")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    text = exported.content.decode()
    assert text.splitlines()[0] == HEADER and "'=HYPERLINK(1)" in text
    same = _run_import(signed_in, text.encode(), django_capture_on_commit_callbacks)
    assert signed_in.get(same).context["job"].unchanged == 2
    edited = text.replace("Ghee,", "Desi ghee,").replace(",17.99,", ",18.49,")
    url = _run_import(signed_in, edited.encode(), django_capture_on_commit_callbacks)
    job = signed_in.get(url).context["job"]
    assert (job.changed, job.unchanged) == (1, 1)
    _apply(signed_in, url, django_capture_on_commit_callbacks)
    ghee = _products(store)["G-1"]
    assert (ghee.name, ghee.price, ghee.version) == ("Desi ghee", Decimal("18.49"), 2)
    assert _products(store)["X-1"].name == "=HYPERLINK(1)"


def test_an_edit_between_preview_and_apply_is_a_conflict_and_nothing_is_imported(signed_in, store,
                                                                                 django_capture_on_commit_callbacks):
    with use_store(store):
        ghee = services.product_create(store=store, name="Ghee", sku="G-1", price="17.99", actor="system:test")
    url = _run_import(signed_in, _csv("G-1,Ghee,,,,,,,,,19.99,,,,,,true", "N-1,New,,,,,,,,,1.00,,,,,,true"),
                      django_capture_on_commit_callbacks)
    with use_store(store):
        services.product_update(store=store, product=ghee, version=ghee.version, actor="system:test", price="18.00")
    job_id = _apply(signed_in, url, django_capture_on_commit_callbacks)
    with use_store(store):
        job = CatalogImport.objects.get(pk=job_id)
    assert job.status == "failed" and "changed since the preview" in job.error
    assert set(_products(store)) == {"G-1"} and _products(store)["G-1"].price == Decimal("18.00")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"\x00\x01\x02binary", "not a CSV"),
        ("sku,name\nA,Caf\xe9\n".encode("latin-1"), "UTF-8"),
        (b"sku,name,colour\nA,B,red\n", "Unknown column"),
        (b"name,price\nTea,1\n", "sku"),
        (b"sku,name,sku\nA,B,C\n", "twice"),
    ],
)
def test_a_hostile_or_malformed_file_is_refused_with_a_reason(signed_in, store, django_capture_on_commit_callbacks,
                                                              content, message):
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(signed_in, content)
    if response.status_code == 302:
        job = signed_in.get(response["Location"]).context["job"]
        assert job.status == "failed" and message in job.error
    else:
        assert response.status_code == 400 and message in response.content.decode()
    assert _products(store) == {}


def test_an_opening_stock_count_imports_through_the_journal(signed_in, store, django_capture_on_commit_callbacks):
    with use_store(store):
        services.product_create(store=store, name="Ghee", sku="G-1", barcode="123", price="17.99", actor="system:test")
        services.product_create(store=store, name="Atta", sku="A-1", price="19.99", stock=4, actor="system:test")
    url = _run_import(signed_in, b"sku,stock\nG-1,12\nA-1,4\nZ-9,3\n", django_capture_on_commit_callbacks, kind="stock")
    job = signed_in.get(url).context["job"]
    assert (job.changed, job.unchanged, job.rejected) == (1, 1, 1)
    url = _run_import(signed_in, b"barcode,stock\n123,12\n", django_capture_on_commit_callbacks, kind="stock")
    _apply(signed_in, url, django_capture_on_commit_callbacks)
    ghee = _products(store)["G-1"]
    entry = selectors.journal_for(store=store, product=ghee)[-1]
    assert (ghee.stock, entry.reason, entry.before, entry.after) == (12, StockEntry.Reason.OPENING, 0, 12)


def test_another_stores_import_is_not_found(signed_in, other_store, other_owner, client, django_capture_on_commit_callbacks):
    from django.test import Client

    theirs = Client()
    theirs.force_login(other_owner)
    url = _run_import(theirs, _csv("S-1,Secret,,,,,,,,,1.00,,,,,,true"), django_capture_on_commit_callbacks)
    assert signed_in.get(url).status_code == 404
    job_id = int(url.rstrip("/").rsplit("/", 1)[1])
    assert signed_in.post(f"/app/catalog/imports/{job_id}/apply").status_code == 404


def test_recording_a_sale_on_the_page_makes_stock_fall(client, staff, store):
    with use_store(store):
        tea = services.product_create(store=store, name="Assam tea", sku="T-1", price="9.99", stock=5, actor="system:test")
    client.force_login(staff)
    response = client.post("/app/sales/new", {"product": "assam", "qty": 2}, follow=True)
    assert response.status_code == 200 and "3 left in stock" in response.content.decode()
    assert selectors.product_get(store=store, product_id=tea.pk).stock == 3
    oversold = client.post("/app/sales/new", {"product": "T-1", "qty": 9}, follow=True)
    assert "needs a recount" in oversold.content.decode()
    assert selectors.product_get(store=store, product_id=tea.pk).stock == 0
    unknown = client.post("/app/sales/new", {"product": "caviar", "qty": 1})
    assert unknown.status_code == 400 and "No product matches" in unknown.content.decode()


def test_goods_received_on_the_page_raise_stock_and_a_repeat_is_a_conflict(client, staff, store):
    with use_store(store):
        tea = services.product_create(store=store, name="Assam tea", price="9.99", stock=1, par_level=10, actor="system:test")
        draft = services.draft_create(store=store, items=[(tea, 9)], actor="system:test", source=ReorderDraft.Source.DASHBOARD)
        order = services.draft_confirm(store=store, draft_id=draft.pk, actor="system:test")
    line = order.lines.all()[0]
    client.force_login(staff)
    form = {f"line-{line.pk}": 4, f"seen-{line.pk}": 0}
    assert client.post(f"/app/orders/{order.pk}/receive", form).status_code == 302
    assert selectors.product_get(store=store, product_id=tea.pk).stock == 5
    again = client.post(f"/app/orders/{order.pk}/receive", form)
    assert again.status_code == 409 and selectors.product_get(store=store, product_id=tea.pk).stock == 5
    rest = client.post(f"/app/orders/{order.pk}/receive", {"all": "1", f"seen-{line.pk}": 4})
    assert rest.status_code == 302
    assert selectors.product_get(store=store, product_id=tea.pk).stock == 10
    assert selectors.order_get(store=store, order_id=order.pk).status == "received"

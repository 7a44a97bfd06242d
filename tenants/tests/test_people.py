"""Members, invitations, roles and store settings through the pages, with the rows checked afterwards."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import timezone

from ledger import services
from ledger.models import ReorderDraft
from tenants.context import use_store
from tenants.models import Invitation, Membership, ReportRecipient, Store
from tenants.rls import bypass
from tests.factories import UserFactory

PASSWORD = "a sturdy pass phrase 42"


def _link(message) -> str:
    return re.search(r"http://[^\s]+", message.body).group(0).replace("http://127.0.0.1:8000", "")


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def _invite(owner_client, email, role="staff", django_capture_on_commit_callbacks=None):
    with django_capture_on_commit_callbacks(execute=True):
        return owner_client.post("/app/members/", {"email": email, "role": role})


def test_an_invited_new_person_signs_up_from_the_link_and_joins_as_staff(owner_client, store, mailoutbox,
                                                                         django_capture_on_commit_callbacks):
    assert _invite(owner_client, "dev@example.com", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks).status_code == 302
    [mail] = mailoutbox
    link = _link(mail)
    newcomer = Client()
    page = newcomer.get(link)
    assert page.status_code == 200 and b"Create an account" in page.content
    signup = newcomer.post(f"/accounts/signup/?next={link}", {"email": "dev@example.com", "password1": PASSWORD,
                                                            "password2": PASSWORD, "next": link})
    assert signup.status_code == 302, signup.content.decode()[:400]
    joined = newcomer.post(link)
    assert joined.status_code == 302
    membership = Membership.objects.get(store=store, user__email="dev@example.com")
    assert membership.role == "staff"
    assert newcomer.get(link).status_code == 404  # a used link is spent


def test_an_existing_account_with_another_address_cannot_take_the_invitation(owner_client, store, other_owner, mailoutbox,
                                                                              django_capture_on_commit_callbacks):
    _invite(owner_client, "dev@example.com", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    other = Client()
    other.force_login(other_owner)
    refused = other.post(_link(mailoutbox[0]))
    assert refused.status_code == 403 and b"Sign in with that address" in refused.content
    assert not Membership.objects.filter(store=store, user=other_owner).exists()


def test_an_expired_invitation_is_refused(owner_client, store, mailoutbox, django_capture_on_commit_callbacks):
    _invite(owner_client, "dev@example.com", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    with use_store(store):  # invitations are fenced on PostgreSQL
        Invitation.objects.update(expires_at=timezone.now() - dt.timedelta(minutes=1))
    assert Client().get(_link(mailoutbox[0])).status_code == 404


def test_a_bad_address_names_the_field_and_sends_nothing(owner_client, mailoutbox, django_capture_on_commit_callbacks):
    response = _invite(owner_client, "not-an-address", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    assert response.status_code == 400 and mailoutbox == []
    with bypass():  # every store's invitations
        assert not Invitation.objects.exists()


def test_the_owner_changes_a_role_and_removes_a_member_who_then_loses_access(owner_client, store, staff):
    staff_client = Client()
    staff_client.force_login(staff)
    assert staff_client.get("/app/inventory/").status_code == 200
    membership = Membership.objects.get(store=store, user=staff)
    owner_client.post(f"/app/members/{membership.pk}/", {"role": "owner"})
    assert Membership.objects.get(pk=membership.pk).role == "owner"
    owner_client.post(f"/app/members/{membership.pk}/", {"role": "staff"})
    owner_client.post(f"/app/members/{membership.pk}/", {"action": "remove"})
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert staff_client.get("/app/inventory/").status_code == 302  # the same session, on its very next request
    assert staff_client.get("/api/v1/products").status_code == 403


def test_the_last_owner_cannot_be_demoted_or_removed(owner_client, store, owner):
    membership = Membership.objects.get(store=store, user=owner)
    owner_client.post(f"/app/members/{membership.pk}/", {"role": "staff"})
    owner_client.post(f"/app/members/{membership.pk}/", {"action": "remove"})
    assert Membership.objects.get(pk=membership.pk).role == "owner"


def test_staff_cannot_manage_members_settings_or_tokens(client, staff, store, owner):
    client.force_login(staff)
    assert client.get("/app/members/").status_code == 403
    assert client.post("/app/members/", {"email": "x@example.com", "role": "owner"}).status_code == 403
    assert client.get("/app/settings/").status_code == 403
    assert client.get("/app/tokens/").status_code == 403
    owner_membership = Membership.objects.get(store=store, user=owner)
    assert client.post(f"/app/members/{owner_membership.pk}/", {"action": "remove"}).status_code == 403
    assert Membership.objects.filter(store=store).count() == 2
    with bypass():  # every store's invitations
        assert not Invitation.objects.exists()


def test_another_stores_member_cannot_be_changed(owner_client, other_store, other_owner):
    theirs = Membership.objects.get(store=other_store, user=other_owner)
    owner_client.post(f"/app/members/{theirs.pk}/", {"action": "remove"})
    assert Membership.objects.filter(pk=theirs.pk).exists()


def _settings_form(page, **changes):
    form = page.context["form"]
    data = {name: form.initial.get(name, "") or "" for name in form.fields}
    data["report_time"] = form.initial["report_time"].strftime("%H:%M")
    data.update(changes)
    return data


def test_the_owner_saves_settings_and_a_stale_form_is_a_conflict(owner_client, store):
    page = owner_client.get("/app/settings/")
    assert page.status_code == 200
    data = _settings_form(page, name="Corner Shop & Deli", timezone="Asia/Kolkata", currency="INR", report_time="20:30",
                          mon_open="09:00", mon_close="21:00")
    assert owner_client.post("/app/settings/", data).status_code == 302
    store = Store.objects.get(pk=store.pk)
    assert (store.name, store.timezone, store.currency, store.report_time, store.opening_hours) == (
        "Corner Shop & Deli", "Asia/Kolkata", "INR", dt.time(20, 30), {"mon": ["09:00", "21:00"]})
    stale = owner_client.post("/app/settings/", {**data, "name": "Old tab"})
    assert stale.status_code == 409 and Store.objects.get(pk=store.pk).name == "Corner Shop & Deli"


def test_a_store_that_changes_its_type_runs_that_types_newest_published_version(owner_client, store):
    from packs.services import pack_install
    from packs.source import BUNDLED, read_folder, store_pack_key
    from packs.validate import pack_validate
    from tenants.models import BusinessType

    BusinessType.objects.create(slug="hardware", name="Hardware", position=300)  # nothing published
    bakery = pack_install(pack=pack_validate(read_folder(BUNDLED / "bakery")), publish=True, actor="tests")
    grocery = Store.objects.get(pk=store.pk).pack_version
    page = owner_client.get("/app/settings/")
    assert "hardware" not in [slug for slug, _ in page.context["form"].fields["business_type"].choices]
    assert owner_client.post("/app/settings/", _settings_form(page, business_type="bakery")).status_code == 302
    store = Store.objects.get(pk=store.pk)
    assert (store.business_type.slug, store.pack_version) == ("bakery", bakery)
    assert store_pack_key(store).startswith("bakery@1+")
    page = owner_client.get("/app/settings/")
    assert owner_client.post("/app/settings/", _settings_form(page, business_type="grocery")).status_code == 302
    assert Store.objects.get(pk=store.pk).pack_version == grocery


def test_bad_opening_hours_name_the_day_and_save_nothing(owner_client, store):
    page = owner_client.get("/app/settings/")
    response = owner_client.post("/app/settings/", _settings_form(page, tue_open="21:00", tue_close="09:00"))
    assert response.status_code == 400 and b"closing time must be after opening time" in response.content
    assert Store.objects.get(pk=store.pk).opening_hours == {}


def test_a_report_recipient_gets_reports_only_after_confirming(owner_client, store, owner, mailoutbox,
                                                              django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        owner_client.post("/app/settings/recipients", {"email": "books@corner.example"})
    [confirm] = mailoutbox
    with use_store(store):  # recipients are fenced on PostgreSQL
        assert ReportRecipient.objects.get(store=store).confirmed_at is None
    services.report_send(store=store, kind="inventory", actor="system:test")
    assert mailoutbox[-1].to == ["alice@example.com"]
    assert Client().get(_link(confirm)).status_code == 200
    services.report_send(store=store, kind="inventory", actor="system:test")
    assert mailoutbox[-1].to == ["books@corner.example"]


def test_staff_see_approvals_but_cannot_approve(client, staff, store):
    with use_store(store):
        tea = services.product_create(store=store, name="Assam tea", price="9.99", stock=1, par_level=10, actor="system:test")
        draft = services.draft_create(store=store, items=[(tea, 9)], actor="system:test", source=ReorderDraft.Source.DASHBOARD)
    client.force_login(staff)
    response = client.post(f"/app/approvals/{draft.pk}/approve")
    assert response.status_code == 403 and b"Only the store" in response.content
    with use_store(store):
        assert ReorderDraft.objects.get(pk=draft.pk).status == "pending"


def test_a_user_in_two_stores_switches_between_them(client, store, other_store, owner):
    Membership.objects.create(user=owner, store=other_store, role="staff")
    client.force_login(owner)
    page = client.get("/app/inventory/")
    assert b"store-switcher" in page.content
    client.post("/app/stores/switch/", {"store": other_store.pk})
    assert client.get("/app/inventory/").context["current_store"] == other_store
    assert client.get("/app/members/").status_code == 403  # staff there


@pytest.mark.django_db
def test_sign_up_needs_the_email_confirmed_before_the_store_can_send_email(client, mailoutbox):
    user_email = "meera@example.com"
    response = client.post("/accounts/signup/", {"email": user_email, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302 and "confirm-email" in response["Location"]
    assert len(mailoutbox) == 1 and "confirm" in mailoutbox[0].body.lower()
    assert UserFactory._meta.model.objects.filter(email=user_email).exists()


def test_the_business_type_is_chosen_at_sign_up_from_those_available(client, db):
    from packs.services import pack_install
    from packs.source import BUNDLED, read_folder
    from packs.validate import pack_validate
    from tenants.models import BusinessType

    BusinessType.objects.create(slug="hardware", name="Hardware", position=300)  # no published pack: not offered
    version = pack_install(pack=pack_validate(read_folder(BUNDLED / "bakery")), publish=True, actor="tests")
    user = UserFactory(username="baker", email="baker@example.com")
    client.force_login(user)
    form = client.get("/app/stores/new/")
    assert b'value="bakery"' in form.content and b'value="hardware"' not in form.content
    response = client.post("/app/stores/new/", {"name": "Crumbs", "timezone": "UTC", "currency": "GBP", "catalog": "empty",
                                                "business_type": "bakery"})
    assert response.status_code == 302
    crumbs = Store.objects.get(name="Crumbs")
    assert crumbs.business_type.slug == "bakery" and crumbs.pack_version == version
    bad = client.post("/app/stores/new/", {"name": "Nope", "timezone": "UTC", "currency": "GBP", "catalog": "empty",
                                           "business_type": "spaceship"})
    assert bad.status_code == 400 and not Store.objects.filter(name="Nope").exists()


def test_a_store_of_a_packs_type_signs_up_with_its_sample_catalog_and_the_router_lists_it(client, db):
    import csv
    import io

    from assistant.modes.router.prompt import router_pack, static_prompt
    from ledger.models import Product
    from packs.services import pack_install
    from packs.source import BUNDLED, read_folder, store_pack_key
    from packs.validate import pack_validate

    files = read_folder(BUNDLED / "bakery")
    pack_install(pack=pack_validate(files), publish=True, actor="tests")
    rows = list(csv.DictReader(io.StringIO(files.files["sample_catalog.csv"])))
    client.force_login(UserFactory(username="baker", email="baker@example.com"))
    response = client.post("/app/stores/new/", {"name": "Crumbs", "timezone": "UTC", "currency": "GBP",
                                                "catalog": "demo", "business_type": "bakery"})
    assert response.status_code == 302
    crumbs = Store.objects.get(name="Crumbs")
    with use_store(crumbs):
        names = set(Product.objects.filter(store=crumbs).values_list("name", flat=True))
    assert names == {row["name"] for row in rows}
    bakery_actions = [a["name"] for a in router_pack(store_pack_key(crumbs)).actions]
    assert bakery_actions == [a["name"] for a in router_pack("bakery").actions]
    assert static_prompt(router_pack(store_pack_key(crumbs))) == static_prompt(router_pack("bakery"))

"""Platform admin is its own permission: /ops/ and the Django admin check it; is_staff and vendors get nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client

from identity.permissions import is_platform_admin
from tests.factories import UserFactory

OPS_PAGES = ["/ops/", "/ops/audit/", "/ops/audit/calls/", "/ops/metrics/", "/ops/audit/turns/1/"]


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("url", OPS_PAGES)
def test_a_staff_flag_alone_opens_no_ops_page(db, url):
    staff_flag_only = UserFactory(username="sam", is_staff=True)

    assert _client(staff_flag_only).get(url).status_code == 403


@pytest.mark.parametrize("url", OPS_PAGES)
def test_a_vendor_gets_no_ops_page(db, url):
    vendor = UserFactory(username="vera", vendor=True)

    assert _client(vendor).get(url).status_code == 403


def test_a_platform_admin_opens_the_ops_pages(db):
    admin = UserFactory(username="olga", platform_admin=True)
    client = _client(admin)

    assert [client.get(url).status_code for url in OPS_PAGES[:4]] == [200, 200, 200, 200]


def test_the_django_admin_refuses_a_staff_flag_without_the_permission(db):
    staff_flag_only = UserFactory(username="sam", is_staff=True)

    assert _client(staff_flag_only).get("/admin/").status_code == 403
    assert _client(staff_flag_only).get("/admin/tenants/store/").status_code == 403


def test_the_django_admin_sends_a_signed_out_visitor_to_the_site_login(db):
    response = Client().get("/admin/", follow=True)

    assert response.redirect_chain[-1][0].startswith("/accounts/login/")
    assert response.status_code == 200


def test_the_django_admin_opens_for_a_platform_admin(db):
    admin = UserFactory(username="olga", platform_admin=True, is_superuser=True)

    assert _client(admin).get("/admin/").status_code == 200
    assert _client(admin).get("/admin/tenants/store/").status_code == 200


def test_a_vendor_sees_every_business_type_but_not_another_stores_prompt(store, other_store, other_owner):
    vendor = UserFactory(username="vera", vendor=True)
    client = _client(vendor)

    assert client.get("/vendors/").status_code == 200
    preview = client.get("/vendors/grocery/", {"store": other_store.slug})
    assert preview.status_code == 404
    assert preview.context["prompt"] is None


def test_a_platform_admin_may_preview_any_stores_prompt(store, other_store):
    admin = UserFactory(username="olga", platform_admin=True)

    response = _client(admin).get("/vendors/grocery/", {"store": other_store.slug})

    assert response.status_code == 200
    assert response.context["chosen"] == other_store


def test_the_nav_shows_platform_only_to_platform_admins(owner, store):
    admin = UserFactory(username="olga", platform_admin=True)
    staff_flag_only = UserFactory(username="sam", is_staff=True)

    assert 'href="/ops/"' in _client(admin).get("/vendors/").content.decode()
    assert 'href="/ops/"' not in _client(staff_flag_only).get("/accounts/email/").content.decode()
    assert 'href="/ops/"' not in _client(owner).get("/app/").content.decode()


def test_the_platform_role_command_grants_and_revokes(db):
    user = UserFactory(username="olga", email="olga@shelfwise.example")

    call_command("platform_role", "grant", "admin", "OLGA@shelfwise.example", stdout=io.StringIO())
    assert is_platform_admin(type(user).objects.get(pk=user.pk))

    call_command("platform_role", "revoke", "admin", "olga@shelfwise.example", stdout=io.StringIO())
    assert not is_platform_admin(type(user).objects.get(pk=user.pk))

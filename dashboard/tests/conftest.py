"""A platform admin (identity.platform_admin, not a store member) and a browser session signed in as them."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import UserFactory


@pytest.fixture
def admin(db):
    return UserFactory(username="olga", email="olga@shelfwise.example", platform_admin=True)


@pytest.fixture
def admin_client(admin):
    client = Client()
    client.force_login(admin)
    return client

"""The fixed cast: the store's owner, a staff member, and another store's owner (alice/bob/charlie)."""

from __future__ import annotations

import pytest

from tenants.models import Membership
from tests.factories import MembershipFactory, StoreFactory, UserFactory


@pytest.fixture
def store(db):
    return StoreFactory(slug="corner-shop", name="Corner Shop")


@pytest.fixture
def owner(store):
    user = UserFactory(username="alice", email="alice@example.com")
    MembershipFactory(user=user, store=store, role=Membership.Role.OWNER)
    return user


@pytest.fixture
def staff(store):
    user = UserFactory(username="bob", email="bob@example.com")
    MembershipFactory(user=user, store=store, role=Membership.Role.STAFF)
    return user


@pytest.fixture
def other_store(db):
    return StoreFactory(slug="other-shop", name="Other Shop")


@pytest.fixture
def other_owner(other_store):
    user = UserFactory(username="charlie", email="charlie@example.com")
    MembershipFactory(user=user, store=other_store, role=Membership.Role.OWNER)
    return user

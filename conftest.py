"""The fixed cast: the store's owner, a staff member, and another store's owner (alice/bob/charlie)."""

from __future__ import annotations

import pytest

from tenants.models import Membership
from tests.factories import MembershipFactory, StoreFactory, UserFactory, verified


@pytest.fixture(autouse=True, scope="session")
def _media_root(tmp_path_factory):
    """Uploaded files (shelf photos) go to a temporary folder, never the real MEDIA_ROOT."""
    from django.test import override_settings

    with override_settings(MEDIA_ROOT=str(tmp_path_factory.mktemp("media"))):
        yield


def pytest_collection_modifyitems(items):
    """Transactional tests restore the migrated rows (content types, the grocery business type).

    Their teardown empties every table; without this, a later transactional test finds no
    business type, and a later serialized one clashes with content types recreated under new ids.
    """
    for item in items:
        marker = item.get_closest_marker("django_db")
        if marker and marker.kwargs.get("transaction") and "serialized_rollback" not in marker.kwargs:
            kwargs = {**marker.kwargs, "serialized_rollback": True}
            item.add_marker(pytest.mark.django_db(*marker.args, **kwargs), append=False)


@pytest.fixture(autouse=True)
def _no_sign_up_rate_limits(settings):
    """allauth limits confirmation emails per address (1 in 3 minutes, in the cache); tests sign up
    the same addresses many times in one process, so its limits are off here."""
    settings.ACCOUNT_RATE_LIMITS = False


@pytest.fixture(autouse=True, scope="session")
def _celery_eager():
    """Tasks run in-process in tests, also where a broker is configured (CI's Redis)."""
    from shelfwise.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture(autouse=True, scope="session")
def _fast_path_off():
    """The router's fast path is off unless a test turns it on (``settings.SHELFWISE_FAST_PATH = True``).

    Most tests script the router model's answer at its process boundary; the matcher would answer
    before the script. The fast path's own tests (``assistant/matcher/tests``) turn it on.
    """
    from django.conf import settings

    saved = getattr(settings, "SHELFWISE_FAST_PATH", True)
    settings.SHELFWISE_FAST_PATH = False
    yield
    settings.SHELFWISE_FAST_PATH = saved


@pytest.fixture
def store(db):
    return StoreFactory(slug="corner-shop", name="Corner Shop")


@pytest.fixture
def owner(store):
    user = verified(UserFactory(username="alice", email="alice@example.com"))
    MembershipFactory(user=user, store=store, role=Membership.Role.OWNER)
    return user


@pytest.fixture
def demo(store):
    """The store with the demo catalog (ledger/demo.py: the grocery products, shelves and today's sales)."""
    from ledger.demo import install_demo_catalog
    from tenants.context import use_store

    with use_store(store):
        install_demo_catalog(store=store)
    return store


def _token_client(store, scopes):
    from rest_framework.test import APIClient

    from tenants.services import token_create

    _, raw = token_create(store=store, name="tests", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def api_client(demo):
    """A REST client holding the demo store owner's own token (``api`` and ``orders:confirm``)."""
    return _token_client(demo, ["api", "orders:confirm"])


@pytest.fixture
def staff_api_client(demo):
    """A REST client holding a staff member's token of the demo store (``api`` only: it cannot confirm orders)."""
    return _token_client(demo, ["api"])


@pytest.fixture
def staff(store):
    user = verified(UserFactory(username="bob", email="bob@example.com"))
    MembershipFactory(user=user, store=store, role=Membership.Role.STAFF)
    return user


@pytest.fixture
def other_store(db):
    return StoreFactory(slug="other-shop", name="Other Shop")


@pytest.fixture
def other_owner(other_store):
    user = verified(UserFactory(username="charlie", email="charlie@example.com"))
    MembershipFactory(user=user, store=other_store, role=Membership.Role.OWNER)
    return user


@pytest.fixture(autouse=True)
def _roomy_api_throttles(monkeypatch):
    """Throttle counters outlive a test in the cache (and SQLite reuses user ids): other tests get
    roomy budgets; shelfwise/tests/test_throttling.py sets tight ones and checks them."""
    from shelfwise.throttling import CallerRateThrottle

    monkeypatch.setattr(CallerRateThrottle, "THROTTLE_RATES", {"turns": "10000/min", "writes": "10000/min"})


@pytest.fixture(autouse=True)
def _roomy_voice_sockets(settings):
    """Voice socket slots live in the cache too: other tests get a roomy cap;
    assistant/tests/test_voice_socket_limits.py sets a tight one and checks it."""
    settings.VOICE_SOCKETS_PER_USER = 100


@pytest.fixture
def router():
    """The router model replaced at its process boundary by a scripted fake (``router.add(...)`` per turn)."""
    from inference.base import Role
    from inference.fake import fake_models

    with fake_models(Role.ROUTER) as fake:
        yield fake


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel layer for every test. One layer serves one event loop: a socket left receiving
    by an earlier test's loop (a live server's, an ``asyncio.run``'s) made channels_redis refuse the
    next loop's socket ("Two event loops are trying to receive() on one channel layer at once")."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def finder_minute(monkeypatch):
    """The shelf finder's one-minute window held still, so a test's few requests cannot straddle two
    windows (a run that crossed a minute boundary saw its fourth request allowed)."""
    import types

    from dashboard.views import public

    monkeypatch.setattr(public, "time", types.SimpleNamespace(time=lambda: 60.0 * 29_500_000 + 1))


"""With Redis down, MCP tool calls still answer and the rate limit still counts (in process memory)."""

from __future__ import annotations

import pytest

from ledger.models import Product
from mcp_gateway.tests.conftest import call
from shelfwise.testing import redis_down_caches
from tenants.context import use_store

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def redis_down(settings):
    settings.CACHES = redis_down_caches()


def test_with_redis_down_tools_still_read_and_write_the_books(mcp_server, mcp_token, shop, redis_down):
    found = call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "gur"})
    changed = call(mcp_server.mcp_url, mcp_token, "update_inventory", {"item": "Jaggery", "stock": 9, "expectedStock": 2})

    assert not found.is_error and found.structured_content["product"]["name"] == "Jaggery"
    assert not changed.is_error and changed.structured_content["stock"] == 9
    with use_store(shop):
        assert Product.objects.get(store=shop, name="Jaggery").stock == 9


def test_with_redis_down_the_rate_limit_still_refuses_past_the_limit_with_a_clear_message(
    mcp_server, mcp_token, shop, redis_down, settings
):
    settings.TOKEN_RATE_LIMIT_PER_MINUTE = 2

    results = [call(mcp_server.mcp_url, mcp_token, "get_inventory", {"item": "gur"}) for _ in range(3)]

    assert [result.is_error for result in results] == [False, False, True]
    assert "Too many tool calls" in results[2].content[0].text

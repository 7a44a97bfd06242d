import pytest


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Registration and gateway counters live in the cache: each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()

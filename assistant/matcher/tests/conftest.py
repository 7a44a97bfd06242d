import pytest


@pytest.fixture
def fast(settings):
    """The fast path on (the suite turns it off by default: ``conftest._fast_path_off``)."""
    settings.SHELFWISE_FAST_PATH = True

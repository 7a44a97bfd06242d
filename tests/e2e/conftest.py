"""End-to-end fixtures: the real ASGI app on 127.0.0.1 and Debian's headless Chromium via Playwright.

Browser tests are skipped (with the reason) where Chromium is not installed; `make test`
installs it on Debian. Every browser test is ``django_db(transaction=True)`` (see
``tests.live_server``). Chromium's fake media flags let a WAV file stand in for the microphone:
``chromium_args`` can be overridden per module.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from tests.live_server import asgi_server

CHROMIUM = os.environ.get("SHELFWISE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def live_url() -> Iterator[str]:
    with asgi_server() as url:
        yield url


@pytest.fixture(scope="module")
def chromium_args() -> list[str]:
    """Extra Chromium flags for this module (a fake microphone, say)."""
    return []


@pytest.fixture(autouse=True)
def _sync_database_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an event loop in the test thread; Django then refuses the test's
    own ORM calls. They are plain synchronous calls in that thread, so allow them here."""
    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if saved is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


@pytest.fixture
def browser(chromium_args, transactional_db):
    """Chromium per test, started after the test database is set up and its migrated rows restored
    (a module-scoped browser starts Playwright's event loop first, and the restore is skipped)."""
    if not CHROMIUM:
        pytest.skip("Chromium is not installed (apt-get install chromium chromium-driver).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", *chromium_args])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # Playwright's wait_for_function evaluates strings; the CSP header itself is tested in shelfwise/tests
    context.set_default_timeout(15_000)
    opened = context.new_page()
    try:
        yield opened
    finally:
        context.close()


def sign_in(page, live_url: str, *, email: str, password: str) -> None:
    """Sign in through the real login form."""
    page.goto(f"{live_url}/accounts/login/")
    page.fill("input[name=login]", email)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")

"""A vendor publishes a new business type in headless Chromium, and a new owner runs a store of it.

The vendor starts "Key kiosk" from the bundled hardware pack in the portal and edits it in the page:
the product lookup is renamed ``check_peg`` (the built-in ``find_product`` behaviour under the pack's
own name), the catalog gets a product no other pack has (Brass key blank SC1) and the lexicon a word
of its own ("kiosk blank"). A first save with the rename in one file only is refused with every
problem listed (file, path, reason) and stores nothing; the full edit is saved and published. A new
owner signs up, creates a Key kiosk store with its sample catalog and holds a typed conversation on
the talk page in router mode.

The router model is replaced at its process boundary by a scripted ``FakeBackend`` that answers
from the request's words (and records every prompt it was sent); the fast path (the pack's own
matcher templates) is on, as in production, and answers what it covers before the model. Speech
is not used; the guard's small models, grounding, the gateway, the ledger and the pages are real.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail

from inference.base import ModelRequest, Role
from inference.fake import FakeBackend
from inference.fake import fake_models as scripted_models
from ledger.models import Product
from packs.source import BUNDLED
from tenants.context import use_store
from tenants.models import PackVersion, Store
from tests.e2e.conftest import sign_in
from tests.factories import UserFactory, verified

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.django_db(transaction=True)

VENDOR, OWNER = "vendor@example.com", "kim@example.com"
PASSWORD = "key-kiosk-pass-42"
REPLY_TIMEOUT_MS = 60_000  # the first turn loads the fast path's encoder on two shared cores
BLANK = "KK-001,Brass key blank SC1,,Keys,each,1,Aisle 9,key board,hook 12,,1.99,0.40,Kaba,50,10,sc1 blank,true"
GROCERY = sorted({row["name"] for row in csv.DictReader((BUNDLED / "grocery" / "sample_catalog.csv").open())})


def _route(request: ModelRequest) -> dict[str, Any]:
    """The scripted router: the pack's own action names, chosen from the owner's words."""
    said = request.messages[-1]["content"].rsplit("Request:", 1)[-1].lower()
    if re.search(r"\b\d+\b", said):
        return {"action": "update_count", "item": "brass key blank sc1"}
    return {"action": "check_peg", "item": "brass key blank sc1", "ask": "count" if "how many" in said else "where"}


@pytest.fixture
def router() -> Iterator[FakeBackend]:
    from assistant.guard import get_guard

    get_guard().classifier.warm_up()
    get_guard().injection.warm_up()
    with scripted_models(Role.ROUTER, default=_route) as fake:
        yield fake


def _edited(name: str, text: str) -> str:
    """A file of the hardware template as the vendor edits it."""
    text = text.replace("find_product", "check_peg")
    if name == "router.json":
        router = json.loads(text)
        next(a for a in router["actions"] if a["name"] == "check_peg")["behaviour"] = "find_product"
        return json.dumps(router, indent=1)
    if name == "lexicon.json":
        lexicon = json.loads(text)
        lexicon["local_names"].append({"to": "brass key blank sc1", "from": ["kiosk blank"]})
        return json.dumps(lexicon, indent=1)
    if name == "sample_catalog.csv":
        return text.rstrip("\n") + "\n" + BLANK + "\n"
    return text


def _textarea(page, name: str):
    return page.locator(f'textarea[name="file:{name}"]')


def _publish_key_kiosk(page, live_url: str) -> None:
    """The vendor's part: new pack from the hardware template, one refused save, the full edit, publish."""
    page.goto(f"{live_url}/vendors/packs/")
    page.get_by_role("link", name="New pack from a template").click()
    page.get_by_label("Start from").select_option(label="Hardware store")
    page.get_by_label("Slug").fill("key-kiosk")
    page.get_by_label("Name", exact=True).fill("Key kiosk")
    page.get_by_role("button", name="Create the draft").click()
    expect(page.get_by_text("Created draft version 1 from the template.")).to_be_visible()
    draft = PackVersion.objects.get(business_type__slug="key-kiosk", version=1)
    names = sorted(draft.files)
    texts = {name: _textarea(page, name).input_value() for name in names}
    assert texts == dict(draft.files)  # the page shows the stored files exactly

    # The rename in router.json alone: refused, every problem listed, nothing stored.
    _textarea(page, "router.json").fill(_edited("router.json", texts["router.json"]))
    page.get_by_role("button", name="Validate and save draft 1").click()
    problems = page.locator("#problems")
    expect(problems).to_contain_text("Nothing was stored")
    expect(problems).to_contain_text("matcher.yaml")
    expect(problems).to_contain_text("evaluation/routing_set.json")
    assert PackVersion.objects.get(pk=draft.pk).digest == draft.digest

    # The whole edit: saved as draft 1, then published from the list.
    for name in names:
        changed = _edited(name, texts[name])
        if changed != texts[name]:
            _textarea(page, name).fill(changed)
    page.get_by_role("button", name="Validate and save draft 1").click()
    expect(page.locator("#saved")).to_contain_text("Saved draft version 1")
    page.goto(f"{live_url}/vendors/packs/")
    page.locator("tr", has_text="key-kiosk").get_by_role("button", name="Publish").click()
    expect(page.get_by_text("Published key-kiosk-1.")).to_be_visible()
    assert PackVersion.objects.get(pk=draft.pk).status == PackVersion.Status.PUBLISHED


def _sign_up_a_key_kiosk(page, live_url: str) -> Store:
    """The owner's part: sign up, confirm the address, create a Key kiosk store with its sample catalog."""
    page.goto(f"{live_url}/accounts/signup/")
    page.fill("input[name=email]", OWNER)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form button[type=submit]")
    link = next(re.search(r"http://[^\s]+/accounts/confirm-email/[^\s]+", m.body).group(0)
                for m in reversed(mail.outbox) if OWNER in m.to and "confirm-email" in m.body)
    page.goto(link.replace("http://127.0.0.1:8000", live_url))
    page.get_by_role("button", name=re.compile("Confirm")).click()
    expect(page).to_have_url(re.compile(r"/app/stores/new/$"))
    page.get_by_label("Store name").fill("Kim's Keys")
    page.locator("select[name=business_type]").select_option(label="Key kiosk")
    page.get_by_label(re.compile("The demo catalog of this kind of store")).check()
    page.get_by_role("button", name="Create store").click()
    expect(page.get_by_text("Kim's Keys is ready.")).to_be_visible()
    return Store.objects.get(name="Kim's Keys")


def _say(page, text: str, turns: int) -> str:
    page.fill("#talk-text", text)
    page.click("#talk-send")
    expect(page.locator("#talk")).to_have_attribute("data-turns", str(turns), timeout=REPLY_TIMEOUT_MS)
    return page.locator("#talk-reply").inner_text()


def test_a_vendor_publishes_a_new_pack_and_a_new_owner_talks_to_a_store_of_it(browser, page, live_url, router,
                                                                               settings):
    settings.SHELFWISE_FAST_PATH = True  # as in production: the pack's own templates answer first
    verified(UserFactory(username="vendor", email=VENDOR, password=PASSWORD, vendor=True))
    sign_in(page, live_url, email=VENDOR, password=PASSWORD)
    _publish_key_kiosk(page, live_url)

    owner_context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    owner_context.set_default_timeout(15_000)
    owner = owner_context.new_page()
    try:
        store = _sign_up_a_key_kiosk(owner, live_url)
        assert store.business_type.slug == "key-kiosk" and store.pack_version.version == 1
        with use_store(store):
            names = set(Product.objects.filter(store=store).values_list("name", flat=True))
        assert "Brass key blank SC1" in names and "Wood screws" in names and not names & set(GROCERY)

        owner.goto(f"{live_url}/app/talk/")
        expect(owner.locator("#talk")).to_have_attribute("data-socket", "ready")
        expect(owner.locator("#talk-mode")).to_have_value("router")
        replies = [
            _say(owner, "where do we hang the kiosk blank", 1),
            _say(owner, "we have 14 of the kiosk blank on the key board", 2),
            _say(owner, "how many of the kiosk blank are left", 3),
        ]
    finally:
        owner_context.close()

    assert "Brass key blank SC1" in replies[0] and "Aisle 9, key board, hook 12" in replies[0]
    assert "Brass key blank SC1" in replies[1] and "14" in replies[1]
    assert "Brass key blank SC1" in replies[2] and re.search(r"\b14\b", replies[2])
    with use_store(store):
        assert Product.objects.get(store=store, sku="KK-001").stock == 14  # the books, not only the words
    assert router.requests, "no turn reached the (scripted) router model"
    for request in router.requests:  # every prompt the model saw is the pack's, none of grocery's
        system = request.messages[0]["content"]
        assert "check_peg:" in system and "find_product" not in system and "Brass key blank SC1" in system
        assert "check_peg" in request.json_schema["properties"]["action"]["enum"]
    seen = " ".join(replies) + " ".join(r.messages[0]["content"] for r in router.requests)
    assert not [name for name in GROCERY if re.search(rf"\b{re.escape(name)}\b", seen, re.IGNORECASE)]

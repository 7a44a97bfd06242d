"""The vendors' business-type pages over HTTP: actions, examples, lexicon and the generated router prompt.

No model runs here: the page shows the prompt the router would send, built by the router's own
code from the store's catalog.
"""

from __future__ import annotations

import pytest

from tenants.context import use_store
from tenants.models import BusinessType
from tests.factories import ProductFactory, UserFactory


@pytest.fixture
def other_demo(other_store):
    with use_store(other_store):
        ProductFactory(store=other_store, name="Secret saffron blend", aliases=["kesar"])
    return other_store


def test_signed_out_visitors_are_sent_to_the_login_page(client, db):
    for url in ("/vendors/", "/vendors/grocery/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_signed_in_user_with_no_store_and_no_staff_rights_gets_403(client, db):
    client.force_login(UserFactory(username="nobody"))
    assert client.get("/vendors/").status_code == 403
    assert client.get("/vendors/grocery/").status_code == 403


def test_staff_see_every_business_type_with_grocery_first(admin_client, db):
    BusinessType.objects.create(slug="florist", name="Florist", position=200)
    response = admin_client.get("/vendors/")
    assert response.status_code == 200
    assert [bt.slug for bt in response.context["types"]] == ["grocery", "florist"]
    html = response.content.decode()
    assert "Grocery" in html and "Pack missing or broken" in html  # no florist pack is bundled


def test_a_business_type_page_shows_numbered_actions_examples_lexicon_and_prompt(admin_client, demo):
    response = admin_client.get("/vendors/grocery/", {"store": "corner-shop", "say": "where did we put the haldi"})

    assert response.status_code == 200
    html = response.content.decode()
    actions = response.context["actions"]
    assert [a["id"] for a in actions] == list(range(len(actions)))
    find = next(a for a in actions if a["name"] == "find_product")
    assert any(ex["say"] == "where did we put the gur" for ex in find["examples"])
    assert 'id="action-find_product"' in html and "where did we put the gur" in html
    # lexicon: a mishearing and a local name with the catalog words they map to
    assert "turmeric powder" in html and "haldi" in html
    assert any(target == "toor dal" for target, _ in response.context["lexicon"]["mishearings"] +
               response.context["lexicon"]["local_names"])
    # the prompt the router sends for this store: static part, the store's products, the request
    prompt = response.context["prompt"]
    system, user = prompt["messages"][0]["content"], prompt["messages"][1]["content"]
    assert "1 find_product:" in system and "Store: Corner Shop" in system
    assert "Turmeric powder (haldi)" in system
    assert user.endswith("Request: where did we put the turmeric powder\nJSON:")
    assert '"enum"' in prompt["schema"] and "draft_restock" in prompt["schema"]


def test_staff_can_preview_the_prompt_for_any_store(admin_client, demo, other_demo):
    response = admin_client.get("/vendors/grocery/", {"store": "other-shop"})
    assert response.status_code == 200
    assert "Secret saffron blend (kesar)" in response.context["prompt"]["messages"][0]["content"]
    assert {s.slug for s in response.context["stores"]} == {"corner-shop", "other-shop"}


def test_an_owner_sees_their_own_stores_prompt_and_nothing_of_another_store(client, owner, demo, other_demo):
    client.force_login(owner)

    own = client.get("/vendors/grocery/")
    assert own.status_code == 200
    assert [s.slug for s in own.context["stores"]] == ["corner-shop"]
    assert "Turmeric powder" in own.context["prompt"]["messages"][0]["content"]

    other = client.get("/vendors/grocery/", {"store": "other-shop"})
    assert other.status_code == 404
    assert other.context["prompt"] is None
    assert "Secret saffron" not in other.content.decode() and "other-shop" not in other.content.decode()
    assert "No store of this type with that name that you can see." in other.content.decode()
    # the same answer as for a store that does not exist
    assert client.get("/vendors/grocery/", {"store": "no-such-store"}).status_code == 404


def test_an_owner_does_not_see_business_types_of_stores_they_do_not_belong_to(client, owner, demo):
    BusinessType.objects.create(slug="hardware", name="Hardware", position=200)
    client.force_login(owner)
    assert [bt.slug for bt in client.get("/vendors/").context["types"]] == ["grocery"]
    assert client.get("/vendors/hardware/").status_code == 404


def test_an_unknown_business_type_is_a_404(admin_client, db):
    assert admin_client.get("/vendors/bakery/").status_code == 404


def test_a_long_request_is_cut_to_a_safe_length(admin_client, demo):
    response = admin_client.get("/vendors/grocery/", {"say": "where is the rice " * 50})
    assert response.status_code == 200 and len(response.context["say"]) <= 200


@pytest.mark.parametrize("extra_products", [0, 120])
def test_the_type_page_makes_a_bounded_number_of_queries_whatever_the_catalog(
    admin_client, demo, extra_products, django_assert_max_num_queries
):
    with use_store(demo):
        for i in range(extra_products):
            ProductFactory(store=demo, name=f"Extra product {i}")
    from assistant.lexicon import lexicon_for
    from assistant.modes.router.prompt import router_pack
    from packs.source import pack_files

    for cache in (pack_files, router_pack, lexicon_for):  # the first view in a process reads the pack too
        cache.cache_clear()
    with django_assert_max_num_queries(13):  # + the versions the type and the store run, and reading it once
        response = admin_client.get("/vendors/grocery/", {"store": "corner-shop"})
    assert response.status_code == 200
    messages = response.context["prompt"]["messages"]
    # above 60 products the system prompt lists none (it names the categories) and the request comes
    # with the few products its words may name, so the prompt does not grow with the catalog
    assert ("Turmeric powder" in messages[0]["content"]) is (extra_products == 0)
    assert "Extra product" not in messages[0]["content"]
    assert messages[-1]["content"].count("; ") < 10


@pytest.mark.parametrize("types", [1, 15])
def test_the_types_list_makes_a_bounded_number_of_queries(client, owner, demo, types, django_assert_max_num_queries):
    for i in range(types):
        BusinessType.objects.create(slug=f"type-{i}", name=f"Type {i}", position=300 + i)
    client.force_login(owner)
    with django_assert_max_num_queries(9):  # + the published version of every type, in one query
        response = client.get("/vendors/")
    assert response.status_code == 200
    assert [bt.slug for bt in response.context["types"]] == ["grocery"]  # an owner sees their stores' type only

"""The owner workspace over HTTP: access, inventory, counts, sales, store isolation, query counts.

Approvals, reports and the assistant's history are in ``test_owner_approvals``.

Every test drives the pages through Django's test client (real middleware, sessions, CSRF-exempt
client) and checks the page and the books afterwards. Rows are written through ledger services
inside the store's context, as row-level security on PostgreSQL requires.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard.tests.owner_data import make_draft, make_product, make_turn
from ledger import services
from ledger.models import Order, Product, StockEntry
from tenants.context import use_store
from tenants.middleware import SESSION_KEY
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}
@pytest.fixture(autouse=True)
def _in_store(store):
    """The test's own reads of the books run as the store (row-level security on PostgreSQL)."""
    with use_store(store):
        yield


PAGES = ["owner:inventory", "owner:sales", "owner:approvals", "owner:orders", "owner:reports", "owner:assistant"]


# ---------------------------------------------------------------------------------------------
# Access


@pytest.mark.parametrize("name", PAGES)
def test_signed_out_visitors_are_sent_to_sign_in(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_user_without_a_store_is_sent_to_onboarding(client, db):
    client.force_login(UserFactory(username="newbie"))
    response = client.get(reverse("owner:inventory"))
    assert response.status_code == 302 and response["Location"] == reverse("tenants:home")


@pytest.mark.parametrize("name", PAGES)
def test_each_workspace_page_renders_with_its_section_marked_current(client, store, owner, name):
    client.force_login(owner)
    response = client.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="{reverse(name)}" aria-current="page"' in html
    assert 'id="page-title"' in html


def test_staff_see_the_workspace_without_the_credentials_link(client, store, staff):
    client.force_login(staff)
    html = client.get(reverse("owner:inventory")).content.decode()
    assert reverse("tenants:tokens") not in html
    assert reverse("owner:approvals") in html


@pytest.mark.parametrize("who", ["owner", "staff"])
def test_the_workspace_links_to_how_the_assistant_thinks_for_the_store(client, store, who, request):
    client.force_login(request.getfixturevalue(who))
    html = client.get(reverse("owner:sales")).content.decode()
    link = f'{reverse("vendor:type", args=[store.business_type.slug])}?store={store.slug}'
    assert f'<a href="{link}">How the assistant thinks</a>' in html
    page = client.get(link)
    assert page.status_code == 200 and page.context["chosen"] == store


def test_the_credentials_page_sits_in_the_workspace_and_shows_last_use(client, store, owner):
    from tenants.services import token_authenticate, token_create

    _token, raw = token_create(store=store, name="Claude Desktop", scopes=["mcp"], created_by=owner)
    token_authenticate(raw=raw, scope="mcp")
    client.force_login(owner)
    html = client.get(reverse("tenants:tokens")).content.decode()
    assert f'href="{reverse("tenants:tokens")}" aria-current="page"' in html
    assert "Claude Desktop" in html and "ago</time>" in html


# ---------------------------------------------------------------------------------------------
# Inventory


def test_inventory_lists_low_items_first_with_their_bars(client, store, owner):
    make_product(store, "Atta", stock=30, par=40, reorder=10)
    make_product(store, "Toor dal", stock=4, par=40, reorder=8)
    make_product(store, "Basmati rice", stock=0, par=20, reorder=5)
    client.force_login(owner)
    response = client.get(reverse("owner:inventory"))
    html = response.content.decode()
    # Out of stock (emptiest) first, then low, then the rest by name.
    assert html.index("Basmati rice") < html.index("Toor dal") < html.index("Atta")
    assert "2 low" in html
    assert 'aria-label="4 in stock of par 40; reorder at 8"' in html
    assert [row.product.name for row in response.context["rows"]] == ["Basmati rice", "Toor dal", "Atta"]


def test_inventory_search_works_without_javascript_and_finds_aliases(client, store, owner):
    make_product(store, "Atta", aliases=["chapati flour"])
    make_product(store, "Toor dal")
    client.force_login(owner)
    html = client.get(reverse("owner:inventory"), {"q": "chapati"}).content.decode()
    assert "Atta" in html and "Toor dal" not in html
    html = client.get(reverse("owner:inventory"), {"q": "pizza"}).content.decode()
    assert "No product matches “pizza”" in html


def test_inventory_live_search_answers_htmx_with_only_the_table(client, store, owner):
    make_product(store, "Atta")
    client.force_login(owner)
    response = client.get(reverse("owner:inventory"), {"q": "atta"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="inventory-table"')
    assert "<html" not in html


def test_inventory_low_filter_keeps_only_low_items(client, store, owner):
    make_product(store, "Atta", stock=30)
    make_product(store, "Toor dal", stock=4)
    client.force_login(owner)
    html = client.get(reverse("owner:inventory"), {"low": "on"}).content.decode()
    assert "Toor dal" in html and "Atta" not in html


def make_catalog(store, n: int, *, low_every: int = 10) -> None:
    """``n`` products named "Item 000".."Item n-1"; every ``low_every``-th is low (stock 1, reorder at 5)."""
    with use_store(store):
        Product.objects.bulk_create(
            Product(store=store, sku=f"I-{i:03}", name=f"Item {i:03}", unit="1 kg bag", category="Staples", location="Aisle 9",
                    stock=1 if i % low_every == 0 else 20, par_level=30, reorder_point=5, price="1.99",
                    unit_cost="1.00")
            for i in range(n)
        )


def test_a_large_inventory_comes_a_page_at_a_time_low_items_first(client, store, owner):
    make_catalog(store, 230)  # 23 low
    client.force_login(owner)
    response = client.get(reverse("owner:inventory"))
    html = response.content.decode()
    names = [row.product.name for row in response.context["rows"]]
    assert len(names) == 100
    assert names[:23] == [f"Item {i:03}" for i in range(0, 230, 10)]  # every low item leads page 1
    assert names[23] == "Item 001"
    assert "230 products" in html and "23 low" in html and "showing 1–100, page 1 of 3" in html
    assert '<nav class="pager" aria-label="Inventory pages"' in html
    assert f'href="{reverse("owner:inventory")}?page=2" rel="next"' in html
    assert f'href="{reverse("owner:inventory")}" aria-current="page"' in html

    last = client.get(reverse("owner:inventory"), {"page": "3"})
    names = [row.product.name for row in last.context["rows"]]
    assert len(names) == 30 and names[-1] == "Item 229"
    html = last.content.decode()
    assert "showing 201–230, page 3 of 3" in html and 'rel="prev"' in html and 'rel="next"' not in html
    # A count saved from page 3 comes back to page 3.
    assert f'name="next" value="{reverse("owner:inventory")}?page=3#product-' in html


@pytest.mark.parametrize("page, shown", [("99", 3), ("0", 1), ("abc", 1), ("-2", 1), ("9" * 30, 1)])
def test_a_page_number_out_of_range_or_nonsense_shows_the_nearest_page(client, store, owner, page, shown):
    make_catalog(store, 230)
    client.force_login(owner)
    response = client.get(reverse("owner:inventory"), {"page": page})
    assert response.status_code == 200 and response.context["page"].number == shown


def test_inventory_pages_keep_the_search_and_the_low_filter(client, store, owner):
    make_catalog(store, 230, low_every=2)  # 115 low: two pages of them
    make_product(store, "Atta", stock=30)
    client.force_login(owner)
    html = client.get(reverse("owner:inventory"), {"q": "item", "low": "on"}).content.decode()
    assert "115 products matching “item”" in html and "Atta" not in html
    assert f'href="{reverse("owner:inventory")}?q=item&amp;low=on&amp;page=2" rel="next"' in html
    second = client.get(reverse("owner:inventory"), {"q": "item", "low": "on", "page": "2"})
    assert [row.product.name for row in second.context["rows"]][-1] == "Item 228"
    assert all(row.status == "low" for row in second.context["rows"])
    # A new search starts again at page 1: the search form carries no page.
    assert 'name="page"' not in second.content.decode()


def test_an_htmx_page_link_answers_with_only_the_table_and_focuses_its_summary(client, store, owner):
    make_catalog(store, 150)
    client.force_login(owner)
    response = client.get(reverse("owner:inventory"), {"page": "2"}, HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER="pager-next")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="inventory-table"') and "<html" not in html
    assert 'id="inventory-summary" tabindex="-1" autofocus' in html and "page 2 of 2" in html
    # Live search (triggered by the search box) leaves the focus where the owner is typing.
    html = client.get(reverse("owner:inventory"), {"q": "item"}, HTTP_HX_REQUEST="true",
                      HTTP_HX_TRIGGER="inventory-q").content.decode()
    assert "autofocus" not in html


def test_a_small_inventory_has_no_page_links(client, store, owner):
    make_catalog(store, 100)
    client.force_login(owner)
    html = client.get(reverse("owner:inventory")).content.decode()
    assert "100 products" in html and 'aria-label="Inventory pages"' not in html and "page 1 of" not in html


def test_setting_a_count_goes_through_the_journal_with_who_did_it(client, store, owner):
    product = make_product(store, "Toor dal", stock=4)
    client.force_login(owner)
    response = client.post(
        reverse("owner:stock-count", args=[product.pk]),
        {"count": "15", "expected": "4", "note": "delivery counted", "next": reverse("owner:inventory")},
    )
    assert response.status_code == 302 and response["Location"] == reverse("owner:inventory")
    product.refresh_from_db()
    assert product.stock == 15
    entry = StockEntry.objects.filter(product=product).latest("id")
    assert (entry.before, entry.after, entry.actor, entry.note) == (4, 15, f"user:{owner.pk}", "delivery counted")
    page = client.get(response["Location"]).content.decode()
    assert "Toor dal: the count is now 15." in page


def test_two_people_editing_the_same_count_get_a_clear_conflict(client, store, owner, staff):
    product = make_product(store, "Toor dal", stock=4)
    # Both opened the page when the count was 4; the staff member saves first.
    other = client.__class__()
    other.force_login(staff)
    assert other.post(reverse("owner:stock-count", args=[product.pk]), {"count": "12", "expected": "4"}).status_code == 302
    client.force_login(owner)
    response = client.post(reverse("owner:stock-count", args=[product.pk]), {"count": "9", "expected": "4"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "The count of Toor dal changed: it is 12 now, not 4. Nothing was changed" in html
    # The form offered again carries the new count as the expected one.
    assert 'name="expected" value="12"' in html
    product.refresh_from_db()
    assert product.stock == 12
    assert StockEntry.objects.filter(product=product, reason="count").count() == 1


@pytest.mark.parametrize("count", ["-1", "2.5", "lots", "", "99999999"])
def test_a_bad_count_is_refused_and_changes_nothing(client, store, owner, count):
    product = make_product(store, "Toor dal", stock=4)
    client.force_login(owner)
    response = client.post(reverse("owner:stock-count", args=[product.pk]), {"count": count, "expected": "4"})
    assert response.status_code == 400
    assert "Enter a whole number of 0 or more" in response.content.decode()
    product.refresh_from_db()
    assert product.stock == 4 and StockEntry.objects.filter(product=product).count() == 1


def test_a_count_form_cannot_redirect_off_site(client, store, owner):
    product = make_product(store, "Toor dal", stock=4)
    client.force_login(owner)
    response = client.post(
        reverse("owner:stock-count", args=[product.pk]), {"count": "5", "expected": "4", "next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("owner:inventory")


def test_the_product_page_shows_its_stock_journal_newest_first(client, store, owner):
    product = make_product(store, "Toor dal", stock=4)
    with use_store(store):
        services.stock_set(store=store, product=product, count=20, expected=4, actor=f"user:{owner.pk}", reason="delivery")
    client.force_login(owner)
    response = client.get(reverse("owner:product", args=[product.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.index("Delivery received") < html.index("Opening count")
    assert "4 → 20" in html and "+16" in html
    assert "alice@example.com" in html  # the actor in words


# ---------------------------------------------------------------------------------------------
# Sales


# ---------------------------------------------------------------------------------------------
# Store isolation: another store's ids are simply not found


def test_an_owner_cannot_reach_another_stores_rows_by_changing_urls(client, store, owner, other_store, other_owner):
    theirs = make_product(other_store, "Saffron", stock=2, par=10, reorder=3)
    their_draft = make_draft(other_store, [(theirs, 5)])
    make_turn(other_store, "their question", "their reply", conversation="theirs")
    client.force_login(owner)
    assert client.get(reverse("owner:product", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("owner:stock-count", args=[theirs.pk]), {"count": "0", "expected": "2"}).status_code == 404
    assert client.post(reverse("owner:draft-approve", args=[their_draft.pk])).status_code == 404
    assert client.post(reverse("owner:draft-decline", args=[their_draft.pk]), **JSON).status_code == 404
    for name in PAGES:
        html = client.get(reverse(name)).content.decode()
        assert "Saffron" not in html and "their question" not in html, name
    with use_store(other_store):
        theirs.refresh_from_db()
        their_draft.refresh_from_db()
        assert theirs.stock == 2 and their_draft.status == "pending"
        assert not Order.objects.filter(store=other_store).exists()


def test_a_session_pointing_at_another_store_falls_back_to_the_users_own(client, store, owner, other_store):
    make_product(other_store, "Saffron")
    make_product(store, "Atta")
    client.force_login(owner)
    session = client.session
    session[SESSION_KEY] = other_store.pk
    session.save()
    html = client.get(reverse("owner:inventory")).content.decode()
    assert "Atta" in html and "Saffron" not in html


def test_a_member_of_two_stores_sees_the_current_one_only(client, store, owner, other_store):
    MembershipFactory(user=owner, store=other_store, role="staff")
    make_product(other_store, "Saffron")
    make_product(store, "Atta")
    client.force_login(owner)
    client.post(reverse("tenants:store-switch"), {"store": other_store.pk})
    html = client.get(reverse("owner:inventory")).content.decode()
    assert "Saffron" in html and "Atta" not in html
    # As staff there, the approve buttons are gone and approving is refused.
    with use_store(other_store):
        saffron = Product.objects.get(store=other_store, name="Saffron")
    draft = make_draft(other_store, [(saffron, 1)])
    assert client.post(reverse("owner:draft-approve", args=[draft.pk]), **JSON).status_code == 403


# ---------------------------------------------------------------------------------------------
# Query counts do not grow with the store's size


def _populate(store, owner, n: int) -> None:
    products = [make_product(store, f"Item {i:03d}", stock=3 if i % 3 == 0 else 25) for i in range(n)]
    with use_store(store):
        for product in products[:n]:
            services.stock_set(store=store, product=product, count=product.stock + 1, expected=product.stock,
                               actor=f"user:{owner.pk}")
        services.receipt_create(store=store, lines=[(p, 1) for p in products], actor=f"user:{owner.pk}")
        done = services.draft_create(store=store, items=[(p, 2) for p in products], actor="assistant:router",
                                     source="assistant")
        services.draft_confirm(store=store, draft_id=done.pk, actor=f"user:{owner.pk}")
        services.draft_create(store=store, items=[(p, 1) for p in products], actor="assistant:router", source="mcp")
        services.report_send(store=store, kind="inventory", actor=f"user:{owner.pk}")
    for i in range(n):
        make_turn(store, f"question {i}", "answer", conversation=f"c{i % 4}")


def _count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


@pytest.mark.parametrize("page", ["1", "2"])
def test_inventory_pages_cost_the_same_queries_for_a_tiny_and_a_large_catalog(client, store, owner, other_store,
                                                                              other_owner, page):
    make_catalog(store, 3)
    make_catalog(other_store, 1200)
    client.force_login(owner)
    with use_store(store):
        small = _count(client, f"{reverse('owner:inventory')}?q=item&page={page}")
    client.force_login(other_owner)
    with use_store(other_store):
        large = _count(client, f"{reverse('owner:inventory')}?q=item&page={page}")
    assert small == large, f"{small} queries for 3 products, {large} for 1,200"


@pytest.mark.parametrize("name", ["owner:inventory", "owner:product", "owner:sales", "owner:approvals", "owner:orders",
                                  "owner:reports", "owner:assistant"])
def test_page_query_counts_do_not_grow_with_the_catalog(client, store, owner, other_store, other_owner, name,
                                                        django_assert_max_num_queries):
    _populate(store, owner, 2)
    _populate(other_store, other_owner, 25)
    with use_store(store):
        mine = Product.objects.filter(store=store).first().pk
    with use_store(other_store):
        theirs = Product.objects.filter(store=other_store).first().pk
    small_url = reverse(name, args=[mine]) if name == "owner:product" else reverse(name)
    large_url = reverse(name, args=[theirs]) if name == "owner:product" else reverse(name)
    # Each page is counted from inside its own store's context, so both pay the same tenant switches.
    client.force_login(owner)
    with use_store(store):
        small = _count(client, small_url)
    client.force_login(other_owner)
    with use_store(other_store):
        large = _count(client, large_url)
    assert small == large, f"{name}: {small} queries for 2 products, {large} for 25"
    # The sales page reads two periods and the top sellers. A period's totals and its days each read the
    # store's quarter-hour sums plus, for the minutes after the last whole quarter-hour, its receipts and
    # its lines (one range each): 18, flat.
    with use_store(other_store), django_assert_max_num_queries(18 if name == "owner:sales" else 10):
        client.get(large_url)


"""Numbers a model-written reply may say (assistant/reply_numbers.py): pure functions, no database."""

from __future__ import annotations

import pytest

from assistant.reply_numbers import (
    misattributed_numbers,
    numbers_in,
    unsupported_numbers,
)

LOW = {
    "currency": "USD", "filter": "low", "count": 3,
    "products": [
        {"id": 7, "name": "Frozen samosas", "unit": "12-piece box", "stock": 2, "parLevel": 20, "reorderPoint": 5,
         "price": "8.99", "photoUrl": "http://127.0.0.1:8000/media/shelves/samosas_3.png"},
        {"id": 3, "name": "Toor dal", "unit": "4 lb bag", "stock": 4, "parLevel": 46, "reorderPoint": 8, "price": "8.99"},
        {"id": 11, "name": "Chana dal", "unit": "4 lb bag", "stock": 6, "parLevel": 30, "reorderPoint": 7, "price": "5.49"},
    ],
}


def test_numbers_are_read_one_way_each():
    assert numbers_in("We have 1,200 bags at $8.50, 6.00 each, 007 left") == {"1200", "8.5", "6", "7"}
    assert numbers_in("photo FL3KvdR.png and B12") == set()


def test_a_number_from_no_result_and_not_the_owners_is_unsupported():
    assert unsupported_numbers("Samosas: 2 left, par 20.", [LOW], ()) == []
    assert unsupported_numbers("Samosas: 9 left.", [LOW], ()) == ["9"]
    assert unsupported_numbers("Set samosas to 9.", [LOW], (9,)) == []
    assert unsupported_numbers("About $9 a box.", [LOW], ()) == ["9"]  # 8.99 said round up is not in the result
    assert unsupported_numbers("About $8 a box.", [LOW], ()) == []


@pytest.mark.parametrize("reply", [
    "Frozen samosas are down to 2, toor dal 4 and chana dal 6.",
    "Low: samosas (2 of 20), toor dal (4 of 46), chana dal (6 of 30).",
    "3 items are low: samosas at 2, toor dal at 4, chana dal at 6.",  # 3 is the list's count
    "Toor dal and chana dal are both 4 lb bags; samosas are at 2.",
    "Samosas are in the freezer, 2 boxes left.",
])
def test_replies_that_keep_each_products_numbers_pass(reply):
    assert misattributed_numbers(reply, [LOW], ()) == []


@pytest.mark.parametrize(("reply", "swapped"), [
    ("We have 4 samosas and 2 bags of toor dal.", [("Frozen samosas", "4"), ("Toor dal", "2")]),
    ("Samosas: 6 left.", [("Frozen samosas", "6")]),
    ("Toor dal is at 6, par 46.", [("Toor dal", "6")]),
])
def test_a_number_said_of_the_wrong_product_is_caught(reply, swapped):
    assert misattributed_numbers(reply, [LOW], ()) == swapped


def test_a_shared_name_word_says_nothing_about_which_product():
    # "dal" is in both dals: the clause is about neither in particular, so nothing is flagged.
    assert misattributed_numbers("The dal is at 6.", [LOW], ()) == []


def test_the_owners_own_number_and_a_results_totals_are_never_flagged():
    draft = {"draftId": 31, "estimatedTotal": "54.00", "lines": [
        {"item": "Frozen samosas", "qty": 18, "unitCost": "3.00", "estCost": "54.00"},
        {"item": "Toor dal", "qty": 42, "unitCost": "5.00", "estCost": "210.00"}]}
    assert misattributed_numbers("Drafted 18 samosas for $54, 42 toor dal.", [draft], ()) == []
    assert misattributed_numbers("Drafted 42 samosas.", [draft], ()) == [("Frozen samosas", "42")]
    assert misattributed_numbers("Drafted 42 samosas.", [draft], (42,)) == []


def test_one_product_or_none_leaves_nothing_to_swap():
    one = {"currency": "USD", "product": LOW["products"][0]}
    assert misattributed_numbers("Samosas: 4 left.", [one], ()) == []
    assert misattributed_numbers("Nothing here.", [{}], ()) == []

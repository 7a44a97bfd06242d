"""The policy's reading of the owner's words: which turns ask for a new order.

A question about an order that exists is not a request for a new one: on the spoken set, a
misheard "where's the otta" came out as "where is the order" and the router drafted a restock.
"""

from __future__ import annotations

import pytest

from assistant.policy import OwnerWords

ASKS = [
    "order rice",
    "can you order 10 bags of atta",
    "should we order more ghee",
    "is it time to reorder rice",
    "what should we order",
    "what do we need to order",
    "which ones should i reorder",
    "reorder the low items",
    "place an order for the low stuff",
    "we need more samosas",
    "restock the basmati",
]
ASKS_ABOUT_AN_ORDER = [
    "where is the order",
    "where is the order for rice",
    "did the order come",
    "when is our order arriving",
    "has the reorder arrived",
    "what did we order last week",
    "what did i order",
    "what is in the order",
    "is the order placed",
]


@pytest.mark.parametrize("text", ASKS)
def test_words_asking_for_an_order(text):
    assert OwnerWords(text=text, numbers=()).asks_order


@pytest.mark.parametrize("text", ASKS_ABOUT_AN_ORDER + ["where is the rice", "how are things today"])
def test_a_question_about_an_existing_order_does_not_ask_for_a_new_one(text):
    assert not OwnerWords(text=text, numbers=()).asks_order


def test_narrowing_a_draft_just_offered_still_counts():
    assert OwnerWords(text="just the rice", numbers=(), draft_just_offered=True).asks_order
    assert not OwnerWords(text="where is the order", numbers=(), draft_just_offered=True).asks_order


@pytest.mark.parametrize("text", [
    "we've got 13 bags of basmati, updated",  # how Whisper writes "we've got thirteen ..., update it"
    "we've got 13 bags of basmati",
    "we got 13 bags of basmati",
    "we actually have 15 bags of atta",
])
def test_saying_what_we_have_with_a_number_asks_for_a_count_change(text):
    assert OwnerWords(text=text, numbers=(13,)).asks_count_change


def test_a_number_alone_is_no_count_change():
    assert not OwnerWords(text="what does 13 bags of basmati cost", numbers=(13,)).asks_count_change

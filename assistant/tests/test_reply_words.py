"""Names, units and words a model-written reply may say (assistant/reply_words.py): pure functions, no database."""

from __future__ import annotations

from assistant.reply_words import said_beyond

CATALOG = [("Jaggery", ("gur",)), ("Toor dal", ("tuvar dal", "arhar dal")), ("Paneer", ("cottage cheese",)),
           ("Turmeric powder", ("haldi",)), ("Ghee", ())]
JAGGERY = {"currency": "USD", "product": {"name": "Jaggery", "unit": "1 kg block", "stock": 20, "price": "6.00",
                                          "location": "Aisle 1, oil shelf, upper right", "isLow": False}}
SALES = {"period": "last week", "receipts": 212, "revenue": "1005.15", "unitsSold": 640,
         "rows": [{"item": "Toor dal", "unitsSold": 31, "revenue": "278.69"}]}


def _beyond(reply, results=(JAGGERY,), owner="how many gur blocks do we have"):
    return said_beyond(reply, results=list(results), owner_text=owner, catalog=CATALOG)


def test_a_plain_answer_from_the_result_says_nothing_beyond_it():
    assert not _beyond("We have 20 blocks of Jaggery left, in Aisle 1 on the oil shelf.")
    assert not _beyond("Jaggery costs $6.00 for a 1 kg block.")
    assert not _beyond("Last week we made $1005.15 from 212 receipts; Toor dal sold 31 units.", [SALES],
                       "how did we do last week")


def test_a_description_the_result_does_not_give_is_an_embellishment():
    beyond = _beyond("We have 20 blocks of jaggery, a popular choice for desserts.")
    assert beyond.kind == "words" and set(beyond.said) == {"popular", "choice", "dessert"}


def test_a_unit_neither_the_result_nor_the_owner_gives_is_caught():
    beyond = _beyond("We have 20 bottles of Jaggery.")
    assert (beyond.kind, beyond.said) == ("units", ("bottle",))
    assert not _beyond("We have 20 bottles of Jaggery.", owner="how many bottles of gur do we have")


def test_a_product_no_result_and_not_the_owner_names_is_caught():
    beyond = _beyond("We have 20 blocks of Jaggery and plenty of Ghee.")
    assert (beyond.kind, beyond.said) == ("names", ("Ghee",))
    assert not _beyond("We have 20 blocks of gur.")  # a local name of a product in the result
    assert _beyond("Haldi is in Aisle 1.").kind == "names"


def test_words_of_the_routers_own_sentences_and_result_keys_are_plain():
    assert not _beyond("Sorry, nothing is low right now.", [{"filter": "low", "products": []}], "anything low")
    assert not _beyond("Units sold: 640.", [SALES], "how many units did we sell last week")

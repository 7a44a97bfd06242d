"""Hearing shop words: beam hypotheses re-ranked and corrected against the store's catalog, and the
question asked back when the hearing is unsure (issue 19).

The hypotheses here are what Whisper's beam returned on the spoken set's development clips
("tortell", "sarsen cocktail", "audit"); the pipeline tests drive ``run_turn`` (the entry point of
every channel) with the transcript a worker hands it, and only the router model is scripted, at its
process boundary.
"""

from __future__ import annotations

import pytest

from assistant.catalogs import catalog_for
from assistant.lexicon import lexicon_for
from assistant.pipeline import run_turn
from assistant.types import Mode, TurnInput
from ledger.models import Product
from speech.hearing import Hearing
from speech.transcribe import Hypothesis
from tenants.context import use_store


@pytest.fixture
def hearing(demo):
    with use_store(demo):
        lexicon = lexicon_for(demo.business_type.slug)
        return Hearing(catalog=catalog_for(store=demo, lexicon=lexicon), lexicon=lexicon)


def _h(*pairs: tuple[str, float]) -> list[Hypothesis]:
    return [Hypothesis(text=text, logprob=logprob) for text, logprob in pairs]


def test_a_misheard_product_that_sounds_like_one_the_store_sells_is_read_as_it(hearing):
    choice = hearing.choose(_h(("Acually just reorder the tortell.", -0.4)))
    assert "toor dal" in choice.text
    assert choice.corrections == [{"heard": "tortell", "product": "Toor dal", "score": pytest.approx(0.83, abs=0.02)}]
    assert choice.doubt is None


def test_a_hypothesis_naming_a_product_beats_a_likelier_one_that_names_none(hearing):
    choice = hearing.choose(_h(("How many gold blocks do we have?", -0.30), ("How many gur blocks do we have?", -0.55)))
    assert choice.text == "How many gur blocks do we have?"


def test_a_much_likelier_hypothesis_is_kept_even_if_another_names_a_product(hearing):
    choice = hearing.choose(_h(("How's the store doing overall?", -0.10), ("How's the store doing over ghee?", -2.5)))
    assert choice.text == "How's the store doing overall?"


def test_a_weak_sound_alike_is_a_doubt_to_ask_about_not_a_correction(hearing):
    choice = hearing.choose(_h(("Where is the audit?", -0.3)))
    assert choice.text == "Where is the audit?"
    assert choice.doubt == {"kind": "product", "question": "Did you mean atta?", "text": "where is the atta?"}


def test_words_that_sound_like_no_product_stay_as_heard(hearing):
    choice = hearing.choose(_h(("do we have pizza", -0.2)))
    assert choice.text == "do we have pizza"
    assert choice.corrections == [] and choice.doubt is None


def test_close_hypotheses_that_disagree_on_the_number_make_it_a_doubt(hearing):
    choice = hearing.choose(_h(("set the toor dal count to nineteen", -0.20), ("set the toor dal count to ninety", -0.30)))
    assert choice.doubt == {"kind": "number", "question": "Did you say 19?", "text": "set the toor dal count to nineteen"}


def test_a_number_the_beam_agrees_on_is_no_doubt(hearing):
    choice = hearing.choose(_h(("set the toor dal count to twenty two", -0.20), ("set the toor dal count to 42", -1.5)))
    assert choice.doubt is None


def test_a_count_change_to_a_teen_or_ty_number_is_asked_even_when_the_beam_agrees(hearing):
    # tiny.en heard "fourteen" as "40" in every hypothesis; a count written wrong is worse than a question.
    choice = hearing.choose(_h(("Change your urad dal stock to 40.", -0.20), ("Change your urad dal stock to forty.", -0.9)))
    assert choice.doubt == {"kind": "number", "question": "Did you say 40, not 14?", "text": "Change your urad dal stock to 40."}
    assert hearing.choose(_h(("we actually have seventeen bags of atta", -0.2))).doubt["question"] == "Did you say 17, not 70?"


@pytest.mark.parametrize("text", [
    "do we have 40 bags of atta?",  # a question, not a count change
    "how many of the 15 jars of ghee are left",
    "we have 12 bags of atta",  # 12 has no teen/ty partner
    "set atta to 25",
    "order 40 bags of atta",  # a draft the owner approves, not a count written now
])
def test_questions_orders_and_unconfusable_numbers_are_not_asked(hearing, text):
    assert hearing.choose(_h((text, -0.2))).doubt is None


def _voice(store, text, *, doubt=None, conversation=None):
    transcript = {"source": "speech", "doubt": doubt} if doubt else {"source": "speech"}
    return run_turn(store=store, turn=TurnInput(text=text, mode=Mode.ROUTER, conversation=conversation,
                                                channel="voice", actor="owner", transcript=transcript)).as_dict()


def _stock(store, name):
    with use_store(store):
        return Product.objects.get(store=store, name=name).stock


def test_a_doubted_product_is_asked_back_and_the_owners_yes_runs_what_it_offered(demo, router):
    router.add({"action": "find_product", "item": "audit", "ask": "where"})
    asked = _voice(demo, "Where is the audit?",
                   doubt={"kind": "product", "question": "Did you mean atta?", "text": "where is the atta?"})
    assert asked["action"] == "confirm_hearing"
    assert asked["reply"] == "Did you mean atta?"
    assert "carry" not in asked["reply"]

    router.add({"action": "find_product", "item": "atta", "ask": "where"})
    answered = _voice(demo, "yes", conversation=asked["conversation"])
    assert answered["transcript"] == "where is the atta?"
    assert answered["action"] == "find_product"
    assert answered["tool_calls"][0]["arguments"] == {"item": "Atta"}
    assert "Aisle 2, floor stack by the cooler" in answered["reply"]


def test_a_doubt_about_a_product_the_words_already_name_is_not_asked(demo, router):
    router.add({"action": "find_product", "item": "ghee", "ask": "where"})
    answer = _voice(demo, "where is the ghee",
                    doubt={"kind": "product", "question": "Did you mean atta?", "text": "where is the atta"})
    assert answer["action"] == "find_product"
    assert answer["tool_calls"][0]["arguments"] == {"item": "Ghee"}


def test_a_doubted_number_is_asked_before_any_count_changes_and_a_yes_sets_it(demo, router):
    before = _stock(demo, "Toor dal")
    asked = _voice(demo, "set the toor dal count to nineteen",
                   doubt={"kind": "number", "question": "Did you say 19?", "text": "set the toor dal count to nineteen"})
    assert asked["action"] == "confirm_hearing" and asked["tool_calls"] == []
    assert _stock(demo, "Toor dal") == before

    router.add({"action": "update_count", "item": "toor dal"})
    done = _voice(demo, "yes", conversation=asked["conversation"])
    assert done["action"] == "update_count"
    assert _stock(demo, "Toor dal") == 19


def test_no_with_the_partner_number_runs_the_words_with_that_number(demo, router):
    question = "Did you say 40, not 14?"
    asked = _voice(demo, "Change your urad dal stock to 40.",
                   doubt={"kind": "number", "question": question, "text": "Change your urad dal stock to 40."})
    assert asked["reply"] == question and _stock(demo, "Urad dal") != 40

    router.add({"action": "update_count", "item": "urad dal"})
    done = _voice(demo, "no, fourteen", conversation=asked["conversation"])
    assert done["action"] == "update_count"
    assert "14" in done["transcript"]
    assert _stock(demo, "Urad dal") == 14


def test_a_number_that_is_not_the_partner_is_a_new_request(demo, router):
    asked = _voice(demo, "Change your urad dal stock to 40.",
                   doubt={"kind": "number", "question": "Did you say 40, not 14?", "text": "Change your urad dal stock to 40."})
    before = _stock(demo, "Urad dal")
    other = _voice(demo, "no, twenty", conversation=asked["conversation"])
    assert other["transcript"] == "no, twenty"
    assert _stock(demo, "Urad dal") == before


def test_anything_but_yes_drops_the_offered_words(demo, router):
    asked = _voice(demo, "set the toor dal count to nineteen",
                   doubt={"kind": "number", "question": "Did you say 19?", "text": "set the toor dal count to nineteen"})
    router.add({"action": "find_product", "item": "ghee", "ask": "where"})
    other = _voice(demo, "where is the ghee", conversation=asked["conversation"])
    assert other["action"] == "find_product"
    later = _voice(demo, "yes", conversation=asked["conversation"])
    assert later["action"] != "update_count"
    assert _stock(demo, "Toor dal") != 19

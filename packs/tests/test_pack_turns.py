"""A turn of a store whose type is a published pack: its own words, its own action names, the built-in behaviours.

Only the router model is replaced, at its process boundary (``router``: a FakeBackend that answers
with scripted JSON and records the prompts it was sent).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from packs.services import pack_install
from packs.source import BUNDLED, read_folder
from packs.validate import pack_validate
from tenants.models import Store


def _corner_shop(tmp_path: Path) -> Path:
    """Grocery's pack as another type whose product lookup is called check_shelf and who says "sweet brick"."""
    folder = tmp_path / "corner-shop"
    shutil.copytree(BUNDLED / "grocery", folder)
    (folder / "matcher.yaml").unlink()  # no fast path: every turn asks the (scripted) router
    (folder / "evaluation" / "routing_dev.json").unlink()
    (folder / "pack.yaml").write_text((folder / "pack.yaml").read_text().replace("slug: grocery", "slug: corner-shop"))
    for name in ("router.json", "lexicon.json", "guard_vocabulary.json", "evaluation/routing_set.json"):
        text = (folder / name).read_text().replace('"find_product"', '"check_shelf"')
        data = json.loads(text)
        data.setdefault("business_type", "corner-shop")
        if "business_type" in data:
            data["business_type"] = "corner-shop"
        for action in data.get("actions", []) if name == "router.json" else ():
            if action["behaviour"] == "check_shelf":  # the name changes, the built-in behaviour does not
                action["behaviour"] = "find_product"
        if name == "lexicon.json":
            data["local_names"].append({"to": "jaggery", "from": ["sweet brick"]})
        (folder / name).write_text(json.dumps(data))
    return folder


def test_a_turn_runs_on_the_stores_published_pack_with_its_own_words_and_action_names(api_client, demo, router,
                                                                                       tmp_path):
    router_json = json.loads((_corner_shop(tmp_path) / "router.json").read_text())
    assert next(a for a in router_json["actions"] if a["name"] == "check_shelf")["behaviour"] == "find_product"
    version = pack_install(pack=pack_validate(read_folder(tmp_path / "corner-shop")), publish=True, actor="tests")
    Store.objects.filter(pk=demo.pk).update(business_type=version.business_type, pack_version=version)

    router.add({"action": "check_shelf", "item": "jaggery", "ask": "where"})
    response = api_client.post("/api/v1/turns", {"text": "where is the sweet brick", "mode": "router"}, format="json")
    answer = response.json()

    assert response.status_code == 200
    assert "jaggery" in answer["normalized"]  # the pack's own local name
    assert answer["action"] == "check_shelf"  # the pack's name for the built-in lookup
    assert answer["tool_calls"][0]["tool"] == "get_inventory"
    assert answer["tool_calls"][0]["arguments"] == {"item": "Jaggery"}
    assert "Aisle 1, oil shelf, upper right" in answer["reply"]
    prompt = router.requests[0].messages[0]["content"]
    assert "1 check_shelf:" in prompt and "find_product" not in prompt
    assert "check_shelf" in router.requests[0].json_schema["properties"]["action"]["enum"]

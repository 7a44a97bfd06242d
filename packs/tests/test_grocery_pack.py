"""Grocery runs from its pack: the bundled folder validates, and the demo store's router prompt is the one it was."""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

import pytest

from packs.source import BUNDLED, read_folder
from packs.validate import pack_validate

# The router's messages and output schema for two turns of the demo store, taken on main at 7b2fcf2,
# before grocery's files moved into packs/bundled/grocery (sha256 of the JSON below).
PROMPT_BEFORE_PACKS = "7eecfc45504c0ad1fd23877f3ca857168dd7170d54df23e943f9c71b72d6d0a7"


def test_the_bundled_grocery_pack_is_valid():
    pack = pack_validate(read_folder(BUNDLED / "grocery"))
    assert (pack.slug, pack.version) == ("grocery", 1)
    assert {a["name"] for a in pack.document["router"]["actions"]} == {a["behaviour"] for a in pack.document["router"]["actions"]}


@pytest.mark.django_db
def test_the_grocery_stores_router_prompt_is_byte_identical_to_before_packs(demo):
    from assistant.grounding import Catalog
    from assistant.lexicon import lexicon_for
    from assistant.modes.router import prompt as prompts
    from assistant.modes.router.mode import RouterMode
    from assistant.normalize import normalize
    from ledger import selectors
    from packs.source import store_pack_key

    demo.name, demo.owner_name = "Little India Grocery", "Raj"
    demo.save()
    key = store_pack_key(demo)
    lexicon = lexicon_for(key)
    catalog = Catalog.from_products(selectors.product_list(store=demo), lexicon=lexicon)
    pack = prompts.router_pack(key)
    messages = {}
    for text, last_product, last_action in [("um where did we keep the haldi", "", ""),
                                            ("and how much is it", "Turmeric powder", "find_product")]:
        ctx = SimpleNamespace(store=demo, words=normalize(text, lexicon), catalog=catalog,
                              state=SimpleNamespace(last_product=last_product, last_action=last_action))
        messages[text] = RouterMode().messages(ctx, pack)
    blob = json.dumps({"messages": messages, "schema": prompts.output_schema(pack)}, sort_keys=True)
    assert hashlib.sha256(blob.encode()).hexdigest() == PROMPT_BEFORE_PACKS

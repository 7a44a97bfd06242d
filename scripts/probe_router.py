"""Quick probe of the bundled model as a router: one enum-constrained call per owner request.

    python scripts/probe_router.py                 # the ten built-in requests
    python scripts/probe_router.py "got any jeera"  # your own
    python scripts/probe_router.py --numbers        # the enum is action numbers, not names

Prints the model load time, then per request the chosen action, whether it is the expected one
(for the built-in requests), the call's latency and how many prompt tokens came from the cache.
The static part of the prompt (actions, examples, a demo catalog: about 2,000 tokens) comes
first, so only the first call evaluates it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inference.base import ModelRequest, Role
from inference.config import get_backend

ACTIONS = [
    ("general", "greetings, thanks, small talk and questions not about this store's books", ["hello", "thank you so much", "what is the capital of India"]),
    ("find_product", "where one product is, how many we have, its price or whether we carry it", ["where is the basmati", "how many bags of sugar are left", "do we sell ghee"]),
    ("list_products", "what the store carries, the whole catalog or a group", ["what do we sell", "which lentils do we have"]),
    ("todays_sales", "what sold today and today's takings", ["how were sales today", "what did we sell this morning"]),
    ("store_health", "how the store is doing overall: stock value, alerts, open orders", ["how is the shop doing", "give me a summary of the store"]),
    ("low_stock", "products that are running low or out of stock", ["what's running low", "anything out of stock"]),
    ("draft_restock", "order or restock products from the supplier (a draft the owner confirms)", ["order more rice", "restock the spices", "we need twelve bottles of mustard oil"]),
    ("update_count", "the owner says how many of a product are really on the shelf, with a number", ["we have 30 packs of poha", "actually there are only four tins of ghee"]),
    ("play_demo", "show the demo film of the app", ["show me the demo", "play the intro video"]),
    ("play_guide", "play an audio guide on inventory, running a small business or nutrition", ["play a guide about inventory", "another one"]),
    ("email_report", "email a sales or inventory report to the owner", ["email me the inventory report", "send today's sales report"]),
]

CATALOG = [
    ("Atta (whole wheat flour)", "atta, otta, ata, chakki atta", "10 kg bag", "Aisle 1, bottom shelf"),
    ("Toor dal", "toor dal, tur dal, turdal, arhar dal, pigeon peas", "1 kg bag", "Aisle 2, top shelf"),
    ("Moong dal", "moong dal, mung dal, green gram", "1 kg bag", "Aisle 2, top shelf"),
    ("Chana dal", "chana dal, split chickpeas", "1 kg bag", "Aisle 2, middle shelf"),
    ("Masoor dal", "masoor dal, red lentils", "1 kg bag", "Aisle 2, middle shelf"),
    ("Urad dal", "urad dal, black gram", "1 kg bag", "Aisle 2, bottom shelf"),
    ("Rajma", "rajma, kidney beans", "1 kg bag", "Aisle 2, bottom shelf"),
    ("Kabuli chana", "chickpeas, chole, kabuli chana", "1 kg bag", "Aisle 2, bottom shelf"),
    ("Basmati rice", "basmati, chawal, rice", "5 kg bag", "Aisle 1, middle shelf"),
    ("Sona masoori rice", "sona masoori, ponni rice", "10 kg bag", "Aisle 1, middle shelf"),
    ("Poha", "poha, flattened rice, aval", "500 g pack", "Aisle 1, top shelf"),
    ("Sooji", "sooji, rava, semolina", "1 kg pack", "Aisle 1, top shelf"),
    ("Besan", "besan, gram flour", "1 kg pack", "Aisle 1, top shelf"),
    ("Maida", "maida, all purpose flour", "1 kg pack", "Aisle 1, top shelf"),
    ("Jaggery", "gur, jaggery, gud", "1 kg block", "Aisle 3, middle shelf"),
    ("Sugar", "sugar, cheeni", "1 kg bag", "Aisle 3, middle shelf"),
    ("Salt", "salt, namak", "1 kg pack", "Aisle 3, middle shelf"),
    ("Turmeric powder", "haldi, turmeric", "200 g pack", "Aisle 4, spice rack"),
    ("Cumin seeds", "jeera, cumin", "200 g pack", "Aisle 4, spice rack"),
    ("Coriander powder", "dhania, coriander", "200 g pack", "Aisle 4, spice rack"),
    ("Red chilli powder", "lal mirch, chilli powder", "200 g pack", "Aisle 4, spice rack"),
    ("Garam masala", "garam masala", "100 g pack", "Aisle 4, spice rack"),
    ("Mustard seeds", "rai, sarson seeds, mustard seeds", "200 g pack", "Aisle 4, spice rack"),
    ("Cardamom", "elaichi, cardamom", "50 g pack", "Aisle 4, spice rack"),
    ("Mustard oil", "sarson ka tel, mustard oil", "1 L bottle", "Aisle 5, top shelf"),
    ("Sunflower oil", "sunflower oil, refined oil", "1 L bottle", "Aisle 5, top shelf"),
    ("Ghee", "ghee, desi ghee", "1 L tin", "Aisle 5, middle shelf"),
    ("Tea", "chai patti, tea leaves, tea", "500 g pack", "Aisle 6, top shelf"),
    ("Instant coffee", "coffee", "200 g jar", "Aisle 6, top shelf"),
    ("Parle-G biscuits", "biscuits, parle g", "800 g pack", "Aisle 6, middle shelf"),
    ("Maggi noodles", "maggi, noodles", "12-pack", "Aisle 6, middle shelf"),
    ("Papad", "papad, papadum", "200 g pack", "Aisle 6, bottom shelf"),
    ("Mango pickle", "achaar, aam ka achaar, pickle", "500 g jar", "Aisle 6, bottom shelf"),
    ("Paneer", "paneer, cottage cheese", "200 g block", "Freezer 1"),
    ("Frozen peas", "matar, peas", "1 kg bag", "Freezer 1"),
    ("Curd", "dahi, curd, yogurt", "400 g tub", "Fridge 2"),
    ("Milk", "doodh, milk", "1 L pouch", "Fridge 2"),
    ("Onions", "pyaz, onion", "per kg", "Produce stand"),
    ("Potatoes", "aloo, potato", "per kg", "Produce stand"),
    ("Tomatoes", "tamatar, tomato", "per kg", "Produce stand"),
]

PROBES = [
    ("where did we put the gur", "find_product"),
    ("we actually have fifteen bags of atta", "update_count"),
    ("order more toor dal", "draft_restock"),
    ("thanks!", "general"),
    ("um how much did we sell today", "todays_sales"),
    ("what's running low", "low_stock"),
    ("email me the inventory report", "email_report"),
    ("play the guide about inventory", "play_guide"),
    ("how's the store doing", "store_health"),
    ("alexa show me the demo", "play_demo"),
]


def system_prompt(numbers: bool) -> str:
    """The static part: actions with examples, rules and the catalog (first, so it is cached)."""
    lines = ["You are the router of a voice assistant for Little India Grocery, a small store.",
             "The owner speaks; speech-to-text may mishear words. Pick the ONE action that fits the owner's words.",
             "", "Actions:"]
    for n, (name, gist, examples) in enumerate(ACTIONS):
        label = f"{n}" if numbers else name
        lines.append(f"{label}: {name.replace('_', ' ')} - {gist}. Examples: " + "; ".join(f'"{e}"' for e in examples))
    lines += ["", "Rules:",
              "- A count with a number for a product the owner already has on the shelf is update_count, not draft_restock.",
              "- Asking to order, restock or buy more is draft_restock.",
              "- Greetings, thanks and anything not about this store is general.",
              "- Questions about one product (where, how many, price, do we have) are find_product.",
              "", "Catalog (name | words the owner may use | unit | where it is):"]
    lines += [f"- {name} | {aliases} | {unit} | {where}" for name, aliases, unit, where in CATALOG]
    lines += ["", "Extra notes on the store:"]
    lines += [f"- {name}: reorder from the usual wholesaler in the market; keep dry; check expiry dates weekly."
              for name, *_ in CATALOG[:12]]
    lines.append("Answer with JSON only.")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("requests", nargs="*", help="owner requests (default: ten built-in ones)")
    parser.add_argument("--numbers", action="store_true", help="constrain to action numbers 0-10 instead of names")
    args = parser.parse_args()

    names = [name for name, _, _ in ACTIONS]
    enum: list = list(range(len(names))) if args.numbers else names
    schema = {"type": "object", "properties": {"action": {"enum": enum}}, "required": ["action"], "additionalProperties": False}
    system = system_prompt(args.numbers)
    probes = [(text, None) for text in args.requests] or PROBES

    backend = get_backend(Role.ROUTER)
    started = time.perf_counter()
    backend.warm_up()
    print(f"model {backend.model}: loaded and warmed up in {time.perf_counter() - started:.1f} s")

    latencies, correct = [], 0
    for n, (text, expected) in enumerate(probes):
        response = backend.complete(
            ModelRequest(
                role=Role.ROUTER,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": text}],
                json_schema=schema,
                max_tokens=16,
            )
        )
        value = (response.parsed or {}).get("action")
        action = names[value] if args.numbers and isinstance(value, int) and 0 <= value < len(names) else value
        mark = "" if expected is None else ("ok  " if action == expected else f"MISS (expected {expected}) ")
        correct += action == expected
        if n:
            latencies.append(response.duration_ms)
        print(
            f"{response.duration_ms:7.0f} ms  prompt {response.prompt_tokens:4d} tok, cached {response.cached_tokens or 0:4d}, "
            f"out {response.completion_tokens:2d}  {action!s:14s} {mark}<- {text!r}"
        )
        if value not in enum:
            print(f"  enum violated: {response.text!r}")
    if latencies:
        print(f"cached calls: median {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms")
    if not args.requests:
        print(f"correct: {correct}/{len(probes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""SLM-ToolCall-100 as seed 001 describes it, written for this repository: 100 prompts, 20 per tool.

Each prompt names its tool, states every argument and its value, and asks for nothing but an
object with the keys ``tool`` and ``parameters``. The order is shuffled once with seed 42 and kept
for every model and condition. ``prompts.json`` beside this file is the data the benchmark reads;
``build()`` is how it was written (a test holds the two equal), so the set can be audited.
``python -m lab.reliability.prompt_set`` rewrites the file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("prompts.json")
ASK = 'Reply with only a JSON object with the top-level keys "tool" and "parameters".'

PLACES = ["Paris", "Tokyo", "Nairobi", "Lima", "Oslo", "Mumbai", "Toronto", "Cairo", "Sydney", "Reykjavik",
          "Berlin", "Santiago", "Hanoi", "Lagos", "Denver", "Lisbon", "Seoul", "Quito", "Dublin", "Perth"]
QUERIES = ["best hiking trails in Patagonia", "how to repot a cactus", "python dataclass tutorial",
           "history of the printing press", "cheap flights to Rome", "symptoms of vitamin D deficiency",
           "electric bike reviews 2026", "how tides work", "sourdough starter recipe", "solar panel efficiency",
           "learn Spanish online free", "marathon training plan", "the tallest building in Africa",
           "fix a leaking tap", "jazz festivals in Europe", "how vaccines are tested", "chess openings for beginners",
           "rainwater harvesting systems", "origin of the word robot", "mechanical keyboard switches"]
EXPRESSIONS = ["12 * 7", "(45 + 55) / 4", "2 ** 10", "144 / 12 - 3", "3.5 * 8", "(17 - 5) * 3", "1000 - 387",
               "81 ** 0.5", "6 * (7 + 8)", "99 / 9", "250 * 0.15", "(3 + 4) * (5 - 2)", "7 ** 3", "1024 / 32",
               "15 % 4", "56 + 78 + 91", "(100 - 36) / 8", "9 * 9 * 9", "0.25 * 640", "365 * 24"]
PEOPLE = ["alice@example.com", "bob.smith@example.org", "carol@example.net", "dev.team@example.com",
          "erin.li@example.com", "frank@example.org", "grace.ho@example.net", "hiro@example.com",
          "ivan.petrov@example.org", "jane@example.com"]
SUBJECTS = [("Meeting moved", "The meeting is now at 3 pm on Friday."), ("Invoice 1042", "Please find the invoice attached."),
            ("Lunch tomorrow", "Are you free for lunch at noon?"), ("Project update", "The prototype passed its tests."),
            ("Welcome aboard", "Glad to have you on the team."), ("Server maintenance", "The server will be down tonight."),
            ("Birthday party", "Join us on Saturday at 7 pm."), ("Report draft", "The draft is ready for review."),
            ("Travel plans", "My flight lands at 9 am."), ("Thank you", "Thanks for your help this week.")]
TASKS = ["Buy groceries", "Renew passport", "Call the dentist", "Submit tax return", "Water the plants",
         "Book train tickets", "Prepare slides", "Pay electricity bill", "Clean the garage", "Write blog post",
         "Service the car", "Order birthday cake", "Update resume", "Back up laptop", "Return library books",
         "Plan team offsite", "Fix bike tyre", "Email the landlord", "Review pull request", "Buy printer ink"]
PRIORITIES = ["low", "medium", "high"]


def _quote(params: dict[str, Any]) -> str:
    parts = [f'{key} {json.dumps(value)}' for key, value in params.items()]
    return ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else parts[0]


def _prompt(tool: str, params: dict[str, Any], variant: int) -> str:
    said = _quote(params)
    openings = [f"Use the {tool} tool with {said}.", f"Call {tool} with the parameters {said}.",
                f"I need the {tool} tool: set {said}.", f"Please run the tool {tool} with {said}."]
    return f"{openings[variant % len(openings)]} {ASK}"


def _calls() -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for i in range(20):
        calls.append(("get_weather", {"location": PLACES[i], "unit": "celsius" if i % 2 == 0 else "fahrenheit"}))
        calls.append(("search_web", {"query": QUERIES[i], "num_results": [3, 5, 10, 7, 1][i % 5]}))
        calls.append(("calculate", {"expression": EXPRESSIONS[i]}))
        subject, body = SUBJECTS[i % 10]
        calls.append(("send_email", {"to": PEOPLE[(i * 3) % 10], "subject": subject if i < 10 else f"Re: {subject}",
                                     "body": body}))
        calls.append(("create_todo", {"title": TASKS[i], "due_date": f"2026-{1 + i % 12:02d}-{1 + (i * 7) % 28:02d}",
                                      "priority": PRIORITIES[i % 3]}))
    return calls


def build() -> list[dict[str, Any]]:
    """The 100 prompts in their fixed order: id, tool, prompt text, expected parameters."""
    items = []
    for n, (tool, params) in enumerate(_calls()):
        items.append({"tool": tool, "parameters": params, "prompt": _prompt(tool, params, n // 5)})
    random.Random(42).shuffle(items)
    return [{"id": f"p{n:03d}", **item} for n, item in enumerate(items, start=1)]


def load(path: Path = PATH) -> list[dict[str, Any]]:
    """The prompt set from ``path`` (``prompts.json`` by default)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data["prompts"])


def main() -> None:
    PATH.write_text(json.dumps({"name": "SLM-ToolCall-100 (Shelfwise's rewrite)", "seed": 42, "prompts": build()},
                               indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {PATH}")


if __name__ == "__main__":
    main()

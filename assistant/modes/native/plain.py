"""Native tool calling as in the seed (mode A): every tool declared in the model's own format, a free loop.

The model sees the system prompt, the rules and ALL tools (the MCP tools and the client
tools) rendered by its own chat template, and answers in its own syntax
(``<tool_call>{...}</tool_call>``). Each call runs through the gateway with the owner-words
policy; its result goes back as a tool message; the loop continues for at most six steps.
When the model describes a step instead of taking it ("let me check", "I have updated the
count") before any tool ran, it is nudged once to call the tool. Its final text is the reply
(the output guard judges it). Nothing else is checked: this is the baseline.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.model_log import ask
from assistant.modes.base import ModeOutcome, TurnContext
from assistant.modes.client_tools import openai_tools
from assistant.types import Outcome
from inference.base import ModelRequest, Role

from . import common, template

TEMPERATURE = 0.1  # as in the seed's mode A
MAX_TOKENS = 256
UNFINISHED = "Sorry, I couldn't finish that. Please ask me again."
NUDGE = "You said you would do that, but you did not call a tool. Call the tool now."
_DESCRIBES = re.compile(
    r"\b(let me|i('ll| will| am going to|'m going to)|one moment|checking|i (have|'ve) (updated|changed|set|drafted|"
    r"placed|ordered|created|checked|sent|emailed))\b",
    re.IGNORECASE,
)


def handle(ctx: TurnContext) -> ModeOutcome:
    tools = openai_tools()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": common.system_prompt(ctx)},
        {"role": "user", "content": common.user_prompt(ctx)},
    ]
    steps: list[common.Step] = []
    nudged = False
    prose = ""
    for number in range(common.MAX_STEPS):
        response = ask(
            ModelRequest(role=Role.NATIVE, prompt=template.render(messages, tools), temperature=TEMPERATURE,
                         max_tokens=MAX_TOKENS, stop=("<|im_end|>", "<|endoftext|>", "<tool_response>")),
            purpose=f"native plain step {number + 1}",
        )
        prose, calls = template.parse_output(response.text)
        if not calls:
            if not steps and not nudged and _DESCRIBES.search(prose):
                nudged = True
                messages += [{"role": "assistant", "content": response.text}, {"role": "user", "content": NUDGE}]
                continue
            break
        # The model's own words, tool-call blocks included, are what it said; results follow as tool messages.
        messages.append({"role": "assistant", "content": response.text.strip()})
        for call in calls:
            if call.problem:
                messages.append({"role": "tool", "content": f"Error: {call.problem}."})
                continue
            step = common.run_call(ctx, call.name, call.arguments)
            steps.append(step)
            if step.refused:
                return common.refusal(ctx, steps)
            messages.append({"role": "tool", "content": common.result_for_model(step)})
        prose = ""
    if not prose:  # six steps without a final answer, or an empty one: say so (no code-built reply here)
        return common.outcome(ctx, steps, UNFINISHED, model_written=False, result=Outcome.ERROR)
    return common.outcome(ctx, steps, " ".join(prose.split()), model_written=True)

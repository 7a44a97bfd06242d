"""Unit conversions and plain arithmetic, answered exactly by code instead of the general model.

"how many grams are in a pound", "convert 2 cups to millilitres", "350 fahrenheit in celsius",
"what's 15 percent of 80", "what is 12 times 7": the general model on this CPU takes seconds and
may get the figure wrong; code is exact and instant. ``computed_answer`` reads only a whole
sentence of one of these shapes (the normalised words: numbers as digits) and returns None for
anything else, which then goes where it always went.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Each unit's words and its size in the kind's base unit (gram, millilitre, metre); volumes are US
# customary measures, and the reply says so.
_UNITS: dict[str, tuple[str, float, tuple[str, ...]]] = {
    "gram": ("mass", 1.0, ("g", "gm", "gms", "grams", "gram", "gramme", "grammes")),
    "kilogram": ("mass", 1000.0, ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "kilogramme", "kilogrammes")),
    "milligram": ("mass", 0.001, ("mg", "milligram", "milligrams")),
    "pound": ("mass", 453.59237, ("lb", "lbs", "pound", "pounds")),
    "ounce": ("mass", 28.349523125, ("oz", "ounce", "ounces")),
    "millilitre": ("volume", 1.0, ("ml", "mls", "millilitre", "millilitres", "milliliter", "milliliters")),
    "litre": ("volume", 1000.0, ("l", "litre", "litres", "liter", "liters")),
    "cup": ("volume", 236.5882365, ("cup", "cups")),
    "tablespoon": ("volume", 14.78676478125, ("tbsp", "tablespoon", "tablespoons")),
    "teaspoon": ("volume", 4.92892159375, ("tsp", "teaspoon", "teaspoons")),
    "fluid ounce": ("volume", 29.5735295625, ("fl oz", "fluid ounce", "fluid ounces")),
    "pint": ("volume", 473.176473, ("pint", "pints")),
    "quart": ("volume", 946.352946, ("quart", "quarts")),
    "gallon": ("volume", 3785.411784, ("gallon", "gallons")),
    "millimetre": ("length", 0.001, ("mm", "millimetre", "millimetres", "millimeter", "millimeters")),
    "centimetre": ("length", 0.01, ("cm", "cms", "centimetre", "centimetres", "centimeter", "centimeters")),
    "metre": ("length", 1.0, ("m", "metre", "metres", "meter", "meters")),
    "kilometre": ("length", 1000.0, ("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers")),
    "inch": ("length", 0.0254, ("inch", "inches")),
    "foot": ("length", 0.3048, ("foot", "feet", "ft")),
    "yard": ("length", 0.9144, ("yard", "yards")),
    "mile": ("length", 1609.344, ("mile", "miles")),
    "celsius": ("temperature", 1.0, ("celsius", "centigrade", "degrees celsius", "degrees centigrade", "c")),
    "fahrenheit": ("temperature", 1.0, ("fahrenheit", "degrees fahrenheit", "f")),
}
_US = frozenset({"cup", "tablespoon", "teaspoon", "fluid ounce", "pint", "quart", "gallon"})
_WORD_TO_UNIT = {word: unit for unit, (_, _, words) in _UNITS.items() for word in words}
_UNIT = "|".join(sorted((re.escape(w) for w in _WORD_TO_UNIT), key=len, reverse=True))
_NUM = r"\d+(?:\.\d+)?"
_ONE = r"(?:a|an|one|1)"
_ASK = r"(?:what(?:'s| is)|whats|how much is|how much are|calculate|tell me)"

_CONVERSIONS = (
    # how many grams (are) in a pound / in 3 pounds
    re.compile(rf"^how many (?P<to>{_UNIT}) (?:are )?(?:there )?in (?:{_ONE}|(?P<n>{_NUM})) (?P<from>{_UNIT})$"),
    # convert 2 cups to millilitres / what is 2 kilos in pounds / 350 fahrenheit in celsius
    re.compile(rf"^(?:convert |{_ASK} )?(?P<n>{_NUM}|{_ONE}) (?:degrees )?(?P<from>{_UNIT}) (?:to|in|into) (?P<to>{_UNIT})$"),
    # tablespoons per cup, how many / grams per pound
    re.compile(rf"^(?:how many )?(?P<to>{_UNIT}) (?:per|in a|in an|in one) (?P<from>{_UNIT})(?:,? how many)?$"),
)
_OPS = {"plus": "+", "minus": "-", "less": "-", "times": "*", "multiplied by": "*", "x": "*",
        "divided by": "/", "over": "/"}
_ARITHMETIC = re.compile(rf"^(?:{_ASK} )?(?P<a>{_NUM}) (?P<op>{'|'.join(_OPS)}) (?P<b>{_NUM})$")
_PERCENT = re.compile(rf"^(?:{_ASK} )?(?P<a>{_NUM}) (?:percent|per cent|%) of (?P<b>{_NUM})$")


def spoken_number(value: float) -> str:
    """A figure as it is said: whole numbers plain, others to four significant figures."""
    if abs(value - round(value)) < 1e-9:
        return f"{round(value):,}"
    digits = max(0, min(4, 3 - int(f"{abs(value):e}".split("e")[1])))
    text = f"{value:,.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") else f"{value:.2g}"


def _plural(unit: str, value: float) -> str:
    if unit in ("celsius", "fahrenheit"):
        return f"degrees {unit.capitalize()}"
    if value == 1:
        return unit
    return {"inch": "inches", "foot": "feet"}.get(unit, unit + "s")


def _convert(value: float, source: str, target: str) -> float | None:
    kind, size, _ = _UNITS[source]
    if _UNITS[target][0] != kind or source == target:
        return None
    if kind == "temperature":
        return value * 9 / 5 + 32 if target == "fahrenheit" else (value - 32) * 5 / 9
    return value * size / _UNITS[target][1]


def _number(text: str | None) -> float:
    return float(text) if text and text[0].isdigit() else 1.0


def _conversion(text: str) -> str | None:
    for pattern in _CONVERSIONS:
        found = pattern.match(text)
        if found is None:
            continue
        source, target = _WORD_TO_UNIT[found["from"]], _WORD_TO_UNIT[found["to"]]
        value = _number(found.groupdict().get("n"))
        result = _convert(value, source, target)
        if result is None:
            return None
        us = " (US measures)" if {source, target} & _US else ""
        return (f"{spoken_number(value)} {_plural(source, value)} is {spoken_number(result)} "
                f"{_plural(target, result)}{us}.")
    return None


def _arithmetic(text: str) -> str | None:
    found = _PERCENT.match(text)
    if found is not None:
        a, b = float(found["a"]), float(found["b"])
        return f"{spoken_number(a)} percent of {spoken_number(b)} is {spoken_number(a * b / 100)}."
    found = _ARITHMETIC.match(text)
    if found is None:
        return None
    a, b, op = float(found["a"]), float(found["b"]), _OPS[found["op"]]
    if op == "/" and b == 0:
        return None
    result = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[op]
    return f"{spoken_number(a)} {found['op']} {spoken_number(b)} is {spoken_number(result)}."


@lru_cache(maxsize=256)  # a pure function of the words: the matcher and the router's action both ask
def computed_answer(text: str) -> str | None:
    """The exact answer when the whole sentence is a unit conversion or a sum; None for anything else."""
    words = " ".join(text.lower().replace("?", " ").strip(" .!").split())
    return _conversion(words) or _arithmetic(words)

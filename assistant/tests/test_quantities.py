"""Unit conversions and sums answered by code (``assistant.quantities``): exact, and only for whole sentences of that shape."""

from __future__ import annotations

import pytest

from assistant.quantities import computed_answer, spoken_number


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("how many grams are in a pound", "1 pound is 453.6 grams."),
        ("how many ounces in a kilogram?", "1 kilogram is 35.27 ounces."),
        ("convert 2 cups to millilitres", "2 cups is 473.2 millilitres (US measures)."),
        ("tablespoons per cup, how many", "1 cup is 16 tablespoons (US measures)."),
        ("350 degrees fahrenheit in celsius", "350 degrees Fahrenheit is 176.7 degrees Celsius."),
        ("what is 2.5 kilos in pounds", "2.5 kilograms is 5.512 pounds."),
        ("how many feet in a mile", "1 mile is 5,280 feet."),
        ("what's 15 percent of 80", "15 percent of 80 is 12."),
        ("what is 12 times 7", "12 times 7 is 84."),
        ("how much is 100 divided by 8", "100 divided by 8 is 12.5."),
    ],
)
def test_a_conversion_or_a_sum_gets_the_exact_figure(text, reply):
    assert computed_answer(text) == reply


@pytest.mark.parametrize(
    "text",
    [
        "how many bags of atta are in a box",  # a pack size is the store's, not a unit's
        "how many kilos of atta do we have",  # a stock question
        "how many grams in a litre",  # mass and volume do not convert
        "what is 12 divided by 0",
        "we have 15 bags of atta",
        "what's the capital of australia",
    ],
)
def test_anything_else_is_left_alone(text):
    assert computed_answer(text) is None


def test_figures_are_spoken_plainly():
    assert [spoken_number(v) for v in (84.0, 453.59237, 0.0625, 12000.0)] == ["84", "453.6", "0.0625", "12,000"]

"""The registry's contract with models and clients, and the validation sentences they read."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from mcp_gateway.registry import REGISTRY, Idempotency
from mcp_gateway.validation import field_path, validation_message

TOOLS = [
    "get_inventory",
    "get_todays_transactions",
    "get_sales",
    "get_alerts",
    "dismiss_alert",
    "reconcile_inventory",
    "update_inventory",
    "place_reorder",
    "send_inventory_report",
    "send_sales_report",
]


def _objects(schema):
    if schema.get("type") == "object":
        yield schema
        for child in schema.get("properties", {}).values():
            yield from _objects(child)
    if schema.get("type") == "array":
        yield from _objects(schema["items"])


def test_the_registry_holds_the_ten_owner_tools():
    assert list(REGISTRY) == TOOLS


@pytest.mark.parametrize("name", TOOLS)
def test_each_schema_is_valid_and_refuses_unknown_arguments_at_every_level(name):
    schema = REGISTRY[name].input_schema

    Draft202012Validator.check_schema(schema)
    assert all(obj.get("additionalProperties") is False for obj in _objects(schema))
    assert all(prop.get("description") for prop in schema["properties"].values())


@pytest.mark.parametrize("name", TOOLS)
def test_metadata_and_annotations_agree(name):
    spec = REGISTRY[name]

    assert spec.annotations.read_only_hint is (not spec.side_effects)
    assert spec.idempotency == (Idempotency.KEY if spec.side_effects else Idempotency.NONE)
    assert spec.timeout_s > 0 and spec.scope == "mcp"
    # The first sentence says when to use the tool; "not" says when not to.
    assert " not " in spec.description.split(". ")[1] or "; not " in spec.description


def test_only_place_reorder_needs_the_owners_confirmation():
    assert [name for name, spec in REGISTRY.items() if spec.needs_confirmation] == ["place_reorder"]


def test_the_model_view_carries_no_metadata():
    view = REGISTRY["update_inventory"].model_view()

    assert set(view) == {"name", "description", "parameters"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"item": "dal", "stock": 3}, "'expectedStock' is required: the count you last saw for this product from get_inventory."),
        ({"item": "dal", "stock": "ten", "expectedStock": 3}, "'stock' must be a whole number, not a string ('ten')."),
        ({"item": "dal", "stock": 2.5, "expectedStock": 3}, "'stock' must be a whole number, not a number (2.5)."),
        ({"item": "dal", "stock": True, "expectedStock": 3}, "'stock' must be a whole number, not true or false (true)."),
        ({"item": "", "stock": 1, "expectedStock": 3}, "'item' must not be empty."),
        ({"item": "dal", "stock": 1, "expectedStock": 3, "store": 9}, "Unknown argument 'store'; the allowed arguments here are: expectedStock, item, stock."),
    ],
)
def test_validation_names_the_field_and_the_rule(arguments, message):
    assert validation_message(REGISTRY["update_inventory"].input_schema, arguments) == message


def test_nested_fields_are_named_by_their_path():
    schema = REGISTRY["place_reorder"].input_schema

    message = validation_message(schema, {"confirmed": "yes", "items": [{"item": "rice", "qty": 2, "price": 1}]})

    assert message == (
        "'confirmed' must be true or false, not a string ('yes'). "
        "Unknown argument 'items[0].price'; the allowed arguments here are: item, qty."
    )


def test_enums_and_emails_say_what_is_allowed():
    assert validation_message(REGISTRY["get_inventory"].input_schema, {"filter": "few"}) == (
        "'filter' must be 'low' or 'all', not 'few'."
    )
    assert validation_message(REGISTRY["send_inventory_report"].input_schema, {"to": "raj at home"}) == (
        "'to' must be an email address, not 'raj at home'."
    )


def test_valid_arguments_pass():
    assert validation_message(REGISTRY["place_reorder"].input_schema, {"confirmed": False}) is None
    assert field_path(["items", 0, "qty"]) == "items[0].qty"

"""The tool registry: what a model sees (name, description, argument schema) and what it never does.

Each ``ToolSpec`` pairs the prompt-facing part of a tool with the metadata the gateway enforces
(required scope, side effects, owner confirmation, timeout, idempotency policy) and the MCP
annotations clients may show. Descriptions are prompt text for small models: the first sentence
says when to use the tool and when not to. Argument names are the public contract (camelCase,
as MCP clients expect); every schema refuses unknown arguments.

The handlers that run each tool live in ``mcp_gateway.tools``; everything goes through
``mcp_gateway.execution.execute_tool``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from mcp_types import ToolAnnotations

from tenants.models import StoreToken

MCP_SCOPE = StoreToken.Scope.MCP.value
CONFIRM_SCOPE = StoreToken.Scope.ORDERS_CONFIRM.value


class Idempotency(StrEnum):
    """How a repeated call is treated."""

    #: Reads: a repeat simply runs again (a key, if given, is ignored).
    NONE = "none"
    #: Writes: a repeat with the same idempotency key returns the first result and changes nothing.
    KEY = "key"


@dataclass(frozen=True)
class ToolSpec:
    """One registry entry.

    Attributes:
        name: the tool's name, as models and MCP clients call it.
        title: a short human title (shown by MCP clients).
        description: prompt text for the model; first sentence says when to use it and when not.
        input_schema: JSON Schema (2020-12) of the arguments; ``additionalProperties`` is false.
        scope: the credential scope a caller needs.
        side_effects: whether the call writes to the books or sends something.
        needs_confirmation: whether the effect only happens after the owner's explicit approval.
        timeout_s: the call's time budget; a call over it is rolled back and reported as timed out.
        idempotency: how a repeated call is treated.
        annotations: MCP tool annotations (hints for clients, never trusted by the gateway).
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    scope: str
    side_effects: bool
    needs_confirmation: bool
    timeout_s: float
    idempotency: Idempotency
    annotations: ToolAnnotations = field(compare=False)

    def model_view(self) -> dict[str, Any]:
        """What a model may see: name, description and argument schema (no metadata)."""
        return {"name": self.name, "description": self.description, "parameters": self.input_schema}


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


_ITEM: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 120,
    "description": "The product as the owner said it, e.g. 'toor dal', 'gur', 'basmati rice'.",
}
_RECIPIENT = {
    "type": "string",
    "format": "email",
    "maxLength": 254,
    "description": "Email address to send to. Leave out to send to the store owner; other addresses only work "
    "if the store allows them.",
}

_SPECS = (
    ToolSpec(
        name="get_inventory",
        title="Look up inventory",
        description=(
            "Look up the store's products: one product by name (spoken names, local names and misspellings are "
            "fine), the low-stock list, or the whole list. Use it for where something is, how many are left, its "
            "price or whether it is in stock, or how long the stock will last; not for changing a count (use "
            "update_inventory). Results carry stock, par level, reorder point, price, cost, shelf location, photo "
            "URL, dailySales (net units a day over the last 28 days), daysOfCover (stock / dailySales; null when "
            "nothing sold) and suggestedReorderQty with reorderReason, a sentence saying why."
        ),
        input_schema=_object(
            {
                "item": {**_ITEM, "description": _ITEM["description"] + " Leave out to get a list."},
                "filter": {
                    "type": "string",
                    "enum": ["low", "all"],
                    "description": "Without item: 'low' for products at or below their reorder point, 'all' for "
                    "every product (the default).",
                },
            }
        ),
        scope=MCP_SCOPE,
        side_effects=False,
        needs_confirmation=False,
        timeout_s=5.0,
        idempotency=Idempotency.NONE,
        annotations=ToolAnnotations(
            title="Look up inventory", read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    ),
    ToolSpec(
        name="get_todays_transactions",
        title="Today's sales",
        description=(
            "Get today's sales for the store: number of receipts, revenue, units sold and the top sellers. Use it "
            "for how the day is going or what sold today; not for stock counts (use get_inventory)."
        ),
        input_schema=_object({}),
        scope=MCP_SCOPE,
        side_effects=False,
        needs_confirmation=False,
        timeout_s=5.0,
        idempotency=Idempotency.NONE,
        annotations=ToolAnnotations(
            title="Today's sales", read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    ),
    ToolSpec(
        name="get_sales",
        title="Sales over time",
        description=(
            "Get the store's sales for any period other than just today, or compare two periods: receipts, revenue, "
            "units, average basket, one product's or category's sales, best or worst sellers, sales per category or "
            "per day. Use it for 'how did we do yesterday', 'what sold best last week', 'how much atta did we sell "
            "this month', 'are we selling more ghee than last month'; for today alone get_todays_transactions is "
            "enough; not for stock counts (use get_inventory). Periods are the store's local days."
        ),
        input_schema=_object(
            {
                "period": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 80,
                    "description": "The period in plain words as the owner said it ('yesterday', 'last week', 'this "
                    "month', 'since Monday', 'in October', 'the last 7 days', 'between the 1st and the 15th of "
                    "November') or ISO dates ('2026-10-01', '2026-10-01..2026-10-31'). Default: today.",
                },
                "compareTo": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 80,
                    "description": "A second period to compare with, in the same words ('last month', 'the week "
                    "before', 'same day last week'). A period still running is compared with the same length of "
                    "the other. Leave out for no comparison.",
                },
                "item": {**_ITEM, "description": _ITEM["description"] + " Only this product's sales."},
                "category": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 60,
                    "description": "Only this category's sales, e.g. 'Spices', 'Lentils'.",
                },
                "groupBy": {
                    "type": "string",
                    "enum": ["product", "category", "day"],
                    "description": "Also rank products (best or worst sellers), list categories, or give every day.",
                },
                "sort": {
                    "type": "string",
                    "enum": ["best", "worst"],
                    "description": "With groupBy: best sellers first (the default) or worst first (products that "
                    "sold nothing included).",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "description": "With groupBy product or category: how many rows (default 5).",
                },
            }
        ),
        scope=MCP_SCOPE,
        side_effects=False,
        needs_confirmation=False,
        timeout_s=5.0,
        idempotency=Idempotency.NONE,
        annotations=ToolAnnotations(
            title="Sales over time", read_only_hint=True, destructive_hint=False, idempotent_hint=True,
            open_world_hint=False
        ),
    ),
    ToolSpec(
        name="get_alerts",
        title="The store's alerts",
        description=(
            "List what the store has flagged for the owner: products down to their reorder point or sold out, a "
            "day far from its usual sales, reorder drafts waiting for approval, reports that failed to send. Use "
            "it for 'anything I should know', 'any alerts', 'what needs doing'; not for stock counts (use "
            "get_inventory). Each alert has an alertId and a message whose numbers are the ledger's when it was "
            "raised; a stock alert also has stockNow and stillHolds (false once it was restocked). Staff "
            "credentials see only stock and unusual-day alerts."
        ),
        input_schema=_object(
            {
                "state": {
                    "type": "string",
                    "enum": ["open", "acknowledged"],
                    "description": "'open' (the default): not yet acknowledged and not snoozed; 'acknowledged': "
                    "the ones already dealt with.",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "description": "How many alerts, newest first (default 20).",
                },
            }
        ),
        scope=MCP_SCOPE,
        side_effects=False,
        needs_confirmation=False,
        timeout_s=5.0,
        idempotency=Idempotency.NONE,
        annotations=ToolAnnotations(
            title="The store's alerts", read_only_hint=True, destructive_hint=False, idempotent_hint=True,
            open_world_hint=False
        ),
    ),
    ToolSpec(
        name="dismiss_alert",
        title="Acknowledge an alert",
        description=(
            "Mark one alert as seen and dealt with, so it leaves the open list, the email digest and the spoken "
            "reminder. Use it only when the owner says they have seen or handled that alert ('got it', 'dismiss "
            "the mustard oil alert'); not to fix the cause (restock with place_reorder). Acknowledging twice is "
            "harmless."
        ),
        input_schema=_object(
            {
                "alertId": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The alertId from get_alerts.",
                },
            },
            required=("alertId",),
        ),
        scope=MCP_SCOPE,
        side_effects=True,
        needs_confirmation=False,
        timeout_s=5.0,
        idempotency=Idempotency.KEY,
        annotations=ToolAnnotations(
            title="Acknowledge an alert", read_only_hint=False, destructive_hint=False, idempotent_hint=True,
            open_world_hint=False
        ),
    ),
    ToolSpec(
        name="reconcile_inventory",
        title="Close the day",
        description=(
            "Close the day: check today's sales against stock and list the items at or below their reorder point "
            "with suggested reorder quantities. Use it when the owner asks to reconcile, close the day or check "
            "the store's health; it does not order anything (use place_reorder)."
        ),
        input_schema=_object({}),
        scope=MCP_SCOPE,
        side_effects=True,
        needs_confirmation=False,
        timeout_s=10.0,
        idempotency=Idempotency.KEY,
        annotations=ToolAnnotations(
            title="Close the day", read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
        ),
    ),
    ToolSpec(
        name="update_inventory",
        title="Set a stock count",
        description=(
            "Set one product's stock count after the owner counted it. Use it only when the owner gives a new "
            "number for a product; not for orders, sales or questions. expectedStock must be the count you last "
            "saw from get_inventory: if the count changed since, nothing is written and you get the current count."
        ),
        input_schema=_object(
            {
                "item": _ITEM,
                "stock": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 100000,
                    "description": "The new count the owner gave, a whole number of units.",
                },
                "expectedStock": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The count you last saw for this product from get_inventory.",
                },
            },
            required=("item", "stock", "expectedStock"),
        ),
        scope=MCP_SCOPE,
        side_effects=True,
        needs_confirmation=False,
        timeout_s=5.0,
        idempotency=Idempotency.KEY,
        annotations=ToolAnnotations(
            title="Set a stock count", read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    ),
    ToolSpec(
        name="place_reorder",
        title="Draft a restock order",
        description=(
            "Draft a restock order from the supplier: all low items when items is left out, or only the named "
            "items and quantities. Use it when the owner asks to order, restock or buy more; not to check stock. "
            "The draft waits for the owner's approval; set confirmed to false, because you cannot approve it."
        ),
        input_schema=_object(
            {
                "items": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 50,
                    "description": "Only these products and quantities. Leave out to order every low item.",
                    "items": _object(
                        {
                            "item": _ITEM,
                            "qty": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": 1000,
                                "description": "How many units to order.",
                            },
                        },
                        required=("item", "qty"),
                    ),
                },
                "confirmed": {
                    "type": "boolean",
                    "description": "false to create a draft for the owner to approve. true only confirms the pending "
                    "draft named by draftId, and only for credentials allowed to confirm orders.",
                },
                "draftId": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "With confirmed true: the id of the pending draft the owner approved.",
                },
            },
            required=("confirmed",),
        ),
        scope=MCP_SCOPE,
        side_effects=True,
        needs_confirmation=True,
        timeout_s=10.0,
        idempotency=Idempotency.KEY,
        annotations=ToolAnnotations(
            title="Draft a restock order",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    ),
    ToolSpec(
        name="send_inventory_report",
        title="Email the inventory report",
        description=(
            "Email the inventory report (stock, low items, shelf locations) to the store owner. Use it when the "
            "owner asks to email or send the inventory report; not to read stock aloud (use get_inventory)."
        ),
        input_schema=_object({"to": _RECIPIENT}),
        scope=MCP_SCOPE,
        side_effects=True,
        needs_confirmation=False,
        timeout_s=20.0,
        idempotency=Idempotency.KEY,
        annotations=ToolAnnotations(
            title="Email the inventory report",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=True,
        ),
    ),
    ToolSpec(
        name="send_sales_report",
        title="Email the sales report",
        description=(
            "Email today's sales report to the store owner. Use it when the owner asks to email or send the sales "
            "report; not to say today's sales aloud (use get_todays_transactions). Some deployments switch it off; "
            "then nothing is sent and the result says so."
        ),
        input_schema=_object({"to": _RECIPIENT}),
        scope=MCP_SCOPE,
        side_effects=True,
        needs_confirmation=False,
        timeout_s=20.0,
        idempotency=Idempotency.KEY,
        annotations=ToolAnnotations(
            title="Email the sales report",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=True,
        ),
    ),
)

REGISTRY: MappingProxyType[str, ToolSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})


def tool_get(name: str) -> ToolSpec | None:
    """The registered tool with that name, or None."""
    return REGISTRY.get(name) if isinstance(name, str) else None


def tool_list() -> list[ToolSpec]:
    """Every registered tool, in registry order."""
    return list(REGISTRY.values())

"""The demo catalog: Little India Grocery's 38 products, shelf photos, a week of history and today's sales.

Everything goes through ``ledger.services``: products open with a journal entry, the week's
history is imported as historical receipts (it does not move stock), and today's 40 receipts are
rung up with ``receipt_create`` so each sale moves stock through the journal. The same seed gives
the same receipts, lines and totals. Receipt times are spread over the store's local day (from
opening, or from midnight when seeded in the small hours) up to ``now``: their spacing comes from
the seed and the date, so the same seed, date and ``now`` give the same times.

Today's sales never touch Toor dal, Mustard oil, Frozen samosas or Paneer, and keep every other
product above its reorder point, so those first three are the only low products: restocking
them all suggests 42, 21 and 18 units ($210.00, $94.50, $97.20 at cost).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils.translation import gettext as _

from ledger.errors import InvalidInput
from ledger.models import Product
from ledger.photos import render_shelf_photo
from ledger.scope import store_scope
from ledger.selectors import local_day_bounds, store_tz
from ledger.services import (
    checks,
    product_create,
    product_photo_set,
    receipt_create,
    receipts_import,
)
from tenants.models import Store

SUPPLIER = "Amazon Business"
TODAY_RECEIPTS = 40
HISTORY_DAYS = 7
# Today's receipts leave these alone; the first three are the day's only low products.
NOT_SOLD_TODAY = frozenset({"Toor dal", "Mustard oil", "Frozen samosas", "Paneer"})
OPEN_HOUR, CLOSE_HOUR = 9, 21


@dataclass(frozen=True)
class DemoProduct:
    name: str
    aliases: tuple[str, ...]
    unit: str
    category: str
    location: str
    stock: int
    par: int
    reorder_at: int
    price: str
    cost: str
    shelf_note: str = ""

    @property
    def sku(self) -> str:
        """The product's stable SKU: LI- and its place in the catalog (LI-001 is Basmati rice)."""
        return f"LI-{CATALOG.index(self) + 1:03d}"

    @property
    def barcode(self) -> str:
        """An EAN-13 in the in-store range (prefix 200), with its check digit."""
        return ean13(f"200000000{CATALOG.index(self) + 1:03d}")


CATALOG: tuple[DemoProduct, ...] = (
    DemoProduct("Basmati rice", ("chawal",), "10 lb bag", "Rice & grains", "Aisle 2, bottom shelf, left", 30, 40, 10, "24.99", "16.00", "white and gold bags"),
    DemoProduct("Sona masoori rice", (), "20 lb bag", "Rice & grains", "Aisle 2, bottom shelf, right", 18, 25, 6, "29.99", "20.00", "large green sacks"),
    DemoProduct("Poha", ("flattened rice",), "2 lb bag", "Rice & grains", "Aisle 2, middle shelf", 14, 20, 4, "4.49", "2.40", "clear bags of flakes"),
    DemoProduct("Toor dal", ("tuvar dal", "arhar dal"), "4 lb bag", "Lentils", "Aisle 3, middle shelf, left", 4, 46, 8, "8.99", "5.00", "yellow split lentils"),
    DemoProduct("Chana dal", (), "4 lb bag", "Lentils", "Aisle 3, middle shelf, center", 22, 30, 6, "7.99", "4.50"),
    DemoProduct("Masoor dal", ("red lentils",), "4 lb bag", "Lentils", "Aisle 3, middle shelf, right", 19, 30, 6, "7.49", "4.20", "orange lentils"),
    DemoProduct("Moong dal", (), "4 lb bag", "Lentils", "Aisle 3, top shelf, left", 15, 25, 5, "8.49", "4.80"),
    DemoProduct("Urad dal", (), "4 lb bag", "Lentils", "Aisle 3, top shelf, right", 12, 20, 5, "8.99", "5.10"),
    DemoProduct("Atta", ("whole wheat flour", "chakki atta"), "20 lb bag", "Flours", "Aisle 2, floor stack by the cooler", 33, 40, 8, "19.99", "13.00", "stacked 20 lb sacks"),
    DemoProduct("Besan", ("gram flour",), "2 lb bag", "Flours", "Aisle 2, top shelf, left", 20, 30, 6, "4.99", "2.80"),
    DemoProduct("Sooji", ("semolina", "rava"), "2 lb bag", "Flours", "Aisle 2, top shelf, right", 16, 24, 5, "3.99", "2.10"),
    DemoProduct("Turmeric powder", ("haldi",), "200 g pack", "Spices", "Aisle 1, spice rack, row 1", 25, 40, 8, "3.49", "1.60", "bright yellow packs"),
    DemoProduct("Cumin seeds", ("jeera",), "200 g pack", "Spices", "Aisle 1, spice rack, row 1", 21, 40, 8, "3.99", "1.90"),
    DemoProduct("Mustard seeds", ("rai",), "200 g pack", "Spices", "Aisle 1, spice rack, row 2", 18, 30, 6, "2.99", "1.30"),
    DemoProduct("Red chili powder", ("lal mirch",), "200 g pack", "Spices", "Aisle 1, spice rack, row 2", 23, 40, 8, "3.49", "1.60", "red packs"),
    DemoProduct("Coriander powder", ("dhania",), "200 g pack", "Spices", "Aisle 1, spice rack, row 3", 20, 30, 6, "2.99", "1.40"),
    DemoProduct("Garam masala", (), "100 g box", "Spices", "Aisle 1, spice rack, row 3", 17, 30, 6, "4.49", "2.20"),
    DemoProduct("Cardamom", ("elaichi",), "100 g pack", "Spices", "Aisle 1, spice rack, row 4", 9, 20, 4, "9.99", "6.00", "small green pods"),
    DemoProduct("Hing", ("asafoetida",), "50 g jar", "Spices", "Aisle 1, spice rack, row 4", 10, 15, 3, "5.49", "2.90", "small round jars"),
    DemoProduct("Kasuri methi", ("dried fenugreek leaves",), "100 g box", "Spices", "Aisle 1, spice rack, row 5", 12, 20, 4, "3.49", "1.50"),
    DemoProduct("Jaggery", ("gur",), "1 kg block", "Sweeteners", "Aisle 1, oil shelf, upper right", 20, 25, 6, "6.00", "4.00", "golden jaggery blocks"),
    DemoProduct("Ghee", (), "32 oz jar", "Oils & ghee", "Aisle 1, oil shelf, top", 26, 30, 6, "17.99", "12.00", "glass jars"),
    DemoProduct("Mustard oil", ("sarson ka tel",), "1 L bottle", "Oils & ghee", "Aisle 1, oil shelf, bottom", 3, 24, 6, "7.99", "4.50", "amber bottles"),
    DemoProduct("Coconut oil", (), "1 L jar", "Oils & ghee", "Aisle 1, oil shelf, middle", 14, 20, 4, "8.99", "5.20"),
    DemoProduct("Assam tea", ("chai patti",), "1 lb box", "Tea", "Aisle 4, tea shelf", 19, 24, 5, "9.99", "5.50"),
    DemoProduct("Chai masala", (), "100 g box", "Tea", "Aisle 4, tea shelf", 11, 20, 4, "4.99", "2.40"),
    DemoProduct("Paneer", ("cottage cheese",), "14 oz pack", "Dairy", "Cooler 1, middle shelf", 7, 24, 6, "6.99", "4.10", "white blocks in clear packs"),
    DemoProduct("Dahi", ("yogurt", "curd"), "2 lb tub", "Dairy", "Cooler 1, top shelf", 16, 24, 6, "4.99", "2.90", "white tubs"),
    DemoProduct("Frozen samosas", (), "12-piece box", "Frozen", "Freezer 1, top shelf", 2, 20, 5, "8.99", "5.40"),
    DemoProduct("Frozen parathas", (), "5-piece pack", "Frozen", "Freezer 1, bottom shelf", 13, 20, 5, "4.99", "2.80"),
    DemoProduct("Mango pickle", ("aam ka achar",), "500 g jar", "Pickles & condiments", "Aisle 4, condiment shelf, left", 15, 20, 4, "5.99", "3.20"),
    DemoProduct("Tamarind", ("imli",), "200 g block", "Pickles & condiments", "Aisle 4, condiment shelf, right", 11, 15, 3, "2.49", "1.10"),
    DemoProduct("Ginger garlic paste", ("adrak lahsun",), "300 g jar", "Pickles & condiments", "Cooler 1, door", 10, 16, 4, "3.99", "2.00"),
    DemoProduct("Papad", ("papadum",), "200 g pack", "Snacks", "Aisle 4, snack shelf, top", 22, 30, 6, "2.99", "1.40"),
    DemoProduct("Namkeen mix", ("bhujia", "mixture"), "400 g pack", "Snacks", "Aisle 4, snack shelf, middle", 24, 30, 6, "3.99", "2.00"),
    DemoProduct("Glucose biscuits", (), "family pack", "Snacks", "Aisle 4, snack shelf, bottom", 28, 40, 8, "3.49", "1.80"),
    DemoProduct("Rose syrup", (), "750 ml bottle", "Beverages", "Aisle 4, drinks shelf", 8, 12, 3, "6.49", "3.60"),
    DemoProduct("Coconut milk", (), "400 ml can", "Canned", "Aisle 4, canned shelf", 18, 24, 6, "2.49", "1.20"),
)



def ean13(first12: str) -> str:
    """The 13-digit EAN for 12 digits: the check digit weights them 1, 3, 1, 3... from the left."""
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return first12 + str((10 - total % 10) % 10)


# How often a category turns up in a basket (staples and snacks most).
_POPULARITY = {
    "Rice & grains": 3,
    "Lentils": 3,
    "Flours": 3,
    "Dairy": 3,
    "Snacks": 3,
    "Spices": 2,
    "Oils & ghee": 2,
    "Tea": 2,
    "Frozen": 2,
    "Sweeteners": 1,
    "Pickles & condiments": 1,
    "Beverages": 1,
    "Canned": 1,
}
_LINES_PER_RECEIPT = (1, 1, 2, 2, 2, 3, 3, 4)
_UNITS_PER_LINE = (1, 1, 1, 1, 2, 2, 3)


def _basket(rng: random.Random, products: list[Product], budget: dict[int, int] | None = None) -> list[tuple[Product, int]]:
    """One receipt's lines: a few distinct products with small quantities, within ``budget`` if given."""
    pool = [p for p in products if budget is None or budget[p.pk] > 0]
    lines: list[tuple[Product, int]] = []
    for _line in range(rng.choice(_LINES_PER_RECEIPT)):
        if not pool:
            break
        product = rng.choices(pool, weights=[_POPULARITY.get(p.category, 1) for p in pool])[0]
        pool.remove(product)
        qty = rng.choice(_UNITS_PER_LINE)
        if budget is not None:
            qty = min(qty, budget[product.pk])
            budget[product.pk] -= qty
        lines.append((product, qty))
    return lines


def _times(rng: random.Random, count: int, start: dt.datetime, end: dt.datetime) -> list[dt.datetime]:
    """``count`` sorted whole-second times in [start, end]."""
    span = max(int((end - start).total_seconds()), 0)
    return sorted(start + dt.timedelta(seconds=int(rng.random() * span)) for _ in range(count))


def _local(day: dt.date, hour: int, tz) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour), tzinfo=tz).astimezone(dt.UTC)


def install_demo_catalog(
    *, store: Store, seed: int = 7, actor: str = "system:seed", now: dt.datetime | None = None
) -> None:
    """Fill an empty store with the demo catalog, shelf photos, a week of history and today's 40 receipts.

    Raises:
        InvalidInput: the store already has products.
    """
    actor = checks.actor_of(actor)
    at = checks.moment(now)
    tz = store_tz(store)
    today, day_start, _day_end = local_day_bounds(store=store, now=at)
    rng = random.Random(seed)
    with store_scope(store), transaction.atomic():
        if Product.objects.filter(store=store).exists():
            raise InvalidInput(_("This store already has products; the demo catalog only goes into an empty store."))
        products = [
            product_create(
                store=store,
                sku=item.sku,
                barcode=item.barcode,
                name=item.name,
                aliases=list(item.aliases),
                unit=item.unit,
                category=item.category,
                location=item.location,
                stock=item.stock,
                par_level=item.par,
                reorder_point=item.reorder_at,
                price=Decimal(item.price),
                unit_cost=Decimal(item.cost),
                supplier=SUPPLIER,
                shelf_note=item.shelf_note,
                actor=actor,
                now=day_start,
            )
            for item in CATALOG
        ]
        for product in products:
            photo = render_shelf_photo(
                name=product.name, unit=product.unit, location=product.location, category=product.category
            )
            product_photo_set(store=store, product=product, content=photo)

        history = []
        for back in range(HISTORY_DAYS, 0, -1):
            day = today - dt.timedelta(days=back)
            clock = random.Random(f"{seed}:{day.isoformat()}")
            count = rng.randint(32, 48)
            baskets = [_basket(rng, products) for _ in range(count)]
            times = _times(clock, count, _local(day, OPEN_HOUR, tz), _local(day, CLOSE_HOUR, tz))
            history += [(time, lines) for time, lines in zip(times, baskets, strict=True) if lines]
        receipts_import(store=store, receipts=history, actor=actor)

        # Today: sell only what keeps each product above its reorder point.
        budget = {
            p.pk: 0 if p.name in NOT_SOLD_TODAY else max(p.stock - p.reorder_point - 1, 0) for p in products
        }
        baskets = [_basket(rng, products, budget) for _ in range(TODAY_RECEIPTS)]
        opening = _local(today, OPEN_HOUR - 1, tz)
        if at - opening < dt.timedelta(minutes=30):
            opening = day_start  # seeded in the small hours: the day so far is all there is
        times = _times(random.Random(f"{seed}:{today.isoformat()}"), TODAY_RECEIPTS, opening, at)
        for time, lines in zip(times, baskets, strict=True):
            receipt_create(store=store, lines=lines, actor=actor, sold_at=time)

"""A large, realistic grocery catalog as CSV rows in the import format (offline tooling for benchmarks).

``rows(n)`` gives ``n`` distinct products: brand × product × pack size ("MDH Chana masala 100 g"),
with SKUs, EAN-13 barcodes in the in-store range, aisles and shelves by category, prices and
levels, all from a fixed seed so every run imports the same file.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

COLUMNS = ("sku", "name", "barcode", "category", "unit", "pack_size", "aisle", "shelf", "position", "shelf_note",
           "price", "unit_cost", "supplier", "par_level", "reorder_point", "aliases", "active")
BRANDS = (
    "Tata", "MDH", "Everest", "Aashirvaad", "Haldiram's", "Patanjali", "Fortune", "Amul", "Britannia", "Parle",
    "Dabur", "Catch", "Shan", "Laxmi", "Deep", "Swad", "Rani", "Sher", "Nirav", "24 Mantra", "Pran", "Ahmed",
    "National", "Kohinoor", "India Gate", "Daawat", "Lal Qilla", "Maggi", "Bikaji", "MTR",
)
PRODUCTS = {
    "Spices": ("Chana masala", "Biryani masala", "Sambar powder", "Pav bhaji masala", "Chaat masala", "Kitchen king",
               "Meat masala", "Rasam powder", "Kashmiri chili", "Amchur powder", "Ajwain", "Fennel seeds",
               "Black pepper", "Cloves", "Cinnamon sticks", "Bay leaves", "Nutmeg", "Star anise", "Fenugreek seeds",
               "Nigella seeds"),
    "Lentils": ("Toor dal split", "Masoor whole", "Moong whole", "Urad whole", "Rajma red", "Rajma chitra",
                "Kabuli chana", "Kala chana", "Lobia", "Moth beans"),
    "Rice & grains": ("Sella basmati", "Brown basmati", "Ponni rice", "Kolam rice", "Jeera rice", "Red rice",
                      "Broken wheat", "Jowar", "Bajra", "Ragi"),
    "Flours": ("Multigrain atta", "Maida", "Rice flour", "Ragi flour", "Jowar flour", "Bajra flour", "Corn flour",
               "Singhara flour", "Kuttu flour", "Idli rava"),
    "Snacks": ("Aloo bhujia", "Moong dal namkeen", "Khatta meetha", "Navratan mix", "Chana jor", "Banana chips",
               "Mathri", "Chakli", "Soan papdi", "Khakhra"),
    "Pickles & condiments": ("Lime pickle", "Garlic pickle", "Mixed pickle", "Green chili pickle", "Gongura pickle",
                             "Tamarind chutney", "Mint chutney", "Coconut chutney powder", "Papad khar", "Kokum"),
    "Tea": ("Masala chai", "Ginger tea", "Green tea", "Cardamom tea", "Kadak tea", "Tulsi tea"),
    "Ready to eat": ("Dal makhani", "Palak paneer", "Rajma masala", "Chole", "Paneer makhani", "Veg biryani",
                     "Upma mix", "Poha mix", "Dosa mix", "Gulab jamun mix", "Rasmalai mix", "Kheer mix"),
}
SIZES = ("100 g", "200 g", "500 g", "1 kg")
AISLES = {"Spices": "1", "Lentils": "3", "Rice & grains": "2", "Flours": "2", "Snacks": "4", "Pickles & condiments": "4",
          "Tea": "4", "Ready to eat": "5"}
SHELVES = ("top shelf", "middle shelf", "bottom shelf")
POSITIONS = ("left", "center", "right")


def ean13(first12: str) -> str:
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return first12 + str((10 - total % 10) % 10)


def names() -> Iterator[tuple[str, str, str]]:
    """(name, category, size) in a fixed order that spreads brands and categories."""
    for size in SIZES:
        for category, products in PRODUCTS.items():
            for product in products:
                for brand in BRANDS:
                    yield f"{brand} {product} {size}", category, size


def rows(n: int, *, seed: int = 12) -> list[list[str]]:
    """``n`` catalog rows (at most ``len(BRANDS) * products * len(SIZES)``)."""
    rng = random.Random(seed)
    out = []
    for index, (name, category, size) in enumerate(names()):
        if index >= n:
            break
        cost = rng.randint(50, 1500) / 100
        par = rng.choice((6, 10, 12, 20, 24, 30))
        out.append([
            f"GEN-{index + 1:05d}", name, ean13(f"21{index + 1:010d}"), category, f"{size} pack", str(rng.choice((6, 12, 24))),
            AISLES[category], rng.choice(SHELVES), rng.choice(POSITIONS), "", f"{cost * 1.6:.2f}", f"{cost:.2f}",
            "Wholesale Foods", str(par), str(par // 4), "", "true",
        ])
    if len(out) < n:
        raise ValueError(f"the generator makes at most {len(out)} distinct products")
    return out


def csv_text(n: int, *, seed: int = 12) -> str:
    from ledger import catalog_csv

    return catalog_csv.write(COLUMNS, rows(n, seed=seed))

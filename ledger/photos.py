"""Shelf photos drawn with Pillow: a shelf unit, the product's labelled box, an arrow at it, and where it is.

The picture is generated from the product's own fields, so every product has one without
downloads, and the box sits where the location says (top, middle or bottom shelf; left,
centre or right; a spice rack row; the floor; a cooler door).
"""

from __future__ import annotations

import hashlib
import io
import re
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 640, 420
HEADER = 56
FOOTER = 34
SHELF_LEFT, SHELF_RIGHT = 40, WIDTH - 40
WALL = (236, 229, 216)
WOOD = (150, 105, 62)
WOOD_EDGE = (112, 76, 43)
INK = (33, 37, 41)
ARROW = (214, 40, 40)
HEADER_FILL = (38, 70, 83)
FRIDGE = (214, 232, 240)
FREEZER = (200, 222, 245)
PALETTE = [
    (230, 159, 0),
    (86, 180, 233),
    (0, 158, 115),
    (240, 228, 66),
    (0, 114, 178),
    (213, 94, 0),
    (204, 121, 167),
    (160, 82, 45),
    (120, 144, 156),
    (255, 183, 77),
]


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def _shelf_rows(location: str) -> tuple[int, int]:
    """(number of shelves, index of the product's shelf from the top) read from the location text."""
    text = location.lower()
    row = re.search(r"\brow\s+(\d+)", text)
    if row:
        rows = max(5, int(row.group(1)))
        return rows, min(int(row.group(1)), rows) - 1
    if "floor" in text:
        return 3, 2
    if "door" in text:
        return 4, 1
    if "top" in text or "upper" in text:
        return 3, 0
    if "bottom" in text or "lower" in text:
        return 3, 2
    if "middle" in text or "center" in text or "centre" in text:
        return 3, 1
    return 3, 1


def _column(location: str) -> float:
    """Where along the shelf the product sits, 0 (left) to 1 (right)."""
    text = location.lower()
    if re.search(r"\bleft\b", text):
        return 0.2
    if re.search(r"\bright\b", text):
        return 0.8
    return 0.5


def _wrap(draw: ImageDraw.ImageDraw, text: str, font, width: int, max_lines: int = 3) -> list[str]:
    words = text.split()
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}".strip()
        if draw.textlength(candidate, font=font) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1].rstrip(".") + "…"
    return lines


def _arrow(draw: ImageDraw.ImageDraw, tip: tuple[int, int], tail: tuple[int, int]) -> None:
    """A thick arrow from tail to tip with a filled head."""
    (x1, y1), (x0, y0) = tip, tail
    length = max(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5, 1.0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head = 22
    base = (x1 - ux * head, y1 - uy * head)
    draw.line([(x0, y0), base], fill=ARROW, width=9)
    left = (base[0] - uy * 15, base[1] + ux * 15)
    right = (base[0] + uy * 15, base[1] - ux * 15)
    draw.polygon([(x1, y1), left, right], fill=ARROW)


def _label(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], *, name: str, unit: str) -> None:
    """A white label inside the box: the name as large as fits (one or two lines), then the unit if room."""
    x0, y0, x1, y1 = box
    inner = (x0 + 7, y0 + 7, x1 - 7, y1 - 7)
    draw.rectangle(inner, fill=(255, 255, 255), outline=INK, width=1)
    width, height = inner[2] - inner[0] - 10, inner[3] - inner[1] - 6
    for size in range(19, 9, -1):
        font, unit_size = _font(size), max(10, size - 4)
        lines = _wrap(draw, name, font, width, max_lines=2 if height >= 2 * (size + 3) else 1)
        if any(draw.textlength(line, font=font) > width for line in lines):
            continue
        text_h = len(lines) * (size + 3)
        if text_h <= height:
            break
    show_unit = text_h + unit_size + 4 <= height
    block = text_h + (unit_size + 4 if show_unit else 0)
    y = (inner[1] + inner[3]) / 2 - block / 2
    centre = (inner[0] + inner[2]) / 2
    for line in lines:
        draw.text((centre, y), line, font=font, fill=INK, anchor="ma")
        y += size + 3
    if show_unit:
        draw.text((centre, y + 2), unit, font=_font(unit_size), fill=(82, 96, 109), anchor="ma")


def render_shelf_photo(*, name: str, unit: str, location: str, category: str) -> bytes:
    """A PNG (640x420) of a shelf with the product's labelled box, an arrow at it, and the location."""
    image = Image.new("RGB", (WIDTH, HEIGHT), WALL)
    draw = ImageDraw.Draw(image)
    seed = _digest(f"{name}|{location}")
    lowered = location.lower()
    if "freezer" in lowered or "cooler" in lowered:
        draw.rectangle([SHELF_LEFT - 12, HEADER + 10, SHELF_RIGHT + 12, HEIGHT - FOOTER - 6],
                       fill=FREEZER if "freezer" in lowered else FRIDGE, outline=(120, 140, 150), width=4)

    rows, target_row = _shelf_rows(location)
    top, bottom = HEADER + 22, HEIGHT - FOOTER - 16
    pitch = (bottom - top) / rows
    box_h = int(min(pitch - 18, 118))
    box_w = 150 if box_h >= 80 else 210
    centre = SHELF_LEFT + _column(location) * (SHELF_RIGHT - SHELF_LEFT)
    target_x = int(min(max(centre - box_w / 2, SHELF_LEFT + 6), SHELF_RIGHT - box_w - 6))
    target_board = int(top + pitch * (target_row + 1))
    target = (target_x, target_board - 8 - box_h, target_x + box_w, target_board - 8)
    for index in range(rows):
        board_y = int(top + pitch * (index + 1))
        draw.rectangle([SHELF_LEFT, board_y - 8, SHELF_RIGHT, board_y], fill=WOOD, outline=WOOD_EDGE)
        # Neighbouring goods: plain boxes in muted colours, so the labelled one stands out.
        x = SHELF_LEFT + 8
        step = 0
        while x < SHELF_RIGHT - 40:
            byte = seed[(index * 7 + step) % len(seed)]
            width = 34 + byte % 30
            height = int(box_h * (0.45 + (byte % 40) / 100))
            if index == target_row and x + width > target[0] - 10 and x < target[2] + 10:
                x = target[2] + 12
                step += 1
                continue
            if x + width > SHELF_RIGHT - 6:
                break
            colour = tuple(int(c * 0.55 + 200 * 0.45) for c in PALETTE[byte % len(PALETTE)])
            draw.rectangle([x, board_y - 8 - height, x + width, board_y - 8], fill=colour, outline=(120, 110, 100))
            x += width + 6
            step += 1

    x0, y0, x1, y1 = target
    colour = PALETTE[seed[0] % len(PALETTE)]
    draw.rectangle(target, fill=colour, outline=INK, width=3)
    _label(draw, target, name=name, unit=unit)

    # The arrow comes in from whichever side has room, aimed at the box's upper edge or side.
    if y0 - HEADER > 70:
        _arrow(draw, ((x0 + x1) // 2, y0 - 4), ((x0 + x1) // 2 + (60 if x1 < WIDTH - 120 else -60), HEADER + 14))
    elif x0 - SHELF_LEFT > 110:
        _arrow(draw, (x0 - 4, (y0 + y1) // 2), (x0 - 100, (y0 + y1) // 2 - 40))
    else:
        _arrow(draw, (x1 + 4, (y0 + y1) // 2), (x1 + 100, (y0 + y1) // 2 - 40))

    draw.rectangle([0, 0, WIDTH, HEADER], fill=HEADER_FILL)
    header_font = _font(22)
    header = _wrap(draw, location, header_font, WIDTH - 32, max_lines=1)[0]
    draw.text((16, HEADER // 2), header, font=header_font, fill=(255, 255, 255), anchor="lm")
    draw.rectangle([0, HEIGHT - FOOTER, WIDTH, HEIGHT], fill=(250, 247, 242))
    footer_font = _font(15)
    draw.text((16, HEIGHT - FOOTER // 2), f"{name} · {unit}", font=footer_font, fill=INK, anchor="lm")
    draw.text((WIDTH - 16, HEIGHT - FOOTER // 2), category, font=footer_font, fill=(82, 96, 109), anchor="rm")

    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=6)
    return buffer.getvalue()

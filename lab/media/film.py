"""The demo film: generated frames (Pillow) and an espeak-ng voice-over, encoded with PyAV.

Five scenes: a title card, the store's shelf, a spoken question on a phone with the answer and
the shelf photo, a reorder draft that waits for the owner's yes, and a closing card. Each scene
lasts as long as its narration (at least its minimum), so the picture and the voice stay in step.
The reorder figures come from the demo catalog (``ledger.demo``), so the film shows what the demo
store really drafts. Only the build uses this module.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import av
from PIL import Image, ImageDraw, ImageFont

from lab.media import speech

WIDTH, HEIGHT, FPS = 960, 540, 24
NARRATION_WPM = 165
LEAD_S, TAIL_S = 0.3, 0.6  # quiet before and after each scene's narration

PAPER = (250, 247, 240)
TEAL = (38, 70, 83)
SAFFRON = (230, 159, 0)
INK = (33, 37, 41)
MUTED = (96, 108, 118)
GREEN = (0, 140, 95)
WOOD = (150, 105, 62)
WOOD_EDGE = (112, 76, 43)
WALL = (236, 229, 216)
BUBBLE_OWNER = (220, 235, 250)
BUBBLE_SHELFWISE = (255, 255, 255)
BOX_COLOURS = [(230, 159, 0), (86, 180, 233), (0, 158, 115), (213, 94, 0), (0, 114, 178), (204, 121, 167), (160, 82, 45)]


@dataclass(frozen=True)
class ReorderLine:
    name: str
    qty: int
    unit: str
    cost: Decimal


@dataclass(frozen=True)
class FilmFacts:
    """What the film shows about the demo store, read from the demo catalog."""

    shelf: tuple[str, ...]
    gur_name: str
    gur_location: str
    gur_note: str
    gur_photo: bytes
    reorder: tuple[ReorderLine, ...]

    @property
    def reorder_total(self) -> Decimal:
        return sum((line.cost for line in self.reorder), Decimal(0))


def demo_facts() -> FilmFacts:
    """Read the demo catalog (needs Django set up: ``ledger.demo`` imports the models)."""
    from ledger.demo import CATALOG, NOT_SOLD_TODAY
    from ledger.photos import render_shelf_photo

    by_name = {p.name: p for p in CATALOG}
    gur = next(p for p in CATALOG if "gur" in p.aliases)
    # The demo's only low products are the ones today's sales leave alone at or under their reorder point.
    low = [p for p in CATALOG if p.name in NOT_SOLD_TODAY and p.stock <= p.reorder_at]
    reorder = tuple(
        ReorderLine(p.name, p.par - p.stock, p.unit, Decimal(p.cost) * (p.par - p.stock)) for p in low
    )
    shelf = tuple(n for n in ("Atta", "Basmati rice", "Toor dal", "Chana dal", "Ghee", "Jaggery",
                              "Turmeric powder", "Mustard oil", "Assam tea", "Papad") if n in by_name)
    photo = render_shelf_photo(name=gur.name, unit=gur.unit, location=gur.location, category=gur.category)
    return FilmFacts(shelf, gur.name, gur.location, gur.shelf_note, photo, reorder)


# --- drawing helpers ---------------------------------------------------------------------------

@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled font: the same glyphs on every machine, no system fonts needed.
    return ImageFont.load_default(size=size)


def ease(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return x * x * (3 - 2 * x)


def phase(t: float, start: float, length: float) -> float:
    """0 before ``start``, 1 after ``start + length``, eased in between."""
    return ease((t - start) / length) if length > 0 else float(t >= start)


def wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=font(size)) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def fade(colour: tuple[int, int, int], amount: float, background: tuple[int, int, int] = PAPER) -> tuple[int, int, int]:
    return tuple(round(b + (c - b) * amount) for c, b in zip(colour, background, strict=True))  # type: ignore[return-value]


def bubble(draw: ImageDraw.ImageDraw, *, x: int, y: int, width: int, text: str, fill: tuple[int, int, int], align: str,
           size: int = 17, shown: float = 1.0) -> int:
    """A chat bubble; ``shown`` reveals the text letter by letter. Returns the bubble's bottom."""
    lines = wrap(draw, text, size, width - 28)
    height = 18 + len(lines) * (size + 6)
    box_w = int(max(draw.textlength(line, font=font(size)) for line in lines)) + 28
    left = x if align == "left" else x - box_w  # x is the bubble's left or right edge
    draw.rounded_rectangle([left, y, left + box_w, y + height], radius=14, fill=fill, outline=(200, 205, 210))
    budget = round(len(text) * shown)
    for i, line in enumerate(lines):
        visible = line[: max(0, budget)]
        budget -= len(line) + 1
        draw.text((left + 14, y + 10 + i * (size + 6)), visible, font=font(size), fill=INK)
    return y + height


def phone(image: Image.Image, *, x: int, y: int, w: int = 300, h: int = 500) -> tuple[int, int, int, int]:
    """Draw a phone and return its screen's box."""
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([x, y, x + w, y + h], radius=36, fill=(30, 34, 38))
    screen = (x + 12, y + 44, x + w - 12, y + h - 44)
    draw.rounded_rectangle(screen, radius=10, fill=(243, 245, 247))
    draw.rounded_rectangle([x + w // 2 - 30, y + 18, x + w // 2 + 30, y + 26], radius=4, fill=(70, 74, 78))
    draw.rectangle([screen[0], screen[1], screen[2], screen[1] + 40], fill=TEAL)
    draw.text((screen[0] + 14, screen[1] + 20), "Shelfwise", font=font(18), fill=(255, 255, 255), anchor="lm")
    return screen


def mic(draw: ImageDraw.ImageDraw, *, cx: int, cy: int, pulse: float) -> None:
    """The talk button; ``pulse`` (0..1) draws a ring that grows while the owner speaks."""
    if pulse > 0:
        r = 26 + 14 * pulse
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=fade(SAFFRON, 1 - pulse, (243, 245, 247)), width=4)
    draw.ellipse([cx - 24, cy - 24, cx + 24, cy + 24], fill=SAFFRON)
    draw.rounded_rectangle([cx - 6, cy - 13, cx + 6, cy + 5], radius=6, fill=(255, 255, 255))
    draw.arc([cx - 11, cy - 6, cx + 11, cy + 11], 0, 180, fill=(255, 255, 255), width=3)
    draw.line([cx, cy + 11, cx, cy + 16], fill=(255, 255, 255), width=3)


def shelf_unit(image: Image.Image, names: tuple[str, ...], *, box: tuple[int, int, int, int], reveal: float) -> None:
    """A wooden shelf with labelled product boxes that drop into place as ``reveal`` goes 0 → 1."""
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = box
    draw.rectangle(box, fill=WALL)
    rows = 2
    row_h = (bottom - top) // rows
    per_row = math.ceil(len(names) / rows)
    slot = (right - left - 20) // per_row
    for row in range(rows):
        plank = top + (row + 1) * row_h - 12
        draw.rectangle([left, plank, right, plank + 12], fill=WOOD, outline=WOOD_EDGE)
        for col in range(per_row):
            index = row * per_row + col
            if index >= len(names):
                break
            drop = phase(reveal, index / (len(names) + 2), 3 / (len(names) + 2))
            bx = left + 14 + col * slot
            # Boxes of a few sizes, like real packs: sacks, jars, small spice packs.
            bw, bh = slot - 12 - (index * 23) % 40, row_h - 40 - (index * 37) % 60
            bx += (slot - 12 - bw) // 2
            by = plank - bh - round((1 - drop) * 60)
            if drop <= 0:
                continue
            colour = fade(BOX_COLOURS[index % len(BOX_COLOURS)], drop, WALL)
            draw.rounded_rectangle([bx, by, bx + bw, by + bh], radius=6, fill=colour, outline=fade(WOOD_EDGE, drop, WALL))
            lines = wrap(draw, names[index], 16, bw - 16)[:2]
            label_h = 12 + 20 * len(lines)
            label_top = by + (bh - label_h) // 2
            draw.rectangle([bx + 6, label_top, bx + bw - 6, label_top + label_h], fill=fade((255, 255, 255), drop, colour))
            for i, line in enumerate(lines):
                draw.text((bx + bw // 2, label_top + 16 + i * 20), line, font=font(16), fill=fade(INK, drop, colour), anchor="mm")


def caption(draw: ImageDraw.ImageDraw, text: str, amount: float) -> None:
    draw.text((WIDTH // 2, HEIGHT - 34), text, font=font(24), fill=fade(TEAL, amount), anchor="mm")


# --- scenes ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scene:
    name: str
    say: str
    min_s: float
    draw: Callable[[FilmFacts, float, float], Image.Image]  # (facts, seconds into the scene, scene length)


def _title(facts: FilmFacts, t: float, length: float) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), TEAL)
    draw = ImageDraw.Draw(image)
    a = phase(t, 0.1, 0.9)
    draw.text((WIDTH // 2, 200), "Shelfwise", font=font(84), fill=fade((255, 255, 255), a, TEAL), anchor="mm")
    b = phase(t, 0.8, 0.8)
    draw.text((WIDTH // 2, 280), "Talk to your store's books.", font=font(30), fill=fade(SAFFRON, b, TEAL), anchor="mm")
    c = phase(t, 1.5, 0.8)
    draw.text((WIDTH // 2, 340), "A voice assistant for small grocery stores", font=font(20),
              fill=fade((200, 215, 220), c, TEAL), anchor="mm")
    draw.rectangle([WIDTH // 2 - round(160 * b), 244, WIDTH // 2 + round(160 * b), 247], fill=SAFFRON)
    return image


def _shelf(facts: FilmFacts, t: float, length: float) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((48, 40), "Your shelves, in one ledger", font=font(32), fill=TEAL)
    shelf_unit(image, facts.shelf, box=(48, 100, WIDTH - 48, 440), reveal=t / (length * 0.7))
    caption(draw, "Products · stock · sales · reorders", phase(t, length * 0.45, 0.8))
    return image


def _ask(facts: FilmFacts, t: float, length: float) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    screen = phone(image, x=70, y=20)
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = screen
    question = "where did we put the gur?"
    speaking = 0.15 < t < 0.15 + length * 0.3
    mic(draw, cx=(left + right) // 2, cy=bottom - 40, pulse=(t * 1.6) % 1 if speaking else 0)
    y = top + 60
    typed = phase(t, 0.15, length * 0.3)
    if typed > 0:
        y = bubble(draw, x=right - 10, y=y, width=right - left - 40, text=question, fill=BUBBLE_OWNER,
                   align="right", shown=typed) + 10
    understood = phase(t, length * 0.38, 0.5)
    if understood > 0:
        chip = f"gur = {facts.gur_name}"
        draw.rounded_rectangle([left + 10, y, left + 24 + draw.textlength(chip, font=font(14)), y + 24],
                               radius=12, fill=fade(SAFFRON, understood, (243, 245, 247)))
        draw.text((left + 17, y + 12), chip, font=font(14), fill=fade(INK, understood, (243, 245, 247)), anchor="lm")
        y += 34
    answered = phase(t, length * 0.45, length * 0.2)
    if answered > 0:
        note = f", {facts.gur_note}" if facts.gur_note else ""
        bubble(draw, x=left + 10, y=y, width=right - left - 30, text=f"{facts.gur_name} is in {facts.gur_location}{note}.",
               fill=BUBBLE_SHELFWISE, align="left", shown=answered)
    photo_in = phase(t, length * 0.55, 0.8)
    if photo_in > 0:
        photo = Image.open(io.BytesIO(facts.gur_photo)).convert("RGB").resize((512, 336), Image.Resampling.LANCZOS)
        px = 410 + round((1 - photo_in) * 560)
        draw.rectangle([px - 6, 94, px + 518, 436], fill=(255, 255, 255), outline=(200, 205, 210))
        image.paste(photo, (px, 100))
        draw.text((px, 452), "The shelf photo opens with the answer", font=font(18), fill=MUTED)
    return image


def _reorder(facts: FilmFacts, t: float, length: float) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    screen = phone(image, x=70, y=20)
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = screen
    y = top + 60
    ask = phase(t, 0.1, length * 0.15)
    if ask > 0:
        y = bubble(draw, x=right - 10, y=y, width=right - left - 40, text="restock all the low stuff",
                   fill=BUBBLE_OWNER, align="right", shown=ask) + 10
    yes = phase(t, length * 0.62, length * 0.1)
    if yes > 0:
        bubble(draw, x=right - 10, y=y, width=right - left - 40, text="yes, place the order",
               fill=BUBBLE_OWNER, align="right", shown=yes)
    mic(draw, cx=(left + right) // 2, cy=bottom - 40, pulse=(t * 1.6) % 1 if (ask < 1 or 0 < yes < 1) else 0)

    card = phase(t, length * 0.2, 0.7)
    if card > 0:
        cx, cy, cw = 420, 60 + round((1 - card) * 40), 480
        rows = len(facts.reorder)
        ch = 150 + rows * 40
        draw.rounded_rectangle([cx, cy, cx + cw, cy + ch], radius=14, fill=fade((255, 255, 255), card),
                               outline=fade((190, 196, 202), card))
        draw.text((cx + 24, cy + 22), "Reorder draft", font=font(26), fill=fade(TEAL, card))
        for i, line in enumerate(facts.reorder):
            ly = cy + 70 + i * 40
            draw.text((cx + 24, ly), line.name, font=font(20), fill=fade(INK, card))
            draw.text((cx + 250, ly), f"{line.qty} x {line.unit}", font=font(16), fill=fade(MUTED, card))
            draw.text((cx + cw - 24, ly), f"${line.cost:.2f}", font=font(20), fill=fade(INK, card), anchor="ra")
        ty = cy + 80 + rows * 40
        draw.line([cx + 24, ty - 8, cx + cw - 24, ty - 8], fill=fade((210, 214, 218), card), width=2)
        draw.text((cx + 24, ty), "Total at cost", font=font(20), fill=fade(INK, card))
        draw.text((cx + cw - 24, ty), f"${facts.reorder_total:.2f}", font=font(22), fill=fade(INK, card), anchor="ra")
        approved = phase(t, length * 0.72, 0.4)
        status_y = cy + ch + 18
        if approved <= 0:
            draw.rounded_rectangle([cx, status_y, cx + cw, status_y + 46], radius=10, fill=fade((255, 240, 205), card))
            draw.text((cx + cw // 2, status_y + 23), "Draft: nothing is ordered until you say yes",
                      font=font(19), fill=fade((140, 90, 0), card), anchor="mm")
        else:
            draw.rounded_rectangle([cx, status_y, cx + cw, status_y + 46], radius=10, fill=fade(GREEN, approved, (255, 240, 205)))
            draw.text((cx + cw // 2, status_y + 23), "Approved: order placed", font=font(21),
                      fill=fade((255, 255, 255), approved, (255, 240, 205)), anchor="mm")
    return image


def _closing(facts: FilmFacts, t: float, length: float) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), TEAL)
    draw = ImageDraw.Draw(image)
    lines = [
        ("Every number comes from your own books.", 30, (255, 255, 255), 0.1),
        ("Ask for a tip: inventory, business, nutrition.", 24, (200, 215, 220), 1.2),
    ]
    for i, (text, size, colour, start) in enumerate(lines):
        draw.text((WIDTH // 2, 190 + i * 60), text, font=font(size), fill=fade(colour, phase(t, start, 0.8), TEAL), anchor="mm")
    end = phase(t, length * 0.55, 0.8)
    draw.text((WIDTH // 2, 370), "Shelfwise", font=font(64), fill=fade(SAFFRON, end, TEAL), anchor="mm")
    return image


def scenes() -> tuple[Scene, ...]:
    return (
        Scene("title", "This is Shelfwise, a voice assistant for small grocery stores.", 3.0, _title),
        Scene("shelf", "It keeps your products, stock, sales and reorders in one place, and you can simply talk to it.",
              4.0, _shelf),
        Scene("ask", "Ask: where did we put the gur? It knows that gur is jaggery, answers from your own books, "
                     "and shows the shelf.", 6.0, _ask),
        Scene("reorder", "Say: restock the low stuff, and it drafts an order from your par levels. "
                         "Nothing is ordered until you say yes.", 7.0, _reorder),
        Scene("closing", "Every number it speaks comes from your books. You can also ask for a quick tip. "
                         "Shelfwise.", 4.0, _closing),
    )


# --- encoding ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class FilmResult:
    width: int
    height: int
    fps: int
    frames: int
    duration_s: float
    scenes: tuple[tuple[str, int], ...]  # (scene, frames)


def _timeline(facts: FilmFacts) -> tuple[list[tuple[Scene, int]], speech.Speech]:
    """Each scene with its frame count, and the narration padded to the same timeline."""
    parts: list[speech.Speech] = []
    plan: list[tuple[Scene, int]] = []
    for scene in scenes():
        voice = speech.speak(scene.say, wpm=NARRATION_WPM)
        frames = math.ceil(max(scene.min_s, LEAD_S + voice.duration_s + TAIL_S) * FPS)
        plan.append((scene, frames))
        parts.append(speech.concat([speech.silence(LEAD_S, rate=voice.rate), voice]).padded(frames / FPS))
    return plan, speech.concat(parts)


def _frames(facts: FilmFacts, plan: list[tuple[Scene, int]]) -> Iterator[Image.Image]:
    for scene, count in plan:
        length = count / FPS
        for i in range(count):
            yield scene.draw(facts, i / FPS, length)


def render_poster(facts: FilmFacts) -> Image.Image:
    """The poster: the question scene once the answer and the shelf photo are in."""
    return _ask(facts, 6.0, 6.0)


def write_film(facts: FilmFacts, path: Path) -> FilmResult:
    """Encode the film (H.264 + AAC in MP4, fast start) to ``path``; bit-exact for the same inputs."""
    plan, narration = _timeline(facts)
    path.parent.mkdir(parents=True, exist_ok=True)
    total = sum(count for _scene, count in plan)
    options = {"movflags": "+faststart", "fflags": "+bitexact"}
    with av.open(str(path), "w", format="mp4", options=options) as container:
        video = container.add_stream("libx264", rate=FPS)
        video.width, video.height, video.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        # Two threads, fixed: x264's output is repeatable only for the same thread count.
        video.codec_context.options = {"preset": "faster", "crf": "26", "tune": "animation",
                                       "profile": "main", "threads": "2", "g": str(FPS * 4)}
        video.codec_context.flags |= av.codec.context.Flags.bitexact
        audio = container.add_stream("aac", rate=48_000, layout="mono")
        audio.bit_rate = 48_000
        audio.codec_context.flags |= av.codec.context.Flags.bitexact
        sound = speech.audio_frames(audio, narration)
        pending = next(sound, None)
        for index, image in enumerate(_frames(facts, plan)):
            frame = av.VideoFrame.from_image(image).reformat(format="yuv420p")
            frame.pts = index
            frame.time_base = Fraction(1, FPS)
            container.mux(video.encode(frame))
            # Keep the sound interleaved with the picture, so the file plays while it downloads.
            while pending is not None and pending.pts / pending.sample_rate <= (index + 1) / FPS:
                container.mux(audio.encode(pending))
                pending = next(sound, None)
        container.mux(video.encode(None))
        while pending is not None:
            container.mux(audio.encode(pending))
            pending = next(sound, None)
        container.mux(audio.encode(None))
    return FilmResult(WIDTH, HEIGHT, FPS, total, round(total / FPS, 2),
                      tuple((scene.name, count) for scene, count in plan))

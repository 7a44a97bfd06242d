"""The media the assistant can show or play: shelf photos, the demo film and the audio guides.

The guides are data (``guides.json``: text, topic, keywords); the build
(``python -m lab.media.build``) speaks them to the committed files under
``assistant/static/assistant/media/``, which Django's staticfiles serves. Nothing here needs
espeak-ng or PyAV.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from django.core.exceptions import ImproperlyConfigured
from django.templatetags.static import static

if TYPE_CHECKING:
    from ledger.models import Product

HERE = Path(__file__).resolve().parent
GUIDES_FILE = HERE / "guides.json"
FILM_FILE = HERE / "film.json"
STATIC_PREFIX = "assistant/media"  # the files' path under the static URL
STATIC_DIR = HERE.parent / "static" / STATIC_PREFIX

MediaKind = Literal["photo", "video", "audio"]


class GuideTopic(StrEnum):
    INVENTORY = "inventory"
    BUSINESS = "business"
    NUTRITION = "nutrition"


GUIDE_TOPICS: tuple[str, ...] = tuple(topic.value for topic in GuideTopic)

@dataclass(frozen=True)
class MediaItem:
    """Something the client shows or plays after the reply, as the turn API's ``media`` lists it."""

    kind: MediaKind
    url: str
    title: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "url": self.url, "title": self.title}


@dataclass(frozen=True)
class Guide:
    """A short spoken guide: ``file`` is its path under the media static folder."""

    slug: str
    topic: str  # a GuideTopic for the library's; a pack's guides name their own topics
    title: str
    text: str
    keywords: tuple[str, ...]
    file: str
    duration_s: float
    stored: bool = False  # a pack's guide: ``file`` is in the media storage, not the static folder

    @property
    def path(self) -> Path:
        return STATIC_DIR / self.file


@dataclass(frozen=True)
class Film:
    """The demo film as the build wrote it (``film.json``)."""

    title: str
    file: str
    poster: str
    width: int
    height: int
    fps: int
    frames: int
    duration_s: float

    @property
    def path(self) -> Path:
        return STATIC_DIR / self.file


@lru_cache(maxsize=1)
def _all_guides() -> tuple[Guide, ...]:
    try:
        rows = json.loads(GUIDES_FILE.read_text(encoding="utf-8"))
        loaded = tuple(
            Guide(
                slug=row["slug"],
                topic=GuideTopic(row["topic"]),
                title=row["title"],
                text=row["text"],
                keywords=tuple(row["keywords"]),
                file=row["file"],
                duration_s=float(row["duration_s"]),
            )
            for row in rows
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ImproperlyConfigured(f"The audio guides in {GUIDES_FILE} cannot be read: {exc}") from exc
    slugs = [guide.slug for guide in loaded]
    if len(set(slugs)) != len(slugs):
        raise ImproperlyConfigured(f"The audio guides in {GUIDES_FILE} repeat a slug.")
    return loaded


@lru_cache(maxsize=1)
def film() -> Film:
    """The demo film's description.

    Raises:
        ImproperlyConfigured: ``film.json`` is missing or broken (run the build).
    """
    try:
        return Film(**json.loads(FILM_FILE.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError) as exc:
        raise ImproperlyConfigured(
            f"The demo film's description {FILM_FILE} cannot be read ({exc}); run python -m lab.media.build"
        ) from exc


def guides(topic: str | None = None) -> list[Guide]:
    """All guides, or those of one topic, in the library's order."""
    return [guide for guide in _all_guides() if topic is None or guide.topic == topic]


_WORD = re.compile(r"[a-z0-9]+")


def _stems(text: str) -> list[str]:
    """Lower-case words with a plural 's' dropped, so 'lentils' meets 'lentil' and 'snacks' meets 'snack'."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in _WORD.findall(text.lower())]


def _score(guide: Guide, words: list[str]) -> int:
    """How well ``words`` match the guide: each keyword phrase found counts its length in words."""
    padded = f" {' '.join(words)} "
    score = 0
    for keyword in guide.keywords:
        phrase = _stems(keyword)
        if phrase and f" {' '.join(phrase)} " in padded:
            score += len(phrase)
    return score


def guide_pick(*, topic: str | None, words: str, exclude: Collection[str] = (),
               among: Sequence[Guide] | None = None) -> Guide:
    """The guide that best matches the owner's ``words`` within ``topic``, skipping slugs in ``exclude``.

    ``among`` is a pack's own guides (``assistant.media.pack_guides``); the library's by default.
    A topic they do not have counts as no topic. Ties go to their order, so the same words always
    pick the same guide. When every guide of the topic is excluded (the owner has heard them all),
    the choice starts over among all of them.
    """
    everything = list(among) if among else guides()
    pool = [guide for guide in everything if guide.topic == topic] or everything
    fresh = [guide for guide in pool if guide.slug not in exclude] or pool
    stems = _stems(words)
    return max(fresh, key=lambda guide: _score(guide, stems))  # max keeps the first of equals


def guide_media(guide: Guide) -> MediaItem:
    return MediaItem(kind="audio", url=static(f"{STATIC_PREFIX}/{guide.file}"), title=guide.title)


def demo_media() -> MediaItem:
    """The demo film.

    Raises:
        ImproperlyConfigured: the film's description is missing (run the build).
    """
    demo = film()
    return MediaItem(kind="video", url=static(f"{STATIC_PREFIX}/{demo.file}"), title=demo.title)


def demo_poster_url() -> str:
    return static(f"{STATIC_PREFIX}/{film().poster}")


def photo_media(product: Product) -> MediaItem | None:
    """The product's shelf photo, or None when it has none."""
    if not product.photo:
        return None
    title = f"{product.name}: {product.location}" if product.location else product.name
    return MediaItem(kind="photo", url=product.photo.url, title=title)

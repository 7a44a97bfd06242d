"""A business-type pack's own audio guides (its ``guides.json``), spoken when the version is published.

A pack that brings a guides file brings its guides: the router's ``play_guide`` picks among them
(its topics are the pack's own: a hardware store's "keys" or "adhesives"), never among grocery's.
Each guide's text is spoken with espeak-ng into an Ogg/Opus file when its version is published
(``guides_speak``), kept in the media storage under ``packs/guides/<digest>/<slug>.ogg``: a
version never changes, so neither do its files. A pack without a guides file (grocery) plays the
media library's guides (``assistant.media.library``).
"""

from __future__ import annotations

import json
import logging
import re
from functools import lru_cache

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from assistant.media.library import Guide, MediaItem
from packs.source import UnknownPack, digest_of, pack_files

logger = logging.getLogger(__name__)

FOLDER = "packs/guides"
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,79}")


@lru_cache(maxsize=64)
def pack_guides(key: str) -> tuple[Guide, ...]:
    """The guides of the pack version ``key`` names, in its file's order; empty when it has none."""
    try:
        files = pack_files(key)
    except UnknownPack:
        return ()
    text = files.text("guides")
    if not text:
        return ()
    try:
        rows = json.loads(text)
    except ValueError:
        logger.warning("Pack %s: its guides file is not JSON; it plays no guides of its own", key)
        return ()
    digest = (files.digest or digest_of(files.files))[:16]
    loaded = []
    for row in rows if isinstance(rows, list) else ():
        if not isinstance(row, dict) or not _SLUG.fullmatch(str(row.get("slug", ""))) or not row.get("text"):
            continue  # validation refuses such a pack; a stored one is read as far as it goes
        loaded.append(Guide(slug=row["slug"], topic=str(row.get("topic") or ""), title=str(row.get("title") or row["slug"]),
                            text=str(row["text"]), keywords=tuple(str(word) for word in row.get("keywords") or ()),
                            file=f"{FOLDER}/{digest}/{row['slug']}.ogg", duration_s=0.0, stored=True))
    return tuple(loaded)


def guide_spoken(guide: Guide) -> bool:
    return default_storage.exists(guide.file)


def guide_speak(guide: Guide) -> bool:
    """Speak ``guide`` into its file unless it is there; False when espeak-ng cannot (said in the log)."""
    if guide_spoken(guide):
        return True
    from speech.espeak import espeak_samples
    from speech.voice import ogg_opus

    try:
        audio = ogg_opus(espeak_samples(guide.text, speed=160), 16_000)
    except (OSError, RuntimeError, ValueError) as exc:
        logger.warning("Audio guide %s could not be spoken (%s); it is read out as text", guide.file, exc)
        return False
    default_storage.save(guide.file, ContentFile(audio))
    return True


def guides_speak(key: str) -> tuple[int, int]:
    """Speak every guide of the version ``key`` names that has no file yet: (spoken, of how many)."""
    guides = pack_guides(key)
    return sum(1 for guide in guides if guide_speak(guide)), len(guides)


def pack_guide_media(guide: Guide) -> MediaItem | None:
    """The guide's audio, spoken now if publishing could not; None when it cannot be (no espeak-ng)."""
    if not guide_speak(guide):
        return None
    return MediaItem(kind="audio", url=default_storage.url(guide.file), title=guide.title)

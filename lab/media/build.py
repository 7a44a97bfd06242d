"""Build the media library: ``python -m lab.media.build [--guides] [--film]``.

Speaks every guide in ``guides.json`` with espeak-ng, encodes it to Ogg/Opus and records its
duration back in ``guides.json``; renders the demo film (MP4, H.264 + AAC) with its voice-over,
its poster, and ``film.json``. The output is bit-exact for the same data, espeak-ng, Pillow and
PyAV, so rebuilding changes only what changed. The files are committed: serving them needs
neither espeak-ng nor this script (Debian: ``apt-get install -y espeak-ng`` to rebuild).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict

from assistant.media.library import FILM_FILE, GUIDES_FILE, STATIC_DIR
from lab.media import speech

FILM_TITLE = "Shelfwise: a short tour"
FILM_NAME = "demo.mp4"
POSTER_NAME = "demo-poster.png"


def build_guides() -> list[tuple[str, int]]:
    rows = json.loads(GUIDES_FILE.read_text(encoding="utf-8"))
    built = []
    for row in rows:
        voice = speech.speak(row["text"])
        path = STATIC_DIR / row["file"]
        speech.write_ogg_opus(voice, path, title=row["title"])
        row["duration_s"] = round(voice.duration_s, 1)
        built.append((row["file"], path.stat().st_size))
    expected = {row["file"] for row in rows}
    for stale in (STATIC_DIR / "guides").glob("*.ogg"):
        if f"guides/{stale.name}" not in expected:
            stale.unlink()
    GUIDES_FILE.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return built


def build_film() -> list[tuple[str, int]]:
    # The film's figures come from the demo catalog, whose module imports the ledger's models.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import django

    django.setup()
    from lab.media import film

    facts = film.demo_facts()
    result = film.write_film(facts, STATIC_DIR / FILM_NAME)
    poster = film.render_poster(facts)
    poster.save(STATIC_DIR / POSTER_NAME, format="PNG", optimize=True)
    description = {"title": FILM_TITLE, "file": FILM_NAME, "poster": POSTER_NAME,
                   **{k: v for k, v in asdict(result).items() if k != "scenes"}}
    FILM_FILE.write_text(json.dumps(description, indent=2) + "\n", encoding="utf-8")
    return [(name, (STATIC_DIR / name).stat().st_size) for name in (FILM_NAME, POSTER_NAME)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.media.build", description=__doc__.splitlines()[0])
    parser.add_argument("--guides", action="store_true", help="build only the audio guides")
    parser.add_argument("--film", action="store_true", help="build only the demo film and its poster")
    args = parser.parse_args(argv)
    both = not (args.guides or args.film)
    built: list[tuple[str, int]] = []
    try:
        if both or args.guides:
            built += build_guides()
        if both or args.film:
            built += build_film()
    except speech.SpeechError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for name, size in built:
        print(f"{size / 1024:8.1f} KiB  {name}")
    total = sum(size for _name, size in built)
    print(f"{total / 1024:8.1f} KiB  in all, under {STATIC_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

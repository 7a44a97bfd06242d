"""The media library: committed guide files and film decode, picking a guide, and safe guide text."""

from __future__ import annotations

import re

import av
import pytest

from assistant.media import library
from assistant.media.library import GUIDE_TOPICS, MediaItem, guide_pick, guides
from ledger.photos import render_shelf_photo
from ledger.services import product_photo_set
from tests.factories import ProductFactory

ALL = guides()


def _decoded_audio_seconds(path) -> float:
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        return samples / stream.codec_context.sample_rate


def test_the_library_has_at_least_twelve_guides_across_the_three_topics():
    assert len(ALL) >= 12
    assert {guide.topic for guide in ALL} == set(GUIDE_TOPICS)
    for topic in GUIDE_TOPICS:
        assert len(guides(topic)) >= 4, topic


@pytest.mark.parametrize("guide", ALL, ids=[guide.slug for guide in ALL])
def test_each_guide_is_short_plain_text_with_keywords_and_its_file(guide):
    words = len(guide.text.split())
    assert 60 <= words <= 110, words
    assert guide.keywords
    assert guide.file == f"guides/{guide.slug}.ogg"


@pytest.mark.parametrize("guide", ALL, ids=[guide.slug for guide in ALL])
def test_each_guide_file_decodes_and_lasts_about_its_recorded_duration(guide):
    assert guide.path.is_file(), f"{guide.path} is missing: run python -m lab.media.build"
    with av.open(str(guide.path)) as container:
        assert container.format.name == "ogg"
        assert container.streams.audio[0].codec_context.name in {"opus", "vorbis"}
    seconds = _decoded_audio_seconds(guide.path)
    assert guide.duration_s * 0.8 <= seconds <= guide.duration_s * 1.2


def test_guide_files_are_small():
    total = sum(guide.path.stat().st_size for guide in ALL)
    assert total < 3 * 1024 * 1024


def test_the_demo_film_decodes_with_the_recorded_size_frames_and_a_voice_over():
    film = library.film()
    assert film.path.stat().st_size < 3 * 1024 * 1024
    assert 20 <= film.duration_s <= 40
    with av.open(str(film.path)) as container:
        video = container.streams.video[0]
        assert video.codec_context.name == "h264"
        assert (video.width, video.height) == (film.width, film.height)
        assert video.average_rate == film.fps
        frames = sum(1 for _frame in container.decode(video))
    assert frames == film.frames
    assert abs(frames / film.fps - film.duration_s) < 0.05
    with av.open(str(film.path)) as container:
        audio = container.streams.audio[0]
        seconds = sum(frame.samples for frame in container.decode(audio)) / audio.codec_context.sample_rate
    assert abs(seconds - film.duration_s) < 0.2
    assert (library.STATIC_DIR / film.poster).is_file()


def test_demo_media_is_the_film_served_from_static():
    media = library.demo_media()
    assert media == MediaItem(kind="video", url="/static/assistant/media/demo.mp4", title=library.film().title)
    assert media.as_dict() == {"kind": "video", "url": "/static/assistant/media/demo.mp4", "title": media.title}


def test_guide_media_is_audio_served_from_static():
    guide = guides("inventory")[0]
    assert library.guide_media(guide).as_dict() == {
        "kind": "audio",
        "url": f"/static/assistant/media/guides/{guide.slug}.ogg",
        "title": guide.title,
    }


@pytest.mark.parametrize(
    ("topic", "words", "slug"),
    [
        ("inventory", "give me a quick tip on managing inventory", "cycle-counting"),
        ("inventory", "teach me about reorder points", "par-levels"),
        ("inventory", "uh play a tip on cutting waste in the cooler", "fifo-dairy-frozen"),
        ("inventory", "tell me about first in first out for the shelves", "fifo-dairy-frozen"),
        ("inventory", "how do i check a delivery from the supplier", "receiving-deliveries"),
        ("business", "play a guide on pricing", "pricing"),
        ("business", "how do i get more customers, play me a tip", "regular-customers"),
        ("business", "what should i stock for diwali", "festival-season"),
        ("nutrition", "which foods we sell are good sources of protein", "protein-in-dals"),
        ("nutrition", "which of our foods have the most fiber", "fibre-in-atta"),
        ("nutrition", "play something about protein in lentils", "protein-in-dals"),
        ("nutrition", "um what foods we sell are good for iron", "protein-in-dals"),
        ("nutrition", "play the guide on healthy snacks", "snacks-and-sweeteners"),
        ("nutrition", "is haldi good for you", "spices-in-cooking"),
        (None, "a tip about dal", "protein-in-dals"),
        (None, "anything on shrinkage", "shrinkage"),
    ],
)
def test_guide_pick_follows_the_owners_words_within_the_topic(topic, words, slug):
    assert guide_pick(topic=topic, words=words).slug == slug


def test_guide_pick_stays_within_the_topic_even_when_words_match_another():
    # "dairy" is an inventory keyword (FIFO) and a nutrition one (dahi); the topic decides.
    assert guide_pick(topic="nutrition", words="a tip about dairy").topic == "nutrition"
    assert guide_pick(topic="inventory", words="a tip about dairy").slug == "fifo-dairy-frozen"


def test_guide_pick_without_matching_words_plays_the_topics_first_guide():
    for topic in GUIDE_TOPICS:
        assert guide_pick(topic=topic, words="play something") == guides(topic)[0]


def test_another_one_plays_a_different_guide_until_all_are_heard_then_starts_over():
    played: list[str] = []
    for _turn in guides("business"):
        played.append(guide_pick(topic="business", words="play another one", exclude=played).slug)
    assert sorted(played) == sorted(guide.slug for guide in guides("business"))
    assert guide_pick(topic="business", words="play another one", exclude=played).slug == played[0]


def test_another_one_skips_the_best_match_already_played():
    first = guide_pick(topic="nutrition", words="protein")
    second = guide_pick(topic="nutrition", words="protein", exclude={first.slug})
    assert second.slug != first.slug and second.topic == "nutrition"


def test_guide_pick_is_deterministic_and_treats_an_unknown_topic_as_none():
    picks = {guide_pick(topic="inventory", words="stock").slug for _ in range(5)}
    assert len(picks) == 1
    assert guide_pick(topic="gardening", words="fiber in atta").slug == "fibre-in-atta"


CURE_CLAIM = re.compile(
    r"\b(cures?|cured|curing|treats?|treated|treating|treatment|heals?|healing|remed(y|ies)|detox\w*"
    r"|prevents? (\w+ )?(disease|illness|cancer|diabetes)|fights? (\w+ )?(disease|cancer|infection)"
    r"|boosts? (your )?immun\w*|miracle|superfood)\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("guide", ALL, ids=[guide.slug for guide in ALL])
def test_no_guide_makes_a_cure_or_treatment_claim(guide):
    assert not CURE_CLAIM.search(guide.text), CURE_CLAIM.search(guide.text)


def test_nutrition_guides_say_they_are_information_not_medical_advice():
    for guide in guides("nutrition"):
        assert "not medical advice" in guide.text or "not as a medicine" in guide.text, guide.slug


@pytest.mark.django_db
def test_photo_media_is_the_products_shelf_photo_or_none(store):
    from tenants.context import use_store

    with use_store(store):  # on PostgreSQL, row-level security admits ledger rows only in their store's context
        product = ProductFactory(store=store, name="Jaggery", location="Aisle 1, oil shelf, upper right")
    assert library.photo_media(product) is None

    photo = render_shelf_photo(name=product.name, unit=product.unit, location=product.location, category="Sweeteners")
    product = product_photo_set(store=store, product=product, content=photo, filename="jaggery.png")
    media = library.photo_media(product)
    assert media is not None
    assert media.kind == "photo"
    assert media.url == product.photo.url
    assert media.url.startswith("/media/shelves/")
    assert media.title == "Jaggery: Aisle 1, oil shelf, upper right"


def test_staticfiles_finds_every_media_file_the_library_names():
    from django.contrib.staticfiles import finders

    names = [f"{library.STATIC_PREFIX}/{guide.file}" for guide in ALL]
    names += [f"{library.STATIC_PREFIX}/{library.film().file}", f"{library.STATIC_PREFIX}/{library.film().poster}"]
    for name in names:
        assert finders.find(name), name

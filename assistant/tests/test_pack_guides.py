"""A pack's own audio guides: spoken with espeak-ng when its version is published, played for its stores."""

from __future__ import annotations

import pytest

from assistant.media.library import guide_pick, guides
from assistant.media.pack_guides import guide_spoken, pack_guides
from packs.services import pack_install
from packs.source import BUNDLED, read_folder, store_pack_key
from packs.validate import pack_validate
from speech.espeak import ESPEAK
from tests.factories import StoreFactory

needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng speaks the guides (make system-deps)")


def test_a_pack_with_a_guides_file_brings_its_own_guides_and_topics():
    hardware = pack_guides("hardware")

    assert [guide.slug for guide in hardware][:2] == ["cutting-a-key", "mixing-two-part-epoxy"]
    assert all(guide.stored and guide.file.startswith("packs/guides/") for guide in hardware)
    assert guide_pick(topic=None, words="play the key cutting guide", among=hardware).slug == "cutting-a-key"
    assert guide_pick(topic="adhesives", words="a tip please", among=hardware).slug == "mixing-two-part-epoxy"
    assert pack_guides("grocery") == ()  # grocery plays the media library's guides
    assert guide_pick(topic="inventory", words="a tip", among=()).slug in {guide.slug for guide in guides("inventory")}


@pytest.fixture
def hardware_store(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    version = pack_install(pack=pack_validate(read_folder(BUNDLED / "hardware")), publish=True, actor="tests")
    return StoreFactory(business_type=version.business_type, pack_version=version)


@needs_espeak
def test_publishing_a_version_speaks_each_guide_into_the_media_storage(hardware_store, tmp_path):
    spoken = pack_guides(store_pack_key(hardware_store))

    assert len(spoken) == 5 and all(guide_spoken(guide) for guide in spoken)
    audio = (tmp_path / spoken[0].file).read_bytes()
    assert audio[:4] == b"OggS" and len(audio) > 20_000  # ~40 s of speech at 32 kb/s Opus


@needs_espeak
def test_a_hardware_store_hears_its_own_guide_not_grocerys(hardware_store, router):
    from assistant.pipeline import run_turn
    from assistant.types import TurnInput
    from tenants.context import use_store

    router.add({"action": "play_guide"})  # the scripted router model, used if the fast path declines
    with use_store(hardware_store):
        result = run_turn(store=hardware_store, turn=TurnInput(text="play the guide on cutting a key"))

    assert result.action == "play_guide"
    (media,) = result.media
    assert media["title"] == "Cutting a key" and media["url"].startswith("/media/packs/guides/")
    assert all(guide.title not in result.reply for guide in guides())


def test_without_a_voice_the_guide_is_read_out_as_the_reply(hardware_store, router, monkeypatch):
    from assistant.media import pack_guides as module
    from assistant.pipeline import run_turn
    from assistant.types import TurnInput
    from tenants.context import use_store

    monkeypatch.setattr(module, "guide_speak", lambda guide: False)
    router.add({"action": "play_guide"})
    with use_store(hardware_store):
        result = run_turn(store=hardware_store, turn=TurnInput(text="play the guide on cutting a key"))

    assert result.action == "play_guide" and result.media == ()
    assert result.reply.startswith("Cutting a key. Ask for the original")

"""What an adapted decoder costs on speech that is not shop talk: word error rate on plain sentences.

    python -m lab.speech.plain_english [--decoder shop] [--voices espeak-us,piper-joe]

Speaks ``SENTENCES`` (written for this check: none is in ``lab.speech.tune_data``'s templates or the
spoken set) in the spoken set's voices, clean, and transcribes each with the bundled model's own
decoder and with ``--decoder`` (``SHELFWISE_STT_DECODER``'s values), no store prompt, no hearing:
Whisper alone. Prints each model's word error rate (words lower-cased, punctuation and digits as
words removed of their marks) and the sentences the two heard differently.
"""

from __future__ import annotations

import argparse
import os
import re

SENTENCES = (
    "the weather report says it will snow in the mountains tonight",
    "my brother is moving to a new apartment next month",
    "please remember to water the plants on the balcony",
    "we watched a documentary about whales yesterday evening",
    "the library closes at eight on weekdays",
    "do we have time to stop for petrol on the way",
    "have we got a minute before the meeting starts",
    "how many weeks are there in a year",
    "what did the doctor say about your knee",
    "the children built a snowman in the garden",
    "can you turn on the heating in the back room",
    "I think the printer is out of paper again",
    "our team lost the match by two goals",
    "the train to the city leaves every twenty minutes",
    "she plays the violin in the school orchestra",
    "we need to fix the leaking tap in the bathroom",
    "the museum has a new exhibition about ancient egypt",
    "my grandmother turns ninety next spring",
    "is the post office open on saturday morning",
    "the cat keeps sleeping on the warm laptop",
    "do you know a good place for breakfast near here",
    "the phone rang twice but nobody answered",
    "let's take the scenic route along the river",
    "he forgot his umbrella at the restaurant",
    "how long does it take to boil an egg",
    "there is a concert in the park this weekend",
    "the students handed in their essays late",
    "we saw fifteen deer near the road last night",
    "could you lend me your blue pen for a moment",
    "the bakery on the corner sells fresh bread every morning",
)


def _wer(reference: str, heard: str) -> tuple[int, int]:
    from rapidfuzz.distance import Levenshtein

    def words(text: str) -> list[str]:
        return re.sub(r"[^a-z0-9' ]", " ", text.lower()).split()

    ref = words(reference)
    return Levenshtein.distance(ref, words(heard)), len(ref)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decoder", default="shop")
    parser.add_argument("--voices", default="espeak-us,espeak-gb-f,piper-joe")
    args = parser.parse_args()

    import django

    django.setup()
    from lab.speech.spoken_set import recipe
    from lab.speech.voices import mix, speak
    from speech import model as stt_model
    from speech.transcribe import transcribe

    voices = recipe()["voices"]
    clips = [(name, text, mix(speak(text, voices[name]), snr_db=None, key=text))
             for name in args.voices.split(",") for text in SENTENCES]
    heard = {}
    for decoder in ("none", args.decoder):
        os.environ["SHELFWISE_STT_DECODER"] = decoder
        stt_model._loaded.clear()
        heard[decoder] = [transcribe(samples).text for _, _, samples in clips]
    for decoder, texts in heard.items():
        errors = [_wer(text, got) for (_, text, _), got in zip(clips, texts, strict=True)]
        total = sum(e for e, _ in errors) / sum(n for _, n in errors)
        per_voice = {}
        for (name, _, _), (e, n) in zip(clips, errors, strict=True):
            done = per_voice.setdefault(name, [0, 0])
            done[0] += e
            done[1] += n
        print(f"decoder {decoder}: word error rate {total:.1%} over {len(clips)} clips | "
              + ", ".join(f"{v} {e / n:.1%}" for v, (e, n) in per_voice.items()))
    for (name, text, _), before, after in zip(clips, heard["none"], heard[args.decoder], strict=True):
        if before != after:
            print(f"{name:11} {text!r}\n            own: {before!r}\n        adapted: {after!r}")


if __name__ == "__main__":
    main()

"""Choose the ear's margins on the spoken set's development part (a benchmark, not a test).

    .venv/bin/python -m lab.speech.ear_sweep [--split dev] [--limit N]

Every dev clip is decoded once (Whisper's hypotheses, as ``transcribe`` does) and the ear's scores
are kept; each setting of ``speech.by_ear``'s margins is then replayed on the same hypotheses and
scores and run through the real pipeline (router mode, cached by text), and the right / asked /
wrong counts are printed per setting, best first. Only the dev split should be swept: a margin
chosen on eval is tuned on eval.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections import Counter
from pathlib import Path


class _Remembering:
    """An ear that asks the real one once per wording and remembers the answer."""

    def __init__(self, samples) -> None:
        from speech.ear import Ear

        self.ear, self.scores, self.asked = Ear(samples), {}, set()

    def __call__(self, texts):
        self.asked.update(texts)
        missing = [t for t in texts if t not in self.scores]
        if missing:
            self.scores.update(zip(missing, self.ear(missing), strict=True))
        return [self.scores[t] for t in texts]


def _grid():
    """Margin settings to replay: take, then the asking bands above it, then the switch margin."""
    for take in (1.5, 3.0, 4.5, 6.0, 7.5, 9.0, 10.5, 12.0):
        for ask in (take + 2, take + 5):
            for ask_unknown in (ask, ask + 4, ask + 8):
                for spelling in (0.45, 0.55):
                    yield {"TAKE": take, "ASK": ask, "ASK_UNKNOWN": ask_unknown, "ASK_SPELLING": spelling, "SWITCH": 5.0}


NUMBER_GRID = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "eval"], default="dev")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--cache", default="var/spoken/runs/ear_cache.pkl",
                        help="decoded hypotheses and ear scores, kept between runs (delete after changing the model)")
    parser.add_argument("--no-ear", action="store_true", help="with --show: the hearing without the ear (the baseline)")
    parser.add_argument("--no-prompt", action="store_true", help="decode without the store's product words as prompt")
    parser.add_argument("--by-ear", nargs="*", default=[], metavar="NAME=VALUE",
                        help="set other speech.by_ear constants first (MAX_WORDINGS=24, PRODUCTS_PER_SPAN=4)")
    parser.add_argument("--hearing", nargs="*", default=[], metavar="NAME=VALUE",
                        help="set speech.hearing constants first (PRODUCT_BONUS=0.3, NUMBER_GAP=0.2)")
    parser.add_argument("--show", default="", metavar="TAKE,ASK,ASK_UNKNOWN,ASK_SPELLING,SWITCH,NUMBER_SURE",
                        help="replay one setting and print every clip that is not right")
    return parser.parse_args()


def main() -> None:
    args = _arguments()

    from lab.speech import bench

    bench._configure([])
    from assistant.catalogs import catalog_for
    from assistant.lexicon import lexicon_for
    from assistant.tasks import prompt_words
    from lab.speech.spoken_set import judge, recipe, spoken_phrases
    from lab.speech.voices import read_wav
    from packs.source import store_pack_key
    from speech import by_ear
    from speech.config import speech_settings
    from speech.hearing import Hearing
    from speech.transcribe import decode, initial_prompt, trim_silence
    from tenants.context import use_store

    store = bench._store()
    with use_store(store):
        lexicon = lexicon_for(store_pack_key(store))
        catalog = catalog_for(store=store, lexicon=lexicon)
        prompt = None if args.no_prompt else initial_prompt(prompt_words(store))
    names = {entry.name for entry in catalog.entries}
    hearing = Hearing(catalog=catalog, lexicon=lexicon)
    settings = speech_settings()
    phrases = spoken_phrases(split=args.split)[: args.limit or None]
    clips = _decoded(args, phrases, prompt, settings, bench, recipe, read_wav, decode, trim_silence)
    turns = bench._Turns(store)

    from speech import hearing as hearing_module

    for module, items in ((by_ear, args.by_ear), (hearing_module, args.hearing)):
        for item in items:
            name, value = item.split("=", 1)
            setattr(module, name, type(getattr(module, name))(float(value)))

    def replay(show: bool = False, listen: bool = True) -> tuple[int, int, int, int]:
        tally = Counter()
        for phrase, found, ear, where in clips:
            ear.asked.clear()  # what this replay asks, for the cost printed below
            with use_store(store):
                choice = hearing.choose(found, ear=ear if listen else None) if found else None
            if choice is None:
                tally["wrong"] += 1
                continue
            verdict = str(judge(phrase, turns.answer(choice.text, choice.doubt), catalog=names))
            tally[verdict] += 1
            if show and verdict != "right":
                print(f"{verdict:6} {where:18} {phrase.say!r} -> {found[0].text!r} -> {choice.text!r}"
                      f" {choice.doubt['question'] if choice.doubt else ''}")
            if verdict == "asked" and str(judge(phrase, turns.answer(choice.doubt["text"]), catalog=names)) == "right":
                tally["after_yes"] += 1
        if show:
            asked = sorted(len(ear.asked) for _phrase, _found, ear, _where in clips)
            print(f"wordings the ear scored per clip: mean {sum(asked) / len(asked):.1f},"
                  f" median {asked[len(asked) // 2]}, p90 {asked[len(asked) * 9 // 10]}, max {asked[-1]}")
        return tally["right"], tally["asked"], tally["wrong"], tally["after_yes"]

    if args.show:
        values = [float(v) for v in args.show.split(",")]
        for key, value in zip(("TAKE", "ASK", "ASK_UNKNOWN", "ASK_SPELLING", "SWITCH", "NUMBER_SURE"), values, strict=True):
            setattr(by_ear, key, value)
        print(replay(show=True, listen=not args.no_ear))
        _save(args.cache, clips)
        return
    _sweep(replay, by_ear, n=len(clips))
    _save(args.cache, clips)


def _worth(result) -> float:
    """Right answers, less wrong ones, less half of each question whose yes would not be right."""
    right, asked, wrong, after_yes = result[:4]
    return right - wrong - 0.5 * (asked - after_yes)


def _sweep(replay, by_ear, *, n: int) -> None:
    """Every setting of the grid replayed, the best printed; then the number margin on the best."""
    results = []
    for setting in _grid():
        for key, value in setting.items():
            setattr(by_ear, key, value)
        began = time.perf_counter()
        results.append((*replay(), setting))
        print(f"{results[-1][:4]} {setting} {time.perf_counter() - began:.0f} s", flush=True)
    results.sort(key=lambda r: (_worth(r), r[0]), reverse=True)
    for right, asked, wrong, after_yes, setting in results[:15]:
        print(f"right {right}/{n} asked {asked} wrong {wrong} right+yes {right + after_yes}  {setting}")
    for key, value in results[0][4].items():
        setattr(by_ear, key, value)
    for sure in NUMBER_GRID:
        by_ear.NUMBER_SURE = sure
        right, asked, wrong, after_yes = replay()
        print(f"NUMBER_SURE {sure}: right {right}/{n} asked {asked} wrong {wrong} right+yes {right + after_yes}")


def _decoded(args, phrases, prompt, settings, bench, recipe, read_wav, decode, trim_silence):
    """``(phrase, hypotheses, ear, where)`` for every clip, from the cache where it has them."""
    cache = Path(args.cache)
    kept = pickle.loads(cache.read_bytes()) if cache.is_file() else {}
    clips = []
    ns = argparse.Namespace(voices="", noise="")
    for phrase, voice, noise, path in bench._clips(ns, phrases, recipe()):
        where = f"{voice}/{noise}"
        speech = trim_silence(read_wav(path))
        ear = _Remembering(speech)
        if (phrase.id, where) in kept:
            found, ear.scores = kept[(phrase.id, where)]
        else:
            found, _ = decode(speech, prompt=prompt, beam_size=settings.beam_size,
                              hypotheses=settings.hypotheses, window_s=settings.window_s)
        clips.append((phrase, found, ear, where))
        print(f"decoded {len(clips)}", end="\r", flush=True)
    return clips


def _save(path: str, clips) -> None:
    """Write the clips' hypotheses and scores into the cache, keeping the clips this run did not load
    (a ``--limit`` run must not shrink it)."""
    cache = Path(path)
    cache.parent.mkdir(parents=True, exist_ok=True)
    kept = pickle.loads(cache.read_bytes()) if cache.is_file() else {}
    kept.update({(p.id, where): (found, ear.scores) for p, found, ear, where in clips})
    cache.write_bytes(pickle.dumps(kept))


if __name__ == "__main__":
    main()

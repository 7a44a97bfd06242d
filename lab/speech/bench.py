"""Benchmark hearing on the spoken set (a benchmark, not a test): prints figures, asserts nothing.

    flock /tmp/shelfwise-heavy.lock .venv/bin/python -m lab.speech.bench --split dev [--no-turns]
        [--voices espeak-us,piper-joe] [--noise clean,snr20,snr10] [--set SHELFWISE_STT_BEAM=1 ...]
        [--no-hearing] [--out var/spoken/runs/NAME.jsonl] [--typed-only]

For every phrase of the split in every voice and noise level (``python -m lab.speech.voices``
writes the audio): the real-time factor of transcription (its seconds over the clip's), and, with
turns, whether the transcript resolves to the right action, product and number through the real
pipeline (router mode, the configured router model, a throwaway demo store), next to the same
words typed. A transcript the hearing doubts counts as "asked" (the pipeline asks instead of
acting); "asked, then right" is what the owner's yes would have run. ``--set`` overrides speech
settings for this run (model, compute type, beam, window, threads...). Turns are cached by their
text within a run: the same words give the same turn.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _configure(overrides: list[str]) -> None:
    for item in overrides:
        key, _, value = item.partition("=")
        os.environ[key] = value
    if not os.environ.get("DATABASE_URL"):
        os.environ["SHELFWISE_DATA_DIR"] = tempfile.mkdtemp(prefix="shelfwise-bench-spoken-")
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("EMAIL_URL", "memory://")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import warnings

    warnings.simplefilter("ignore")
    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)


def _store():
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from ledger.demo import install_demo_catalog
    from tenants.context import use_store
    from tenants.services import store_create

    call_command("migrate", verbosity=0)
    slug = f"bench-spoken-{os.getpid()}"
    owner, _ = get_user_model().objects.get_or_create(username=slug, defaults={"email": f"{slug}@example.com"})
    store = store_create(name="Bench Grocery", slug=slug, timezone="America/Chicago", currency="USD", owner=owner)
    # Reports go only to a verified owner: unverified, every "email me the report" phrase (typed
    # or spoken) was answered "Confirm the owner's email address first" and scored wrong.
    EmailAddress.objects.update_or_create(user=owner, email=owner.email, defaults={"verified": True, "primary": True})
    with use_store(store):
        install_demo_catalog(store=store)
    return store


class _Turns:
    """Each distinct text run once through the pipeline on the bench store."""

    def __init__(self, store) -> None:
        self.store, self.cache, self.ms = store, {}, []

    def answer(self, text: str, doubt: dict | None = None) -> dict:
        from assistant.pipeline import run_turn
        from assistant.types import TurnInput

        key = (" ".join(text.lower().split()), json.dumps(doubt, sort_keys=True))
        if key not in self.cache:
            began = time.perf_counter()
            transcript = {"source": "speech", "doubt": doubt} if doubt else None
            result = run_turn(store=self.store, turn=TurnInput(text=text, channel="system", actor="bench",
                                                               transcript=transcript))
            self.ms.append((time.perf_counter() - began) * 1000)
            self.cache[key] = result.as_dict()
        return self.cache[key]


def _clips(args, phrases, recipe):
    from lab.speech.voices import clip_path, noise_name

    voices = args.voices.split(",") if args.voices else list(recipe["voices"])
    levels = [lv for lv in recipe["noise"]["levels_db"] if not args.noise or noise_name(lv) in args.noise.split(",")]
    # Phrase by phrase, every condition of each: a run cut short still covers every voice and noise.
    for phrase in phrases:
        for voice in voices:
            for level in levels:
                yield phrase, voice, noise_name(level), clip_path(phrase, voice, level)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=["dev", "eval", "all"], default="dev")
    parser.add_argument("--voices", default="")
    parser.add_argument("--noise", default="", help="clean,snr20,snr10 (default: all)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--no-turns", action="store_true")
    parser.add_argument("--no-hearing", action="store_true", help="Whisper's best hypothesis, not re-ranked")
    parser.add_argument("--typed-only", action="store_true", help="only the typed baseline (no audio)")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--out", default="")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    _configure(args.set)

    from assistant.catalogs import catalog_for
    from assistant.lexicon import lexicon_for
    from assistant.tasks import prompt_words
    from lab.speech.spoken_set import Verdict, judge, recipe, spoken_phrases
    from lab.speech.voices import read_wav
    from packs.source import store_pack_key
    from speech.config import speech_settings
    from speech.errors import SpeechError
    from speech.hearing import Hearing
    from speech.model import get_model, model_path
    from speech.transcribe import transcribe
    from tenants.context import use_store

    store = _store()
    with use_store(store):
        lexicon = lexicon_for(store_pack_key(store))
        catalog = catalog_for(store=store, lexicon=lexicon)
        words = prompt_words(store)
    names = {entry.name for entry in catalog.entries}
    hearing = None if args.no_hearing else Hearing(catalog=catalog, lexicon=lexicon)
    phrases = spoken_phrases(split=None if args.split == "all" else args.split)
    if args.limit:
        phrases = phrases[: args.limit]
    if args.typed_only:
        _typed_only(_Turns(store), phrases, names, args, judge)
        return
    settings = speech_settings()
    load_began = time.perf_counter()
    get_model()
    load_s = time.perf_counter() - load_began
    print(f"model {model_path()} | compute {settings.compute_type} | beam {settings.beam_size} | "
          f"hypotheses {settings.hypotheses} | window {settings.window_s:g} s | vad trim {settings.vad_trim} | "
          f"{settings.threads} threads | hearing {'off' if hearing is None else 'on'} | load {load_s:.1f} s")
    print(f"{len(phrases)} {args.split} phrases | load average {os.getloadavg()[0]:.2f} | {time.strftime('%Y-%m-%d %H:%M')}")
    with use_store(store):
        transcribe(read_wav(next(_clips(args, phrases, recipe()))[3]), prompt_words=words, hearing=hearing)  # warm
    turns = _Turns(store)
    rows = []
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("")
    for phrase, voice, noise, path in _clips(args, phrases, recipe()):
        samples = read_wav(path)
        with use_store(store):
            try:
                heard = transcribe(samples, prompt_words=words, hearing=hearing)
            except SpeechError:
                heard = None
        row = {"id": phrase.id, "voice": voice, "noise": noise, "say": phrase.say,
               "audio_s": round(len(samples) / 16000, 3), "text": heard.text if heard else "",
               "heard": heard.heard if heard else "", "stt_ms": round(heard.ms, 1) if heard else None,
               "doubt": heard.doubt if heard else None, "corrections": heard.corrections if heard else []}
        if not args.no_turns and heard is not None:
            answer = turns.answer(heard.text, heard.doubt)  # the pipeline asks back, or acts
            row["verdict"] = str(judge(phrase, answer, catalog=names))
            row["action"] = answer.get("action")
            if row["verdict"] == Verdict.ASKED:
                row["after_yes"] = str(judge(phrase, turns.answer(heard.doubt["text"]), catalog=names))
        elif not args.no_turns:
            row["verdict"] = str(Verdict.WRONG)
        rows.append(row)
        if args.out:  # as it goes: a run cut short keeps what it measured
            with open(args.out, "a") as out:
                out.write(json.dumps(row) + "\n")
        flag = {"right": "OK  ", "asked": "ASK ", "wrong": "MISS"}.get(row.get("verdict", ""), "    ")
        print(f"{flag} {voice:11} {noise:6} {row['stt_ms'] or 0:6.0f} ms  {phrase.say!r} -> {row['text']!r}"
              + (f" [doubt: {row['doubt']['question']}]" if row["doubt"] else ""), flush=True)
    _report(rows, phrases, turns, names, args, judge)


def _typed_only(turns, phrases, names, args, judge) -> None:
    print(f"{len(phrases)} {args.split} phrases typed | load average {os.getloadavg()[0]:.2f}")
    for phrase in phrases:
        verdict = judge(phrase, turns.answer(phrase.say), catalog=names)
        print(f"{'OK  ' if verdict == 'right' else 'MISS'} {phrase.say!r}", flush=True)
    _report([], phrases, turns, names, args, judge)


def _report(rows, phrases, turns, names, args, judge) -> None:
    timed = [r for r in rows if r["stt_ms"] is not None]
    rtfs = [r["stt_ms"] / 1000 / r["audio_s"] for r in timed]
    if rtfs:
        total = sum(r["stt_ms"] for r in timed) / 1000 / sum(r["audio_s"] for r in timed)
        print(f"\nreal-time factor: median {statistics.median(rtfs):.3f}, overall {total:.3f}, "
              f"p90 {sorted(rtfs)[int(0.9 * (len(rtfs) - 1))]:.3f} over {len(rtfs)} clips; "
              f"median transcription {statistics.median(r['stt_ms'] for r in timed):.0f} ms; "
              f"load average {os.getloadavg()[0]:.2f}")
    if args.no_turns:
        return
    table: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        for key in ((row["voice"], row["noise"]), ("all", row["noise"]), (row["voice"], "all"), ("all", "all")):
            table[key][row["verdict"]] += 1
            table[key]["n"] += 1
            if row.get("after_yes") == "right":
                table[key]["after_yes"] += 1
    print(f"\n{'voice':12} {'noise':6} {'right':>11} {'asked':>6} {'wrong':>6} {'right+yes':>10}")
    for (voice, noise), c in sorted(table.items()):
        n = c["n"]
        print(f"{voice:12} {noise:6} {c['right']:4}/{n:<3} {c['right'] / n:4.0%} {c['asked']:6} {c['wrong']:6} "
              f"{(c['right'] + c['after_yes']) / n:9.0%}")
    typed = sum(judge(p, turns.answer(p.say), catalog=names) == "right" for p in phrases)
    print(f"\ntyped: {typed}/{len(phrases)} right; distinct turns run {len(turns.ms)}, "
          f"median {statistics.median(turns.ms) if turns.ms else 0:.0f} ms")


if __name__ == "__main__":
    main()

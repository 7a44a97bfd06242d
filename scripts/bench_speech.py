"""Benchmark speech (a benchmark, not a test): prints figures, asserts nothing.

1. Real-time factor of transcription on this machine: the bundled Whisper (or SHELFWISE_STT_MODEL)
   on espeak-ng speech of the voice phrase set (``lab.speech.evaluation``), transcription
   seconds / audio seconds, per phrase and overall.
2. How many of those spoken phrases resolve to the right product and action through the real
   pipeline (the transcript, with its store prompt, into ``run_turn`` on the voice channel, with
   the configured router model), and, as a control, how many do when the same words are typed.

With nothing set it builds a throwaway SQLite database in a temporary folder (see bench_mcp.py).

    .venv/bin/python scripts/bench_speech.py [--no-turns] [--no-typed] [--beam 5] [--speed 150]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _configure() -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["SHELFWISE_DATA_DIR"] = tempfile.mkdtemp(prefix="shelfwise-bench-speech-")
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("EMAIL_URL", "memory://")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import warnings

    warnings.simplefilter("ignore")
    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)


def _turns(store, label: str, phrases, texts: list[str], heard, *, spoken: bool) -> None:
    """Each phrase through the pipeline (router mode): right product and action, and the median turn."""
    from assistant.pipeline import run_turn
    from assistant.types import TurnInput
    from lab.speech.evaluation import judge

    right, latencies = 0, []
    print(f"\n{label}: product + action through the pipeline (router mode)")
    for phrase, text, transcript in zip(phrases, texts, heard, strict=True):
        result = run_turn(store=store, turn=TurnInput(
            text=text, channel="voice" if spoken else "system", actor="bench",
            transcript=transcript.as_event_data() if spoken else None,
        ))
        answer = result.as_dict()
        ok = judge(phrase, answer)
        right += ok
        latencies.append(result.latency_ms)
        calls = "; ".join(f"{c['tool']}({c['arguments']})" for c in answer["tool_calls"])
        print(f"  {'OK  ' if ok else 'MISS'} {text!r} -> {answer['action']} {calls}")
    print(f"{label}: {right}/{len(phrases)} right product + action; turn latency median "
          f"{statistics.median(latencies):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beam", type=int, default=None, help="Whisper beam size (default: SHELFWISE_STT_BEAM or 5)")
    parser.add_argument("--speed", type=int, default=150, help="espeak-ng words per minute")
    parser.add_argument("--no-turns", action="store_true", help="only the real-time factor")
    parser.add_argument("--no-typed", action="store_true", help="skip the typed control run")
    args = parser.parse_args()
    if args.beam is not None:
        os.environ["SHELFWISE_STT_BEAM"] = str(args.beam)
    _configure()

    import numpy as np
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from assistant.tasks import prompt_words
    from lab.speech.evaluation import voice_phrases
    from ledger.demo import install_demo_catalog
    from speech.config import speech_settings
    from speech.espeak import espeak_samples, silence
    from speech.model import get_model, model_path
    from speech.transcribe import transcribe
    from tenants.context import use_store
    from tenants.services import store_create, store_delete

    call_command("migrate", verbosity=0)
    slug = f"bench-speech-{os.getpid()}"
    owner, _ = get_user_model().objects.get_or_create(username=slug, defaults={"email": f"{slug}@example.com"})
    store = store_create(name="Bench Grocery", slug=slug, timezone="America/Chicago", currency="USD", owner=owner)
    with use_store(store):
        install_demo_catalog(store=store)
        words = prompt_words(store)
    settings = speech_settings()
    phrases = voice_phrases()
    print("Shelfwise speech benchmark")
    print(f"model {model_path()} | beam {settings.beam_size} | {settings.threads} threads | {os.cpu_count()} CPUs | "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{len(phrases)} phrases, espeak-ng -v en-us -s {args.speed}, 300 ms silence either side\n")

    began = time.perf_counter()
    get_model()
    load_s = time.perf_counter() - began
    transcribe(espeak_samples("warm up", speed=args.speed), prompt_words=words)

    heard = []
    total_audio = total_stt = 0.0
    print(f"{'RTF':>5} {'audio s':>7} {'stt ms':>7}  said -> heard")
    for phrase in phrases:
        samples = np.concatenate([silence(300), espeak_samples(phrase.say, speed=args.speed), silence(300)])
        transcript = transcribe(samples, prompt_words=words)
        heard.append(transcript)
        total_audio += transcript.duration_s
        total_stt += transcript.ms / 1000
        print(f"{transcript.ms / 1000 / transcript.duration_s:5.2f} {transcript.duration_s:7.2f} {transcript.ms:7.0f}  "
              f"{phrase.say!r} -> {transcript.text!r} (confidence {transcript.confidence:.2f})")
    rtfs = [t.ms / 1000 / t.duration_s for t in heard]
    print(f"\nmodel load {load_s:.2f} s; real-time factor {total_stt / total_audio:.3f} overall "
          f"({total_stt:.1f} s for {total_audio:.1f} s of audio), median {statistics.median(rtfs):.3f}, "
          f"worst {max(rtfs):.3f}")

    if not args.no_turns:
        runs = [("spoken", [t.text for t in heard], True)]
        if not args.no_typed:
            runs.append(("typed", [p.say for p in phrases], False))
        for label, texts, spoken in runs:
            _turns(store, label, phrases, texts, heard, spoken=spoken)
    store_delete(store=store, actor="bench")


if __name__ == "__main__":
    main()

"""Speech end → reply start over the voice socket, as the talk page sends it (a benchmark).

    flock /tmp/shelfwise-heavy.lock .venv/bin/python -m lab.speech.latency [--split eval] [--limit 12]
        [--voice piper-joe] [--noise clean] [--set NAME=VALUE ...]

Each spoken-set clip is streamed to ``/ws/stores/<slug>/voice`` in 100 ms PCM16 frames at real
time (the frames are paced: this is what a microphone does), followed by silence until the server's
VAD ends the utterance. Measured from the moment the last frame holding speech was sent: the
``end_of_utterance``, the ``transcript``, the first ``reply`` (text on screen, the browser's voice
starts) and, with ``voice: server``, the first ``speech`` piece. Router mode, the real models
(fast path as configured), Celery eager and the in-memory channel layer: the turn runs in this
process as a worker would run it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import numpy as np

from lab.speech.bench import _configure, _store

FRAME_MS = 100
TAIL_S = 3.0
TIMEOUT_S = 120


async def _one(slug: str, cookie: str, samples: np.ndarray, *, server_voice: bool) -> dict[str, float]:
    from assistant.tests.voice_socket import open_socket
    from speech.espeak import to_pcm16

    socket = await open_socket(slug, cookie=cookie)
    await socket.receive_json_from(timeout=10)  # ready
    await socket.send_json_to({"type": "start", "format": "pcm16", "sample_rate": 16000,
                               "voice": "server" if server_voice else "browser"})
    await socket.receive_json_from(timeout=10)  # listening
    loud = np.flatnonzero(np.abs(samples) > 0.02)
    speech_end = (loud[-1] + 1) if len(loud) else len(samples)
    audio = np.concatenate([samples, np.zeros(int(TAIL_S * 16000), dtype=np.float32)])
    step = 16000 * FRAME_MS // 1000
    marks: dict[str, float] = {}
    frames: list[dict] = []
    began = time.perf_counter()
    ended_at = None

    async def reader() -> None:
        while True:
            frame = await socket.receive_json_from(timeout=TIMEOUT_S)
            frames.append(frame)
            now = time.perf_counter()
            kind = frame["type"]
            if kind not in marks and ended_at is not None:
                marks[kind] = now - ended_at
            if kind == "done":
                return

    task = asyncio.ensure_future(reader())
    for k, start in enumerate(range(0, len(audio), step)):
        if "end_of_utterance" in marks or task.done():
            break
        await asyncio.sleep(max(0.0, began + k * FRAME_MS / 1000 - time.perf_counter()))
        await socket.send_to(bytes_data=to_pcm16(audio[start : start + step]))
        if ended_at is None and start + step >= speech_end:
            ended_at = time.perf_counter() - (start + step - speech_end) / 16000
    await asyncio.wait_for(task, timeout=TIMEOUT_S)
    await socket.disconnect()
    result = next((f.get("result") for f in frames if f["type"] == "done"), None) or {}
    marks["partials"] = sum(1 for f in frames if f["type"] == "partial")
    # Where in the turn each event was made (its own clock): with eager Celery the events reach the
    # socket together when the turn ends, so these show what a worker streaming them would give.
    for kind in ("transcript", "guard", "action", "reply", "speech", "done"):
        made = next((f.get("at_ms") for f in frames if f["type"] == kind), None)
        marks[f"{kind}_at"] = made / 1000 if isinstance(made, (int, float)) else float("nan")
    marks["action"] = result.get("action")
    marks["text"] = result.get("transcript")
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="eval")
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--voice", default="piper-joe")
    parser.add_argument("--noise", default="clean")
    parser.add_argument("--server-voice", action="store_true", help="also ask for the reply in the server's voice")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    _configure(args.set)
    import os

    from django.contrib.auth import get_user_model
    from django.test import Client

    from lab.speech.spoken_set import spoken_phrases
    from lab.speech.voices import SAMPLE_RATE, clip_path, read_wav
    from speech.model import get_model
    from speech.voice import engine
    from tenants.models import Membership

    store = _store()
    user = get_user_model().objects.get(username=store.slug)
    Membership.objects.get_or_create(user=user, store=store, defaults={"role": Membership.Role.OWNER})
    client = Client()
    client.force_login(user)
    from django.conf import settings

    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    get_model()
    snr = None if args.noise == "clean" else float(args.noise.removeprefix("snr"))
    phrases = spoken_phrases(split=args.split)[: args.limit]
    print(f"{len(phrases)} {args.split} phrases, {args.voice} {args.noise}; server voice "
          f"{engine() if args.server_voice else 'off'}; load average {os.getloadavg()[0]:.2f}; "
          f"{time.strftime('%Y-%m-%d %H:%M')}")
    rows = []
    warm = read_wav(clip_path(phrases[0], args.voice, snr))
    asyncio.run(_one(store.slug, cookie, warm, server_voice=args.server_voice))  # first turn loads the rest
    for phrase in phrases:
        samples = read_wav(clip_path(phrase, args.voice, snr))
        marks = asyncio.run(_one(store.slug, cookie, samples, server_voice=args.server_voice))
        rows.append(marks)
        print(f"  end {marks.get('end_of_utterance', float('nan')):5.2f}  transcript "
              f"{marks.get('transcript', float('nan')):5.2f}  reply {marks.get('reply', float('nan')):5.2f}  "
              f"speech {marks.get('speech', float('nan')):5.2f}  partials {marks['partials']}  "
              f"(in the turn: transcript {marks['transcript_at']:5.2f} guard {marks['guard_at']:5.2f} action {marks['action_at']:5.2f} "
              f"reply {marks['reply_at']:5.2f} speech {marks['speech_at']:5.2f} done {marks['done_at']:5.2f})  "
              f"{len(samples) / SAMPLE_RATE:4.1f} s  {phrase.say!r} -> {marks['text']!r} ({marks['action']})",
              flush=True)
    for key in ("end_of_utterance", "transcript", "reply", "speech", "reply_at", "speech_at", "done_at"):
        values = [r[key] for r in rows if isinstance(r.get(key), float) and r[key] == r[key]]  # not NaN
        if values:
            print(f"{key:17} median {statistics.median(values):.2f} s, worst {max(values):.2f} s ({len(values)} turns)")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

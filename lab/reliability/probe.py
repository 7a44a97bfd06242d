"""Seed 001's resource probe, in a fresh process: load time, resident memory, latency mean and spread.

``python -m lab.reliability.probe MODEL`` loads the model (timed), records the process's RSS
before and after loading (psutil) and its peak (``ru_maxrss``), runs one warm-up generation,
then three greedy generations of at most 50 new tokens on three different prompts of the set,
and prints one JSON object: the mean and population standard deviation of their latency, and
the tokens they produced. A fresh process per model, so RSS is that model's alone (plus Python,
Django and llama.cpp), unlike the seed's shared notebook. ``probe_run`` starts it.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

GENERATIONS = 3
NEW_TOKENS = 50


def _rss_mib() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def probe(name: str) -> dict[str, Any]:
    """Measure ``name`` in this process (call it in a fresh one)."""
    from inference.base import ModelRequest, Role
    from lab.reliability.models import backend_for, model_spec
    from lab.reliability.prompt_set import load
    from lab.reliability.runner import CONDITIONS, prompt_request

    spec = model_spec(name)
    prompts = load()
    before = _rss_mib()
    backend = backend_for(spec)
    started = time.perf_counter()
    backend.complete(ModelRequest(role=Role.GENERAL, prompt="Hello", max_tokens=1))  # loads the weights
    load_s = time.perf_counter() - started
    after = _rss_mib()
    greedy = CONDITIONS["greedy"]

    def request(item: dict[str, Any]) -> ModelRequest:
        base = prompt_request(item, greedy)
        return ModelRequest(role=base.role, messages=base.messages, max_tokens=NEW_TOKENS)

    backend.complete(request(prompts[0]))  # warm-up, not timed
    latencies, tokens = [], []
    for item in prompts[1:1 + GENERATIONS]:
        started = time.perf_counter()
        response = backend.complete(request(item))
        latencies.append(time.perf_counter() - started)
        tokens.append(response.completion_tokens)
    return {
        "model": name, "backend": backend.kind, "load_s": round(load_s, 3),
        "rss_before_load_mib": round(before, 1), "rss_after_load_mib": round(after, 1),
        "rss_peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "latency_mean_s": round(statistics.fmean(latencies), 3), "latency_sd_s": round(statistics.pstdev(latencies), 3),
        "latencies_s": [round(x, 3) for x in latencies], "new_tokens": tokens, "max_new_tokens": NEW_TOKENS,
        "threads": _threads(),
    }


def _threads() -> int:
    from inference.llamacpp import cpu_count
    from shelfwise.env import env_int

    return env_int("SHELFWISE_LLAMACPP_THREADS", 0, minimum=0, maximum=512) or cpu_count()


def probe_run(name: str, *, timeout_s: float = 600) -> dict[str, Any]:
    """Run the probe for ``name`` in a fresh Python process and return its figures.

    Raises:
        RuntimeError: the probe process failed (its last error line is in the message).
    """
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "shelfwise.settings")}
    done = subprocess.run([sys.executable, "-m", "lab.reliability.probe", name], capture_output=True, text=True,
                          env=env, timeout=timeout_s, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"The resource probe for {name} failed: {tail}")
    return json.loads(lines[-1])


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    django.setup()
    if len(sys.argv) != 2:
        print("usage: python -m lab.reliability.probe MODEL", file=sys.stderr)
        return 2
    print(json.dumps(probe(sys.argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

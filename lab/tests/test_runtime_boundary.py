"""The runtime serves turns without the lab: nothing it loads imports ``lab`` or a training library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Every entry point of a serving process: the ASGI app and every URL's view, the Celery worker's
# tasks (as autodiscovery finds them), the modes, the channels and the model/speech layers.
PROBE = """
import json, sys
import django
django.setup()
from django.urls import get_resolver
import shelfwise.asgi
def walk(patterns):
    for p in patterns:
        if hasattr(p, "url_patterns"):
            walk(p.url_patterns)
        else:
            p.callback
walk(get_resolver().url_patterns)
from shelfwise.celery import app
app.loader.import_default_modules()
app.autodiscover_tasks(force=True)
import worker.tasks, worker.turns, assistant.pipeline, assistant.modes.router.mode, assistant.modes.native.hardened
import assistant.modes.native.plain, assistant.modes.small.runtime, alexa.views, speech.transcribe, inference.config
import mcp_gateway.tools, dashboard.views.ops
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {"lab", "trl", "peft"})))
"""


def _run(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SHELFWISE_LAB": "false", "DJANGO_SETTINGS_MODULE": "shelfwise.settings"}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=240)


def test_a_serving_process_imports_neither_the_lab_nor_training_libraries():
    done = _run(PROBE)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_without_the_lab_the_system_checks_pass():
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "SHELFWISE_LAB": "false"}, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr

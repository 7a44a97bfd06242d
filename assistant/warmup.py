"""Warm the models at start so the owner's first turn does not pay for loading and prompt caching.

On this class of CPU the bundled model reads ~60-70 prompt tokens a second, so the router's
static prompt (~1,500 tokens) costs 20-40 s the first time and well under a second afterwards
(llama.cpp's prefix cache). ``warm_up_in_background`` loads the guard's layers and routes one
throwaway utterance per store (at most ``limit``), which fills the cache for each store's prompt.
"""

from __future__ import annotations

import logging
import threading
import time

logger = logging.getLogger(__name__)


def warm_up(*, limit: int = 5) -> None:
    from django.db import close_old_connections

    from assistant.guard import get_guard
    from assistant.modes.router.mode import route_utterance
    from tenants.context import use_store
    from tenants.models import Store

    started = time.perf_counter()
    try:
        get_guard().warm_up()
        get_guard().check_input("where is the rice")
        from speech.model import get_model
        from speech.voice import warm_up as voice_warm_up

        get_model()  # Whisper, for the first spoken request
        voice_warm_up()  # the server's voice, for the first spoken reply
        for store in Store.objects.select_related("business_type").order_by("-id")[:limit]:
            with use_store(store):
                route_utterance(store=store, text="where is the rice")  # the model's prompt cache
                route_utterance(store=store, text="where is the rice", fast=True)  # the fast path's templates and head
        logger.info("Models warm after %.1f s", time.perf_counter() - started)
    except Exception:  # warming is an optimisation: a failure here must not stop the server
        logger.exception("Model warm-up failed; the first turn will load the models instead")
    finally:
        close_old_connections()


def warm_up_in_background(*, limit: int = 5) -> threading.Thread:
    thread = threading.Thread(target=warm_up, kwargs={"limit": limit}, name="shelfwise-warm-up", daemon=True)
    thread.start()
    return thread

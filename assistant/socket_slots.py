"""Open voice sockets per user: at most ``VOICE_SOCKETS_PER_USER`` at once, across all their stores.

Each open socket holds one of its user's numbered slots: a cache key taken with ``add`` (atomic
on Redis and in local memory) whose value names the socket's channel. The key expires after
``SLOT_TTL_S`` unless its socket renews it (every ``HEARTBEAT_S``), so a socket whose process died
without closing frees its slot within a minute; a socket that ends, normally or by a crash of its
consumer, frees it at once (``VoiceConsumer.__call__``).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

SLOT_TTL_S = 60
HEARTBEAT_S = 20


def _key(user_id: int, index: int) -> str:
    return f"voice-socket:{user_id}:{index}"


def slot_limit() -> int:
    """How many voice sockets one user may hold open at once."""
    return settings.VOICE_SOCKETS_PER_USER


async def slot_take(*, user_id: int, holder: str) -> str | None:
    """The key of a free slot, now held by ``holder``; None when the user has none left."""
    for index in range(slot_limit()):
        key = _key(user_id, index)
        if await cache.aadd(key, holder, timeout=SLOT_TTL_S):
            return key
    return None


async def slot_renew(key: str, *, holder: str) -> None:
    """Keep the slot for another ``SLOT_TTL_S``; one that lapsed (a stalled loop) is taken back if still free."""
    if await cache.aget(key) == holder and await cache.atouch(key, SLOT_TTL_S):
        return
    if not await cache.aadd(key, holder, timeout=SLOT_TTL_S):
        logger.warning("Voice socket %s lost its slot %s", holder, key)


async def slot_release(key: str, *, holder: str) -> None:
    """Free the slot, unless it lapsed and another socket holds it now."""
    if await cache.aget(key) == holder:
        await cache.adelete(key)

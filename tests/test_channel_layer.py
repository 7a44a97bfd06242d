"""The Redis channel layer survives an idle consumer on a busy event loop.

channels_redis waits for a message with a server-side BZPOPMIN of ``brpop_timeout`` (5 s) and
loops; redis-py 8 gives every read a client-side ``socket_timeout`` of 5 s by default. With the
two equal, a loop that is late by a moment when the empty reply arrives lets the client give up
first: ``redis.exceptions.TimeoutError`` escapes ``receive`` and Channels drops the consumer
(the talk page's socket died mid-turn that way on CI). Runs where ``REDIS_URL`` is set.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from django.conf import settings

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="REDIS_URL is not set")


def test_an_idle_receive_outlives_a_busy_loop_near_the_blocking_pop_timeout():
    from channels.layers import get_channel_layer

    async def scenario():
        layer = get_channel_layer()
        channel = await layer.new_channel()

        def block_the_loop():
            time.sleep(1.0)  # a moment of synchronous work straddling the 5 s mark

        loop = asyncio.get_running_loop()
        loop.call_later(layer.brpop_timeout - 0.5, block_the_loop)
        receive = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(layer.brpop_timeout + 1.5)
        assert not receive.done() or receive.exception() is None, receive.exception()
        await layer.send(channel, {"type": "voice.event", "event": {"type": "done"}})
        message = await asyncio.wait_for(receive, timeout=10)
        assert message["event"] == {"type": "done"}

    asyncio.run(scenario())
    from channels.layers import channel_layers

    channel_layers.backends.clear()  # its pools belong to the loop that just closed


def test_the_channel_layer_reads_longer_than_it_blocks():
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    for index in range(len(layer.hosts)):
        pool = layer.create_pool(index)
        timeout = pool.connection_kwargs.get("socket_timeout")
        assert timeout is None or timeout > layer.brpop_timeout, (timeout, layer.brpop_timeout)

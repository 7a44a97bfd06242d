"""Benchmark the MCP gateway (a benchmark, not a test): prints figures, asserts nothing.

In one run, on one demo store:

1. Over HTTP, the official MCP client against the project's ASGI app under uvicorn (one worker,
   its own process, 127.0.0.1): tool calls per second, sequential and with concurrent callers, and
   per-call latency.
2. In process: the same calls through ``execute_tool`` against the ledger called directly
   (``ledger.selectors`` / ``ledger.services``), so the gateway's own cost per call (validation,
   policy, transaction, SQL capture, audit record) is the difference of the medians.

With nothing set it builds a throwaway SQLite database in a temporary folder. With DATABASE_URL
set it uses that database (point it at a throwaway one: it migrates it and adds, then deletes,
a store).

    .venv/bin/python scripts/bench_mcp.py [--calls 300] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _configure(data_dir: str | None) -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["SHELFWISE_DATA_DIR"] = tempfile.mkdtemp(prefix="shelfwise-bench-", dir=data_dir)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("TOKEN_RATE_LIMIT_PER_MINUTE", "100000000")
    os.environ.setdefault("EMAIL_URL", "memory://")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    import warnings

    warnings.simplefilter("ignore")
    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)


def _paired(first: Callable[[], object], second: Callable[[], object], n: int, warmup: int = 50) -> tuple[list[float], list[float]]:
    """Time two callables alternately, so both see the same machine (disk flushes, other load)."""
    for _ in range(warmup):
        first()
        second()
    a, b = [], []
    for _ in range(n):
        started = time.perf_counter()
        first()
        a.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        second()
        b.append((time.perf_counter() - started) * 1000)
    return a, b


def _summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"median {statistics.median(ordered):7.3f} ms   p95 {p95:7.3f} ms"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per measurement (default 300)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent HTTP callers (default 8)")
    parser.add_argument(
        "--data-dir",
        default=None,
        help="where the throwaway SQLite database goes (default: the system's temporary folder; /dev/shm "
        "leaves out the disk's fsync time)",
    )
    return parser.parse_args()


def _bench_store():
    """A migrated database with one demo store; returns (store, its owner, a raw MCP token, its caller)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from ledger.demo import install_demo_catalog
    from mcp_gateway.policy import Caller
    from tenants.context import use_store
    from tenants.services import store_create, token_create

    call_command("migrate", verbosity=0)
    slug = f"bench-{os.getpid()}"
    owner, _ = get_user_model().objects.get_or_create(username=slug, defaults={"email": f"{slug}@example.com"})
    store = store_create(name="Bench Grocery", slug=slug, timezone="America/Chicago", currency="USD", owner=owner)
    with use_store(store):
        install_demo_catalog(store=store)
    token, raw = token_create(store=store, name="bench", scopes=["mcp"])
    return store, owner, raw, Caller.for_token(token)


class _Ghee:
    """The count the next write expects: every write raises Ghee's count by one."""

    def __init__(self, store) -> None:
        from ledger.models import Product
        from tenants.context import use_store

        with use_store(store):
            self.count = Product.objects.get(store=store, name="Ghee").stock

    def write(self) -> dict[str, int]:
        arguments = {"item": "Ghee", "stock": self.count + 1, "expectedStock": self.count}
        self.count += 1
        return arguments


def _in_process(store, caller, ghee: _Ghee, n: int) -> dict[str, float]:
    """The ledger called directly against the same work through ``execute_tool``; prints and returns medians."""
    from ledger import selectors, services
    from mcp_gateway.execution import execute_tool
    from tenants.context import use_store

    def direct_read() -> None:
        with use_store(store):
            assert selectors.product_by_name(store=store, name="gur") is not None

    def gateway_read() -> None:
        assert execute_tool("get_inventory", {"item": "gur"}, store=store, caller=caller).ok

    def direct_write() -> None:
        # The same work the tool does: find the product by name, then compare-and-set its count.
        arguments = ghee.write()
        with use_store(store):
            found = selectors.product_by_name(store=store, name="Ghee")
            services.stock_set(store=store, product=found, count=arguments["stock"], expected=arguments["expectedStock"],
                               actor="system:bench")

    def gateway_write() -> None:
        result = execute_tool("update_inventory", ghee.write(), store=store, caller=caller)
        assert result.ok, result.message

    keys = iter(range(10**9))

    def gateway_keyed_write() -> None:
        result = execute_tool("update_inventory", ghee.write(), store=store, caller=caller,
                              idempotency_key=f"bench-{next(keys)}")
        assert result.ok, result.message

    rows: dict[str, list[float]] = {}
    rows["read   ledger direct (product_by_name)"], rows["read   execute_tool(get_inventory)"] = _paired(
        direct_read, gateway_read, n
    )
    rows["write  ledger direct (by name + stock_set)"], rows["write  execute_tool(update_inventory)"] = _paired(
        direct_write, gateway_write, n
    )
    _unused, rows["write  execute_tool(update_inventory, key)"] = _paired(gateway_write, gateway_keyed_write, n)
    print("In process (median and p95 per call):")
    for label, samples in rows.items():
        print(f"  {label:44s} {_summary(samples)}")
    medians = {label: statistics.median(samples) for label, samples in rows.items()}
    read_overhead = medians["read   execute_tool(get_inventory)"] - medians["read   ledger direct (product_by_name)"]
    write_overhead = medians["write  execute_tool(update_inventory)"] - medians["write  ledger direct (by name + stock_set)"]
    key_extra = medians["write  execute_tool(update_inventory, key)"] - medians["write  execute_tool(update_inventory)"]
    print(f"  gateway overhead per call: read {read_overhead:.3f} ms, write {write_overhead:.3f} ms, "
          f"idempotency key +{key_extra:.3f} ms\n")
    return medians


def _server() -> tuple[subprocess.Popen, str]:
    """The ASGI app under uvicorn in its own process (one worker), so client and server share no GIL."""
    from django.db import connections

    connections.close_all()  # the server's worker thread has the database to itself
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "shelfwise.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--lifespan", "on", "--log-level", "error", "--no-access-log"],
        cwd=ROOT,
        env=os.environ.copy(),
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("The benchmark server did not start.") from None
            time.sleep(0.05)


async def _timed(n: int, call: Callable[[], object]) -> tuple[list[float], float]:
    """``n`` awaited calls one after another: per-call milliseconds and calls per second."""
    latencies = []
    started_all = time.perf_counter()
    for _ in range(n):
        started = time.perf_counter()
        result = await call()
        latencies.append((time.perf_counter() - started) * 1000)
        assert not result.is_error, result.content
    return latencies, n / (time.perf_counter() - started_all)


async def _over_http(url: str, raw: str, ghee: _Ghee, n: int, concurrency: int) -> dict[str, Any]:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {raw}"}
    limits = httpx2.Limits(max_connections=concurrency * 2, max_keepalive_connections=concurrency * 2)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60, limits=limits) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        def read():
            return client.call_tool("get_inventory", {"item": "gur"})

        def write():
            return client.call_tool("update_inventory", ghee.write())

        await _timed(20, read)
        latencies, sequential_rate = await _timed(n, read)
        write_latencies, _rate = await _timed(n, write)
        per_worker = max(1, n // concurrency)
        started_all = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(concurrency):
                group.start_soon(_timed, per_worker, read)
        concurrent_rate = per_worker * concurrency / (time.perf_counter() - started_all)
        return {"read": latencies, "write": write_latencies, "sequential": sequential_rate,
                "concurrent": concurrent_rate, "protocol": client.protocol_version}


def main() -> None:
    args = _arguments()
    _configure(args.data_dir)
    import anyio
    from django.db import connection

    from tenants.services import store_delete

    store, owner, raw, caller = _bench_store()
    n = args.calls
    print(f"Shelfwise MCP gateway benchmark: {connection.vendor}, demo store of 38 products, {n} calls per figure")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    ghee = _Ghee(store)
    medians = _in_process(store, caller, ghee, n)

    server, url = _server()
    http = anyio.run(_over_http, url, raw, ghee, n, args.concurrency)
    server.terminate()
    server.wait(30)
    print(f"Over HTTP (official MCP client, protocol {http['protocol']}; uvicorn, one worker, own process):")
    print(f"  read   get_inventory                         {_summary(http['read'])}")
    print(f"  write  update_inventory                      {_summary(http['write'])}")
    print(f"  throughput: {http['sequential']:.0f} calls/s sequential, "
          f"{http['concurrent']:.0f} calls/s with {args.concurrency} concurrent callers")
    transport = statistics.median(http["read"]) - medians["read   execute_tool(get_inventory)"]
    print(f"  HTTP + MCP protocol cost per read call (over execute_tool in process): {transport:.3f} ms")

    if os.environ.get("DATABASE_URL"):
        try:
            store_delete(store=store, actor="system:bench")
            owner.delete()
        except Exception as error:  # noqa: BLE001 - the figures are printed; say what was left behind
            print(f"(the benchmark store {store.slug!r} could not be removed: {error})")


if __name__ == "__main__":
    main()

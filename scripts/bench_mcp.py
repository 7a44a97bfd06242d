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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per measurement (default 300)")
    parser.add_argument("--concurrency", type=int, default=8, help="concurrent HTTP callers (default 8)")
    parser.add_argument(
        "--data-dir",
        default=None,
        help="where the throwaway SQLite database goes (default: the system's temporary folder; /dev/shm "
        "leaves out the disk's fsync time)",
    )
    args = parser.parse_args()
    _configure(args.data_dir)

    import anyio
    import httpx2
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, connections
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from ledger import selectors, services
    from ledger.demo import install_demo_catalog
    from ledger.models import Product
    from mcp_gateway.execution import execute_tool
    from mcp_gateway.policy import Caller
    from tenants.context import use_store
    from tenants.services import store_create, store_delete, token_create

    call_command("migrate", verbosity=0)
    slug = f"bench-{os.getpid()}"
    owner, _ = get_user_model().objects.get_or_create(username=slug, defaults={"email": f"{slug}@example.com"})
    store = store_create(name="Bench Grocery", slug=slug, timezone="America/Chicago", currency="USD", owner=owner)
    with use_store(store):
        install_demo_catalog(store=store)
    token, raw = token_create(store=store, name="bench", scopes=["mcp"])
    caller = Caller.for_token(token)
    n = args.calls
    print(f"Shelfwise MCP gateway benchmark: {connection.vendor}, demo store of 38 products, {n} calls per figure")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")

    # -- in process: the ledger directly against the gateway ---------------------------------------
    def direct_read() -> None:
        with use_store(store):
            assert selectors.product_by_name(store=store, name="gur") is not None

    def gateway_read() -> None:
        assert execute_tool("get_inventory", {"item": "gur"}, store=store, caller=caller).ok

    with use_store(store):
        counts = {"direct": Product.objects.get(store=store, name="Ghee").stock}

    def direct_write() -> None:
        # The same work the tool does: find the product by name, then compare-and-set its count.
        current = counts["direct"]
        with use_store(store):
            found = selectors.product_by_name(store=store, name="Ghee")
            services.stock_set(store=store, product=found, count=current + 1, expected=current, actor="system:bench")
        counts["direct"] = current + 1

    def gateway_write() -> None:
        current = counts["direct"]
        result = execute_tool(
            "update_inventory", {"item": "Ghee", "stock": current + 1, "expectedStock": current}, store=store, caller=caller
        )
        assert result.ok, result.message
        counts["direct"] = current + 1

    keys = iter(range(10**9))

    def gateway_keyed_write() -> None:
        current = counts["direct"]
        result = execute_tool(
            "update_inventory",
            {"item": "Ghee", "stock": current + 1, "expectedStock": current},
            store=store,
            caller=caller,
            idempotency_key=f"bench-{next(keys)}",
        )
        assert result.ok, result.message
        counts["direct"] = current + 1

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

    # -- over HTTP: the official client against uvicorn ----------------------------------------------
    connections.close_all()  # the server's worker thread has the database to itself
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    # The server in its own process (one uvicorn worker), so client and server do not share a GIL.
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
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("The benchmark server did not start.") from None
            time.sleep(0.05)
    url = f"http://127.0.0.1:{port}/mcp"

    async def over_http() -> dict[str, list[float] | float]:
        headers = {"Authorization": f"Bearer {raw}"}
        limits = httpx2.Limits(max_connections=args.concurrency * 2, max_keepalive_connections=args.concurrency * 2)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60, limits=limits) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            for _ in range(20):
                await client.call_tool("get_inventory", {"item": "gur"})
            latencies = []
            started_all = time.perf_counter()
            for _ in range(n):
                started = time.perf_counter()
                result = await client.call_tool("get_inventory", {"item": "gur"})
                latencies.append((time.perf_counter() - started) * 1000)
                assert not result.is_error
            sequential_rate = n / (time.perf_counter() - started_all)

            write_latencies = []
            for _ in range(n):
                current = counts["direct"]
                started = time.perf_counter()
                result = await client.call_tool(
                    "update_inventory", {"item": "Ghee", "stock": current + 1, "expectedStock": current}
                )
                write_latencies.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result.content
                counts["direct"] = current + 1

            async def worker(count: int) -> None:
                for _ in range(count):
                    result = await client.call_tool("get_inventory", {"item": "gur"})
                    assert not result.is_error

            per_worker = max(1, n // args.concurrency)
            started_all = time.perf_counter()
            async with anyio.create_task_group() as group:
                for _ in range(args.concurrency):
                    group.start_soon(worker, per_worker)
            concurrent_rate = per_worker * args.concurrency / (time.perf_counter() - started_all)
            return {
                "read": latencies,
                "write": write_latencies,
                "sequential": sequential_rate,
                "concurrent": concurrent_rate,
                "protocol": client.protocol_version,
            }

    http = anyio.run(over_http)
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
            print(f"(the benchmark store {slug!r} could not be removed: {error})")


if __name__ == "__main__":
    main()

"""Bounded load on a running deployment: owners' turns, shoppers, MCP clients and a health probe.

    # 1. seed stores (each with the demo catalog, an api token and an mcp token) into the deployment's database
    set -a; . var/up/env; set +a
    .venv/bin/python scripts/load.py seed --stores 200 --out var/up/load_stores.json
    # 2. drive it for a bounded time (client side only; prints a table and writes JSON)
    .venv/bin/python scripts/load.py run --url http://127.0.0.1:8014 --stores var/up/load_stores.json \\
        --owners 20 --shoppers 8 --mcp 4 --duration 120 --out var/up/load_result.json

Owners post typed turns (``POST /api/v1/turns``, each owner on its own store, the next turn as soon
as the last answered); shoppers look products up on the shelf finder of random stores; MCP clients
call ``get_inventory`` through the official MCP client; a probe reads ``/healthz`` every 200 ms.
Per surface: requests, errors, throughput, p50 and p95 latency. With the models behind
``scripts/fake_model_server.py`` (paced like the bundled model) the figures measure the platform,
not the model; with the real model they measure turns per minute per worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWNER_TURNS = [
    "where is the gur", "how many bags of atta do we have", "what did we sell today", "what's running low",
    "we actually have 15 bags of atta", "where do we keep the haldi", "how are sales today",
    "we counted 20 bottles of mustard oil",
]
SHOPPER_WORDS = ["haldi", "gur", "atta", "toor dal", "basmati rice", "jeera", "ghee", "mustard oil"]


def seed(count: int, out: Path) -> None:
    """``count`` stores with the demo catalog and tokens; existing load stores are reused."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import django

    django.setup()
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from ledger.demo import install_demo_catalog
    from tenants.context import use_store
    from tenants.models import BusinessType, Membership, Store
    from tenants.services import membership_add, token_create

    User = get_user_model()

    grocery = BusinessType.objects.get(slug="grocery")
    stores = []
    started = time.perf_counter()
    for n in range(count):
        slug = f"load-{n:04d}"
        store, created = Store.objects.get_or_create(
            slug=slug, defaults={"name": f"Load Store {n:04d}", "business_type": grocery, "owner_name": "Raj"},
        )
        if created:
            with use_store(store):
                install_demo_catalog(store=store)
            # An owner with a verified address: a store emails its reports only then.
            owner = User.objects.create_user(username=slug, email=f"{slug}@example.com")
            EmailAddress.objects.create(user=owner, email=owner.email, verified=True, primary=True)
            membership_add(store=store, user=owner, role=Membership.Role.OWNER)
        api = token_create(store=store, name="load api", scopes=["api"])[1]
        mcp = token_create(store=store, name="load mcp", scopes=["mcp"])[1]
        stores.append({"slug": slug, "api": api, "mcp": mcp})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stores))
    print(f"{count} stores ready in {time.perf_counter() - started:.0f} s -> {out}")


class Recorder:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)

    def add(self, surface: str, started: float, error: str | None = None) -> None:
        self.latency[surface].append((time.perf_counter() - started) * 1000)
        if error:
            self.errors[surface].append(error)

    def table(self, duration: float) -> list[dict]:
        rows = []
        for surface, values in sorted(self.latency.items()):
            ordered = sorted(values)
            p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
            rows.append({"surface": surface, "requests": len(values), "errors": len(self.errors[surface]),
                         "per_s": round(len(values) / duration, 2), "p50_ms": round(statistics.median(ordered), 1),
                         "p95_ms": round(p95, 1), "first_errors": self.errors[surface][:3]})
        return rows


async def owner(client, store: dict, stop: float, record: Recorder) -> None:
    headers = {"Authorization": f"Bearer {store['api']}"}
    conversation = None
    while time.monotonic() < stop:
        started = time.perf_counter()
        try:
            answer = await client.post("/api/v1/turns", json={"text": random.choice(OWNER_TURNS),
                                                              "conversation": conversation}, headers=headers)
            if answer.status_code == 202:  # past the server's bound: follow the status URL (still one turn)
                url = answer.json()["status_url"]
                while time.monotonic() < stop + 120:
                    await asyncio.sleep(0.5)
                    status = (await client.get(url, headers=headers)).json()
                    if status["status"] in ("done", "failed"):
                        break
                error = None if status["status"] == "done" else f"failed: {status.get('error')}"
            else:
                error = None if answer.status_code == 200 else f"{answer.status_code}: {answer.text[:120]}"
                if answer.status_code == 200:
                    conversation = answer.json()["conversation"]
            record.add("turn (REST)", started, error)
        except Exception as exc:  # noqa: BLE001 - every failure is a counted error, not a crash of the run
            record.add("turn (REST)", started, repr(exc)[:120])


async def shopper(client, stores: list[dict], stop: float, record: Recorder) -> None:
    while time.monotonic() < stop:
        store = random.choice(stores)
        started = time.perf_counter()
        try:
            answer = await client.get(f"/s/{store['slug']}/find", params={"q": random.choice(SHOPPER_WORDS)})
            record.add("shelf finder", started, None if answer.status_code == 200 else str(answer.status_code))
        except Exception as exc:  # noqa: BLE001
            record.add("shelf finder", started, repr(exc)[:120])
        await asyncio.sleep(random.uniform(0.1, 0.4))


async def mcp_client(base: str, store: dict, stop: float, record: Recorder) -> None:
    import httpx2 as httpx  # the MCP SDK's HTTP client
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (httpx.AsyncClient(headers={"Authorization": f"Bearer {store['mcp']}"}, timeout=30) as http,
                Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client):
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                result = await client.call_tool("get_inventory", {"item": random.choice(SHOPPER_WORDS)})
                record.add("MCP get_inventory", started, "tool error" if result.is_error else None)
            except Exception as exc:  # noqa: BLE001
                record.add("MCP get_inventory", started, repr(exc)[:120])
            await asyncio.sleep(random.uniform(0.3, 0.7))  # under the 120-a-minute limit per token


async def probe(client, stop: float, record: Recorder) -> None:
    while time.monotonic() < stop:
        started = time.perf_counter()
        try:
            answer = await client.get("/healthz")
            record.add("/healthz", started, None if answer.status_code == 200 else str(answer.status_code))
        except Exception as exc:  # noqa: BLE001
            record.add("/healthz", started, repr(exc)[:120])
        await asyncio.sleep(0.2)


async def drive(args) -> list[dict]:
    import httpx

    stores = json.loads(Path(args.stores).read_text())
    if len(stores) < args.owners + args.mcp:
        raise SystemExit(f"{len(stores)} stores are too few for {args.owners} owners and {args.mcp} MCP clients.")
    record = Recorder()
    stop = time.monotonic() + args.duration
    limits = httpx.Limits(max_connections=args.owners + args.shoppers + 8)
    async with httpx.AsyncClient(base_url=args.url, timeout=180, limits=limits) as client:
        tasks = [owner(client, stores[i], stop, record) for i in range(args.owners)]
        tasks += [shopper(client, stores, stop, record) for _ in range(args.shoppers)]
        tasks += [mcp_client(args.url, stores[args.owners + i], stop, record) for i in range(args.mcp)]
        tasks.append(probe(client, stop, record))
        started = time.perf_counter()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
    return record.table(elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    seeding = sub.add_parser("seed")
    seeding.add_argument("--stores", type=int, default=200)
    seeding.add_argument("--out", default=str(ROOT / "var/up/load_stores.json"))
    running = sub.add_parser("run")
    running.add_argument("--url", default="http://127.0.0.1:8014")
    running.add_argument("--stores", default=str(ROOT / "var/up/load_stores.json"))
    running.add_argument("--owners", type=int, default=20)
    running.add_argument("--shoppers", type=int, default=8)
    running.add_argument("--mcp", type=int, default=4)
    running.add_argument("--duration", type=float, default=120.0)
    running.add_argument("--out", default=str(ROOT / "var/up/load_result.json"))
    args = parser.parse_args()
    if args.command == "seed":
        seed(args.stores, Path(args.out))
        return
    rows = asyncio.run(drive(args))
    Path(args.out).write_text(json.dumps({"args": vars(args), "rows": rows}, indent=2))
    print("| surface | requests | errors | per second | p50 ms | p95 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(f"| {row['surface']} | {row['requests']} | {row['errors']} | {row['per_s']} | {row['p50_ms']} | {row['p95_ms']} |")
    for row in rows:
        for error in row["first_errors"]:
            print(f"  {row['surface']}: {error}")


if __name__ == "__main__":
    main()

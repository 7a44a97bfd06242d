"""Bounded load on a running deployment: owners' turns, shoppers, MCP clients and a health probe.

    # 1. seed stores (each with the demo catalog, an api token and an mcp token) into the deployment's database
    set -a; . var/up/env; set +a
    .venv/bin/python scripts/load.py seed --stores 200 --out var/up/load_stores.json
    # 2. drive it for a bounded time (client side only; prints a table and writes JSON)
    .venv/bin/python scripts/load.py run --url http://127.0.0.1:8014 --stores var/up/load_stores.json \\
        --owners 20 --ws-owners 4 --shoppers 8 --mcp 4 [--think-s 5] --duration 120 --out var/up/load_result.json

Owners post typed turns (``POST /api/v1/turns``, each owner on its own store, the next turn as soon
as the last answered, or after a pause of ``--think-s`` on average, as a person reads the reply); websocket owners hold the talk page's voice socket open on their own store
(signed in with a session the seed made for the store's owner) and send typed turns over it, timed
from the frame sent to the turn's ``done``; shoppers look products up on the shelf finder of random stores; MCP clients
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
import resource
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


def seed(count: int, out: Path, api_scopes: list[str] | None = None) -> None:
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
        api = token_create(store=store, name="load api", scopes=api_scopes or ["api"])[1]
        mcp = token_create(store=store, name="load mcp", scopes=["mcp"])[1]
        owner = Membership.objects.filter(store=store, role=Membership.Role.OWNER).select_related("user").first()
        stores.append({"slug": slug, "api": api, "mcp": mcp, "session": _session_for(owner.user) if owner else None})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stores))
    print(f"{count} stores ready in {time.perf_counter() - started:.0f} s -> {out}")


def _session_for(user) -> str:
    """A signed-in session for ``user`` (what the sign-in page would store), for the voice socket's cookie."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def jobs(since: str, until: str | None) -> dict:
    """The worker's side of the run: turn jobs created in the window, by status, queue wait and run time."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import datetime as dt

    import django

    django.setup()
    from tenants.rls import bypass
    from worker.models import TurnJob

    start = dt.datetime.fromisoformat(since)
    end = dt.datetime.fromisoformat(until) if until else dt.datetime.now(dt.UTC)
    with bypass():
        rows = list(TurnJob.objects.filter(created_at__gte=start).values_list(
            "status", "error_code", "created_at", "started_at", "finished_at"))

    def pct(values: list[float], q: float) -> float | None:
        if not values:
            return None
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 2)

    waits = [(s - c).total_seconds() for _st, _e, c, s, _f in rows if s]
    runs = [(f - s).total_seconds() for st, _e, _c, s, f in rows if s and f and st == "done"]
    done_in_window = sum(1 for st, _e, _c, _s, f in rows if st == "done" and f and f <= end)
    minutes = max((end - start).total_seconds() / 60, 1e-9)
    by_status: dict[str, int] = defaultdict(int)
    for status, code, *_ in rows:
        by_status[f"{status}:{code}" if code else status] += 1
    return {"jobs": len(rows), "by_status": dict(by_status), "done_per_min_in_window": round(done_in_window / minutes, 2),
            "window_min": round(minutes, 2), "queue_wait_s_p50": pct(waits, 0.5), "queue_wait_s_p95": pct(waits, 0.95),
            "run_s_p50": pct(runs, 0.5), "run_s_p95": pct(runs, 0.95)}


def _loadavg() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return -1.0


def _pg_sessions(dsn: str) -> tuple[int, int]:
    """Sessions on the deployment's database, and on the whole server (its max_connections is shared)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
        return conn.execute("SELECT count(*) FILTER (WHERE datname = current_database()), count(*) "
                            "FROM pg_stat_activity WHERE backend_type = 'client backend'").fetchone()


async def load_sampler(stop: float, samples: list[float], sessions: list[tuple[int, int]], dsn: str | None) -> None:
    """Every 5 s: the machine's 1-minute load average (others share this machine: it is part of the
    figure) and, given ``--pg-dsn``, the database sessions open."""
    while time.monotonic() < stop:
        samples.append(_loadavg())
        if dsn:
            try:
                sessions.append(await asyncio.to_thread(_pg_sessions, dsn))
            except Exception:  # noqa: BLE001 - the server full is itself the finding; keep sampling
                sessions.append((-1, -1))
        await asyncio.sleep(5)


class Recorder:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.deferred = 0  # turns answered 202 and followed to the end through the status URL

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


async def pause(think_s: float) -> None:
    """An owner reading the reply before the next request: ``think_s`` on average (0: none, back to back)."""
    if think_s > 0:
        await asyncio.sleep(random.uniform(0.5, 1.5) * think_s)


async def owner(client, store: dict, stop: float, record: Recorder, think_s: float = 0.0) -> None:
    headers = {"Authorization": f"Bearer {store['api']}"}
    conversation = None
    while time.monotonic() < stop:
        started = time.perf_counter()
        try:
            answer = await client.post("/api/v1/turns", json={"text": random.choice(OWNER_TURNS),
                                                              "conversation": conversation}, headers=headers)
            if answer.status_code == 202:  # past the server's bound: follow the status URL (still one turn)
                record.deferred += 1
                url = answer.json()["status_url"]
                while time.monotonic() < stop + 120:
                    await asyncio.sleep(0.5)
                    status = (await client.get(url, headers=headers)).json()
                    if status["status"] in ("done", "failed"):
                        break
                error = None if status["status"] == "done" else f"{status['status']}: {status.get('error')}"
                if status["status"] == "done":
                    conversation = status["result"]["conversation"]
            else:
                error = None if answer.status_code == 200 else f"{answer.status_code}: {answer.text[:120]}"
                if answer.status_code == 200:
                    conversation = answer.json()["conversation"]
            record.add("turn (REST)", started, error)
        except Exception as exc:  # noqa: BLE001 - every failure is a counted error, not a crash of the run
            record.add("turn (REST)", started, repr(exc)[:120])
        await pause(think_s)


async def socket_owner(base: str, store: dict, stop: float, record: Recorder, think_s: float = 0.0) -> None:
    """One owner on the talk page: one voice socket held open, typed turns sent back to back over it."""
    import websockets

    url = base.replace("http", "ws", 1) + f"/ws/stores/{store['slug']}/voice"
    headers = {"Cookie": f"{os.environ.get('SESSION_COOKIE_NAME', 'sessionid')}={store['session']}", "Origin": base}
    conversation = None
    while time.monotonic() < stop:
        try:
            async with websockets.connect(url, additional_headers=headers, open_timeout=15) as socket:
                ready = json.loads(await asyncio.wait_for(socket.recv(), 15))
                if ready.get("type") != "ready":
                    raise RuntimeError(f"socket refused: {ready}")
                while time.monotonic() < stop:
                    started = time.perf_counter()
                    await socket.send(json.dumps({"type": "text", "text": random.choice(OWNER_TURNS),
                                                  "conversation": conversation}))
                    error = None
                    while True:
                        event = json.loads(await asyncio.wait_for(socket.recv(), 180))
                        if event.get("type") == "error":
                            error = f"{event.get('code')}: {event.get('message', '')[:80]}"
                        if event.get("type") == "done":
                            result = event.get("result") or {}
                            conversation = result.get("conversation", conversation)
                            break
                    record.add("turn (websocket)", started, error)
                    await pause(think_s)
        except Exception as exc:  # noqa: BLE001 - a dropped or refused socket is a counted error; reconnect
            record.add("turn (websocket)", time.perf_counter(), repr(exc)[:120])
            await asyncio.sleep(1)


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


async def drive(args) -> dict:
    import httpx

    stores = json.loads(Path(args.stores).read_text())
    if len(stores) < args.owners + args.mcp + args.ws_owners:
        raise SystemExit(f"{len(stores)} stores are too few for {args.owners} REST owners, {args.ws_owners} "
                         f"websocket owners and {args.mcp} MCP clients.")
    record = Recorder()
    stop = time.monotonic() + args.duration
    limits = httpx.Limits(max_connections=args.owners + args.shoppers + 8)
    async with httpx.AsyncClient(base_url=args.url, timeout=180, limits=limits) as client:
        tasks = [owner(client, stores[i], stop, record, args.think_s) for i in range(args.owners)]
        tasks += [shopper(client, stores, stop, record) for _ in range(args.shoppers)]
        tasks += [mcp_client(args.url, stores[args.owners + i], stop, record) for i in range(args.mcp)]
        first_ws = args.owners + args.mcp
        tasks += [socket_owner(args.url, stores[first_ws + i], stop, record, args.think_s) for i in range(args.ws_owners)]
        tasks.append(probe(client, stop, record))
        loads: list[float] = []
        sessions: list[tuple[int, int]] = []
        tasks.append(load_sampler(stop, loads, sessions, args.pg_dsn))
        began = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
        started = time.perf_counter()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"rows": record.table(elapsed), "started": began, "elapsed_s": round(elapsed, 1),
            "client_cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "turns_deferred_202": record.deferred,
            "loadavg_1m": {"mean": round(statistics.mean(loads), 2) if loads else None, "max": max(loads, default=None)},
            "pg_sessions_max": {"this_database": max((a for a, _ in sessions), default=None),
                                "server": max((b for _, b in sessions), default=None),
                                "samples_refused": sum(1 for a, _ in sessions if a < 0)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    seeding = sub.add_parser("seed")
    seeding.add_argument("--stores", type=int, default=200)
    seeding.add_argument("--out", default=str(ROOT / "var/up/load_stores.json"))
    seeding.add_argument("--api-scopes", default="api", help="the REST token's scopes, comma-separated")
    running = sub.add_parser("run")
    running.add_argument("--url", default="http://127.0.0.1:8014")
    running.add_argument("--stores", default=str(ROOT / "var/up/load_stores.json"))
    running.add_argument("--owners", type=int, default=20)
    running.add_argument("--ws-owners", type=int, default=4, help="owners sending turns over the voice socket")
    running.add_argument("--shoppers", type=int, default=8)
    running.add_argument("--mcp", type=int, default=4)
    running.add_argument("--think-s", type=float, default=0.0,
                         help="owners' mean pause between a reply and their next turn (0: back to back)")
    running.add_argument("--duration", type=float, default=120.0)
    running.add_argument("--out", default=str(ROOT / "var/up/load_result.json"))
    running.add_argument("--pg-dsn", default=None, help="sample the deployment's PostgreSQL sessions every 5 s")
    jobbing = sub.add_parser("jobs", help="the turn jobs of a run, from the deployment's database (its env set)")
    jobbing.add_argument("--since", required=True, help="ISO time the run started")
    jobbing.add_argument("--until", default=None, help="ISO time the run stopped (turns done by then count)")
    args = parser.parse_args()
    if args.command == "seed":
        seed(args.stores, Path(args.out), args.api_scopes.split(","))
        return
    if args.command == "jobs":
        print(json.dumps(jobs(args.since, args.until)))
        return
    result = asyncio.run(drive(args))
    rows = result["rows"]
    Path(args.out).write_text(json.dumps({"args": vars(args), **result}, indent=2))
    print("| surface | requests | errors | per second | p50 ms | p95 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(f"| {row['surface']} | {row['requests']} | {row['errors']} | {row['per_s']} | {row['p50_ms']} | {row['p95_ms']} |")
    for row in rows:
        for error in row["first_errors"]:
            print(f"  {row['surface']}: {error}")
    print(f"started {result['started']}, {result['elapsed_s']} s; turns answered 202 and followed: "
          f"{result['turns_deferred_202']}; load average (1 min) during the run: {result['loadavg_1m']}; "
          f"PostgreSQL sessions (max): {result['pg_sessions_max']}")


if __name__ == "__main__":
    main()

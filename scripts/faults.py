"""Fault injection under load: a worker killed mid-turn, Redis stopped, PostgreSQL's connections cut,
the model server hung; afterwards, nothing lost and nothing applied twice.

    flock /tmp/shelfwise-heavy.lock .venv/bin/python scripts/faults.py --stores 12 --owners 6 --phase-s 25

What it runs (each process by its own pid; nothing shared is stopped):

* PostgreSQL: a database of this worktree's own (``--db``, default ``sw_load_faults``) on the machine's server,
  dropped and created afresh (the machine's cluster is shared, so it is not restarted: the
  "PostgreSQL restarted" fault refuses new connections to this database (``ALTER DATABASE ...
  ALLOW_CONNECTIONS false``), ends every session in it (``pg_terminate_backend``), waits
  ``--pg-outage-s`` and lets connections in again: what the app sees of a restart);
* its own Redis (``redis-server`` on ``--redis-port``, 6390): cache and channel layer;
* RabbitMQ on 127.0.0.1 (its own vhost, emptied first): the broker;
* the fake model server (``--model-port``), turn model calls bounded at 5 s;
* the web process, the turns worker, the jobs worker and beat (not under honcho, which stops
  everything when one process dies).

Clients, during every phase: owners alternate a count change ("we actually have N bags of atta",
N unique per store) and a reorder ("order M bags of toor dal", M unique), answering "yes" to the
draft when it is offered (an order); tills post receipts. Every write carries its own
``Idempotency-Key`` and is retried with the same key on a 503 or a dropped connection, as a careful
client does. Every store's daily reports are scheduled inside the fault window.

Phases, ``--phase-s`` each: baseline, worker killed (SIGKILL mid-turn, restarted 5 s later),
Redis stopped, PostgreSQL's connections cut, model server hanging. Then a bounded drain
(``--drain-s``): the answers still pending are followed through their status URLs together;
one still unsettled then is counted as unanswered (the turns worker is stopped before the check,
so nothing is applied after it). The check compares the books with what clients were told:

* lost: a write the client was told was done, missing (count, draft, order, receipt);
* applied twice: one asked write found twice; an email sent twice (files in the mail folder);
* applied, not told: written, but the client saw no success (allowed: it may ask the status URL);
* 500s: any answer with status 500.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "var" / "faults"
PY = str(ROOT / ".venv/bin/python")
CELERY = str(ROOT / ".venv/bin/celery")
PHASES = ("baseline", "worker killed", "redis stopped", "postgres connections cut", "model server hung")
KINDS = ("count", "draft", "order", "receipt")
RETRIES = 4


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


class Topology:
    """Our own Redis, fake model server and app processes, and our own database, each by its pid."""

    def __init__(self, args) -> None:
        self.args = args
        self.procs: dict[str, subprocess.Popen] = {}
        self.admin_url = f"postgresql://postgres@{args.pg_host}:{args.pg_port}/postgres"
        self.env = {
            **os.environ, "DATABASE_URL": f"postgres://postgres@{args.pg_host}:{args.pg_port}/{args.db}",
            "REDIS_URL": f"redis://127.0.0.1:{args.redis_port}/0",
            "CELERY_BROKER_URL": f"amqp://guest:guest@127.0.0.1:5672/{args.vhost}",
            "EMAIL_URL": f"file://{DIR / 'mail'}", "PUBLIC_URL": f"http://127.0.0.1:{args.port}",
            "SHELFWISE_TURN_WAIT_S": str(args.turn_wait_s), "SHELFWISE_WARM_UP": "1",
            "ALLOWED_HOSTS": "127.0.0.1,localhost", "SESSION_COOKIE_SECURE": "false",
            # The clients here are faster than an owner: the per-token limits (30 turns, 60 writes a
            # minute) would answer 429 and hide the faults' own effect.
            "API_TURNS_RATE": "1000/min", "API_WRITES_RATE": "1000/min",
        }
        for role in ("ROUTER", "GUARD", "GENERAL"):
            self.env.update({f"SHELFWISE_{role}_BACKEND": "openai", f"SHELFWISE_{role}_MODEL": "fake",
                             f"SHELFWISE_{role}_URL": f"http://127.0.0.1:{args.model_port}/v1",
                             f"SHELFWISE_{role}_TIMEOUT": "5"})

    def start(self, name: str, command: list[str]) -> None:
        out = open(DIR / f"{name}.log", "ab")  # noqa: SIM115 - kept open for the process's life
        self.procs[name] = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def stop(self, name: str, sig: int = signal.SIGTERM, wait: float = 30) -> None:
        proc = self.procs.pop(name, None)
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, sig)
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)

    def admin(self, *statements: str, db: str = "postgres") -> list:
        """Statements as the superuser (past row-level security), on the maintenance database or ours."""
        import psycopg

        rows = []
        url = self.admin_url.rsplit("/", 1)[0] + f"/{db}"
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            for statement in statements:
                cursor = conn.execute(statement)
                rows.append(cursor.fetchall() if cursor.description else None)
        return rows

    def pg_cut(self) -> int:
        """What a restart does to this database's clients: every session ended, new ones refused for a while."""
        db = self.args.db
        ended = self.admin(
            f'ALTER DATABASE "{db}" ALLOW_CONNECTIONS false',
            f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{db}' AND pid <> pg_backend_pid()",
        )[1][0][0]
        time.sleep(self.args.pg_outage_s)
        self.pg_allow()
        return ended

    def pg_allow(self) -> None:
        self.admin(f'ALTER DATABASE "{self.args.db}" ALLOW_CONNECTIONS true')

    def redis(self) -> None:
        self.start("redis", ["redis-server", "--port", str(self.args.redis_port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"])

    def app(self, name: str) -> None:
        commands = {
            "web": [PY, "-m", "uvicorn", "shelfwise.asgi:application", "--host", "127.0.0.1", "--port",
                    str(self.args.port), "--lifespan", "on", "--no-access-log"],
            "turns": [CELERY, "-A", "shelfwise", "worker", "-Q", "turns", "-P", "threads", "-c", "4", "-n",
                      "faults-turns@%h", "--without-gossip", "--without-mingle"],
            "jobs": [CELERY, "-A", "shelfwise", "worker", "-Q", "jobs,imports", "-P", "threads", "-c", "2", "-n",
                     "faults-jobs@%h", "--without-gossip", "--without-mingle"],
            "beat": [CELERY, "-A", "shelfwise", "beat", "-S", "django_celery_beat.schedulers:DatabaseScheduler",
                     "--pidfile=", "-s", str(DIR / "beat-schedule")],
        }
        self.start(name, commands[name])

    def manage(self, *args: str) -> str:
        return subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=self.env, check=True, capture_output=True,
                              text=True, timeout=600).stdout

    def up(self) -> None:
        shutil.rmtree(DIR, ignore_errors=True)
        (DIR / "mail").mkdir(parents=True)
        db = self.args.db
        self.admin(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)', f'CREATE DATABASE "{db}"')
        for command in (["delete_vhost", self.args.vhost], ["add_vhost", self.args.vhost],
                        ["set_permissions", "-p", self.args.vhost, "guest", ".*", ".*", ".*"]):
            subprocess.run(["rabbitmqctl", *command], capture_output=True)  # a fresh vhost: no old messages
        self.redis()
        self.start("model", [PY, "scripts/fake_model_server.py", "--port", str(self.args.model_port),
                             "--latency-ms", "900", "--jitter-ms", "300"])
        self.manage("migrate", "--noinput", "-v", "0")
        # The owners' token may confirm orders (as the owner's "yes" on the talk page does).
        subprocess.run([PY, "scripts/load.py", "seed", "--stores", str(self.args.stores), "--out",
                        str(DIR / "stores.json"), "--api-scopes", "api,orders:confirm"], cwd=ROOT, env=self.env, check=True)
        for name in ("web", "turns", "jobs", "beat"):
            self.app(name)

    def down(self) -> None:
        for name in list(self.procs):
            self.stop(name)
        try:
            self.pg_allow()
        except Exception as exc:  # noqa: BLE001
            log(f"could not re-allow connections to {self.args.db}: {exc}")


# -- clients ---------------------------------------------------------------------------------------


async def write(client, url: str, body: dict, headers: dict, entry: dict) -> object | None:
    """POST with one idempotency key, retried on anything but a clear answer; the last answer, or None."""
    for attempt in range(RETRIES):
        try:
            answer = await client.post(url, json=body, headers=headers)
            entry["statuses"].append(answer.status_code)
            if answer.status_code in (200, 201, 202):
                return answer
        except Exception as exc:  # noqa: BLE001 - a dropped connection is retried, then counted
            entry["statuses"].append(type(exc).__name__)
        if attempt < RETRIES - 1:
            await asyncio.sleep(1.5)
    return None


async def turn(client, store: dict, text: str, kind: str, number: int, phase: list[str], asked: list[dict],
               conversation: str | None = None) -> dict:
    entry = {"kind": kind, "store": store["slug"], "number": number, "phase": phase[0], "outcome": "no answer",
             "reply": "", "statuses": [], "conversation": None}
    asked.append(entry)
    headers = {"Authorization": f"Bearer {store['api']}", "Idempotency-Key": uuid.uuid4().hex}
    answer = await write(client, "/api/v1/turns", {"text": text, "conversation": conversation}, headers, entry)
    if answer is None:
        last = entry["statuses"][-1] if entry["statuses"] else "?"
        entry["outcome"] = f"refused ({last})"
    elif answer.status_code == 200:
        entry["outcome"], entry["reply"] = "done", answer.json()["reply"]
        entry["conversation"] = answer.json()["conversation"]
    else:  # 202: still running when the server's bound passed; followed at the drain
        entry["outcome"], entry["status_url"] = "pending", answer.json()["status_url"]
    return entry


async def owner(client, store: dict, stop: list[float], phase: list[str], asked: list[dict]) -> None:
    count, qty = 100, 200  # unique per store: each write can be found in the books
    while time.monotonic() < stop[0]:
        count += 1
        await turn(client, store, f"we actually have {count} bags of atta", "count", count, phase, asked)
        if time.monotonic() >= stop[0]:
            break
        qty += 1
        draft = await turn(client, store, f"order {qty} bags of toor dal", "draft", qty, phase, asked)
        if draft["outcome"] == "done" and "Shall I place it" in draft["reply"] and time.monotonic() < stop[0]:
            await turn(client, store, "yes", "order", qty, phase, asked, conversation=draft["conversation"])


MODEL_QUESTIONS = ("what's the capital of australia", "how many grams are in a pound",
                   "tell me something nice about mondays")
UNAVAILABLE = "can't think right now"


async def questioner(client, store: dict, stop: list[float], phase: list[str], model_turns: list[dict]) -> None:
    """Questions no matcher answers (the router model, then the general model), one at a time: the
    model-down bound is measured on turns that need a model, which the owners' writes never do."""
    n = 0
    while time.monotonic() < stop[0]:
        entry = {"phase": phase[0], "text": MODEL_QUESTIONS[n % len(MODEL_QUESTIONS)], "status": None, "reply": ""}
        n += 1
        started = time.perf_counter()
        try:
            answer = await client.post("/api/v1/turns", json={"text": entry["text"]},
                                       headers={"Authorization": f"Bearer {store['api']}"})
            entry["status"] = answer.status_code
            if answer.status_code == 200:
                entry["reply"] = answer.json()["reply"]
        except Exception as exc:  # noqa: BLE001 - a dropped connection is a counted answer
            entry["status"] = type(exc).__name__
        entry["seconds"] = round(time.perf_counter() - started, 2)
        model_turns.append(entry)
        await asyncio.sleep(1)


def model_bound(model_turns: list[dict]) -> dict:
    """Per phase: the model-bound turns, how long they took, and how many said the model was away."""
    out = {}
    for name in PHASES:
        rows = [row for row in model_turns if row["phase"] == name]
        if rows:
            seconds = sorted(row["seconds"] for row in rows)
            out[name] = {"turns": len(rows), "answered 200": sum(row["status"] == 200 for row in rows),
                         "said unavailable": sum(UNAVAILABLE in row["reply"] for row in rows),
                         "p50_s": seconds[len(seconds) // 2], "max_s": seconds[-1],
                         "http 500": sum(row["status"] == 500 for row in rows)}
    return out


async def till(client, store: dict, stop: list[float], phase: list[str], asked: list[dict]) -> None:
    while time.monotonic() < stop[0]:
        key = f"faults-{uuid.uuid4().hex}"
        entry = {"kind": "receipt", "store": store["slug"], "number": key, "phase": phase[0], "outcome": "no answer",
                 "reply": "", "statuses": []}
        asked.append(entry)
        answer = await write(client, "/api/v1/receipts", {"lines": [{"sku": store["sku"], "qty": 1}]},
                             {"Authorization": f"Bearer {store['api']}", "Idempotency-Key": key}, entry)
        entry["outcome"] = "done" if answer is not None else f"refused ({entry['statuses'][-1]})"
        await asyncio.sleep(0.5)


async def follow(client, entry: dict, token: str, deadline: float) -> None:
    """A 202's job, polled until it settles or the drain's bound passes."""
    while time.monotonic() < deadline:
        try:
            answer = await client.get(entry["status_url"], headers={"Authorization": f"Bearer {token}"})
            if answer.status_code == 200:
                status = answer.json()
                if status["status"] == "done":
                    entry["outcome"], entry["reply"] = "done (followed)", status["result"]["reply"]
                    return
                if status["status"] == "failed":
                    entry["outcome"] = f"failed ({(status.get('error') or {}).get('code')})"
                    return
        except Exception:  # noqa: BLE001 - keep polling until the bound
            pass
        await asyncio.sleep(1)
    entry["outcome"] = "unsettled at the end"


async def load_with_faults(top: Topology, args, stores: list[dict], reports_due: float) -> tuple[list[dict], dict]:
    import httpx

    phase = [PHASES[0]]
    asked: list[dict] = []
    notes: dict[str, object] = {}
    model_turns: list[dict] = []
    stop = [time.monotonic() + args.phase_s * len(PHASES)]  # the clients' deadline, moved by a wait
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{args.port}", timeout=60) as client:
        clients = [asyncio.create_task(owner(client, store, stop, phase, asked)) for store in stores[: args.owners]]
        clients += [asyncio.create_task(till(client, store, stop, phase, asked)) for store in stores[: args.tills]]
        clients.append(asyncio.create_task(questioner(client, stores[-1], stop, phase, model_turns)))
        for name in PHASES:
            phase[0] = name
            began = time.monotonic()
            log(f"phase: {name} (load average {loadavg()})")
            if name == "worker killed":
                await asyncio.sleep(3)
                running = top.admin("SELECT count(*) FROM worker_turnjob WHERE status = 'running'", db=args.db)[0][0][0]
                top.stop("turns", signal.SIGKILL)
                notes[name] = f"SIGKILL with {running} turns running; restarted 5 s later"
                await asyncio.sleep(5)
                top.app("turns")
            elif name == "redis stopped":
                top.stop("redis")
                notes[name] = f"redis-server (port {args.redis_port}) stopped for the whole phase"
                await asyncio.sleep(args.phase_s - 1)
                top.redis()
            elif name == "postgres connections cut":
                # Cut 2 s before the daily reports fall due, so beat's tasks meet the refusing database.
                waited = max(0.0, reports_due - 2 - time.time())
                stop[0] += waited  # the load keeps running through the wait, the cut and the phases after
                await asyncio.sleep(waited)
                began = time.monotonic()
                ended = await asyncio.to_thread(top.pg_cut)
                notes[name] = (f"{ended} sessions ended with pg_terminate_backend, new connections refused for "
                               f"{args.pg_outage_s} s (ALLOW_CONNECTIONS false), from 2 s before the reports fell due")
            elif name == "model server hung":
                await client.post(f"http://127.0.0.1:{args.model_port}/control", json={"mode": "hang"})
                notes[name] = "every model call hangs (SHELFWISE_*_TIMEOUT=5 s)"
                await asyncio.sleep(args.phase_s - 1)
                await client.post(f"http://127.0.0.1:{args.model_port}/control", json={"mode": "ok"})
            await asyncio.sleep(max(0.0, args.phase_s - (time.monotonic() - began)))
        log("load stopped; waiting for the clients' last answers")
        await asyncio.gather(*clients)
        tokens = {store["slug"]: store["api"] for store in stores}
        pending = [entry for entry in asked if entry["outcome"] == "pending"]
        log(f"drain: following {len(pending)} answers that were still running (bound {args.drain_s} s)")
        deadline = time.monotonic() + args.drain_s
        await asyncio.gather(*(follow(client, entry, tokens[entry["store"]], deadline) for entry in pending))
    notes["model-bound turns"] = model_bound(model_turns)
    return asked, notes


# -- the check -------------------------------------------------------------------------------------

VERIFY = """
import json, django
django.setup()
from django.db.models import Count
from tenants.rls import bypass
from ledger.models import DraftLine, OrderLine, Receipt, StockEntry
from worker.models import ReportDispatch, TurnJob
with bypass():
    out = {
        "count": list(StockEntry.objects.filter(reason="count", product__name="Atta").values_list("store__slug", "after")),
        "draft": list(DraftLine.objects.filter(product__name="Toor dal").values_list("store__slug", "qty")),
        "order": list(OrderLine.objects.filter(product__name="Toor dal").values_list("store__slug", "qty")),
        "receipt": list(Receipt.objects.filter(idempotency_key__startswith="faults-").values_list("store__slug", "idempotency_key")),
        "jobs": [[s, c, n] for s, c, n in TurnJob.objects.values_list("status", "error_code").annotate(n=Count("id"))],
        "dispatch": list(ReportDispatch.objects.values_list("store__slug", "kind", "status")),
    }
print(json.dumps(out))
"""


def told(entry: dict) -> bool:
    """Whether the client was told this write was done."""
    if entry["kind"] == "receipt":
        return entry["outcome"] == "done"
    if not entry["outcome"].startswith("done"):
        return False
    expected = {"count": f"set to {entry['number']}", "draft": f"drafted an order for {entry['number']}",
                "order": "is placed"}[entry["kind"]]
    return expected in entry["reply"]


def verify(top: Topology, asked: list[dict], expected_emails: int) -> dict:
    """The books and the mail folder against what the clients were told."""
    found = json.loads(subprocess.run([PY, "-c", VERIFY], cwd=ROOT, env={**top.env, "DJANGO_SETTINGS_MODULE": "shelfwise.settings"},
                                      capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    books = {kind: Counter((slug, value) for slug, value in found[kind]) for kind in KINDS}
    subjects = Counter()
    for path in (DIR / "mail").glob("*"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("Subject: "):
                subjects[line] += 1
    phases: dict[str, Counter] = defaultdict(Counter)
    kinds: dict[str, Counter] = defaultdict(Counter)
    for entry in asked:
        times = books[entry["kind"]][(entry["store"], entry["number"])]
        said = told(entry)
        for row in (phases[entry["phase"]], kinds[entry["kind"]]):
            row["asked"] += 1
            row["told done"] += said
            row["clean refusal"] += (not said) and entry["outcome"] != "unsettled at the end"
            row["unsettled at the end"] += entry["outcome"] == "unsettled at the end"
            row["http 500"] += 500 in entry["statuses"]
            row["lost"] += said and times == 0
            row["applied twice"] += times > 1
            row["applied, not told"] += (not said) and times == 1
    return {"phases": {phase: dict(row) for phase, row in phases.items()},
            "kinds": {kind: dict(row) for kind, row in kinds.items()},
            "jobs": found["jobs"],
            "emails": {"expected": expected_emails, "messages": sum(subjects.values()), "distinct": len(subjects),
                       "sent twice": sum(1 for n in subjects.values() if n > 1)},
            "dispatch": dict(Counter(status for _, _, status in found["dispatch"])),
            "outcomes": dict(Counter(f"{e['kind']}: {e['outcome'].split(' (')[0] if e['outcome'].startswith('done') else e['outcome']}" for e in asked))}


def wait_for_emails(top: Topology, expected: int, limit: float) -> None:
    query = "SELECT count(*) FROM worker_reportdispatch WHERE status NOT IN ('pending', 'sending')"
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if top.admin(query, db=top.args.db)[0][0][0] >= expected:
                return
        except Exception:  # noqa: BLE001
            pass
        time.sleep(5)
    log(f"the daily reports had not all settled after {limit:.0f} s")


def report(result: dict, notes: dict) -> None:
    """The run's tables, as Markdown, for the README."""
    columns = ("asked", "told done", "clean refusal", "unsettled at the end", "http 500", "lost", "applied twice",
               "applied, not told")
    print("| phase | what was done | " + " | ".join(columns) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in columns) + " |")
    for phase in PHASES:
        row = result["phases"].get(phase, {})
        print(f"| {phase} | {notes.get(phase, '-')} | " + " | ".join(str(row.get(c, 0)) for c in columns) + " |")
    bound = notes.get("model-bound turns") or {}
    if bound:
        print("\n| phase | model-bound turns | answered 200 | said the model is away | p50 s | max s | http 500 |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for phase, row in bound.items():
            print(f"| {phase} | {row['turns']} | {row['answered 200']} | {row['said unavailable']} | {row['p50_s']} "
                  f"| {row['max_s']} | {row['http 500']} |")
    print()
    print("| write | " + " | ".join(columns) + " |")
    print("| --- | " + " | ".join("---" for _ in columns) + " |")
    for kind in KINDS:
        row = result["kinds"].get(kind, {})
        print(f"| {kind} | " + " | ".join(str(row.get(c, 0)) for c in columns) + " |")
    print(f"\nemails: {result['emails']}; report dispatches: {result['dispatch']}")
    print(f"turn jobs: {result['jobs']}")
    print(f"outcomes: {result['outcomes']}")
    print(f"run {result['run_s']} s; load average at the end {result['loadavg_end']}")



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=int, default=12)
    parser.add_argument("--owners", type=int, default=6)
    parser.add_argument("--tills", type=int, default=3)
    parser.add_argument("--phase-s", type=int, default=25)
    parser.add_argument("--pg-outage-s", type=float, default=5.0)
    parser.add_argument("--drain-s", type=float, default=45.0)
    parser.add_argument("--turn-wait-s", type=float, default=15.0)
    parser.add_argument("--port", type=int, default=8016)
    parser.add_argument("--db", default="sw_load_faults")
    parser.add_argument("--pg-host", default="127.0.0.1")
    parser.add_argument("--pg-port", type=int, default=5432)
    parser.add_argument("--redis-port", type=int, default=6390)
    parser.add_argument("--model-port", type=int, default=8092)
    parser.add_argument("--vhost", default="shelfwise_faults")
    parser.add_argument("--out", default=str(ROOT / "var" / "faults_result.json"))
    args = parser.parse_args()
    top = Topology(args)
    started = time.monotonic()
    try:
        top.up()
        import httpx

        for _ in range(120):  # bounded: the web process answers
            try:
                if httpx.get(f"http://127.0.0.1:{args.port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        # Every store's daily reports fall inside the fault window (the second phase onwards); the
        # till's product per store.
        window = json.loads(top.manage("shell", "-c", "\n".join([
            "import datetime as dt, json", "from zoneinfo import ZoneInfo", "from tenants.models import Store",
            "from tenants.rls import bypass", "from ledger.models import Product",
            "from worker.schedules import store_schedule_sync",
            # Due at a minute inside the PostgreSQL phase, which waits for it (below).
            f"at = dt.datetime.now(ZoneInfo('America/Chicago')) + dt.timedelta(seconds={args.phase_s * 3 + 62})",
            "skus = {}",
            "for s in Store.objects.filter(slug__startswith='load-'):",
            "    s.timezone = 'America/Chicago'; s.report_time = at.time().replace(second=0, microsecond=0); s.save()",
            "    store_schedule_sync(store=s)",
            "    with bypass(): skus[s.slug] = Product.objects.get(store=s, name='Basmati rice').sku",
            "print(json.dumps({'at': at.replace(second=0, microsecond=0).isoformat(),"
            " 'due': at.replace(second=0, microsecond=0).timestamp(), 'skus': skus}))",
        ])).strip().splitlines()[-1])
        stores = json.loads((DIR / "stores.json").read_text())
        for store in stores:
            store["sku"] = window["skus"][store["slug"]]
        log(f"daily reports of {len(stores)} stores due at {window['at']}; load average {loadavg()}")
        asked, notes = asyncio.run(load_with_faults(top, args, stores, window["due"]))
        log("stopping the turns worker (nothing is applied after the check), waiting for the reports")
        top.stop("turns")
        wait_for_emails(top, 2 * len(stores), 60)
        result = verify(top, asked, 2 * len(stores))
        result.update({"notes": notes, "args": vars(args), "run_s": round(time.monotonic() - started),
                       "loadavg_end": loadavg(), "reports_due": window["at"]})
    finally:
        top.down()
    Path(args.out).write_text(json.dumps(result, indent=2))
    report(result, notes)


if __name__ == "__main__":
    sys.exit(main())

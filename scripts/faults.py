"""Fault injection under load: a worker killed mid-turn, Redis stopped, PostgreSQL restarted, the
model server hung; afterwards, nothing lost and nothing applied twice.

    flock /tmp/shelfwise-heavy.lock .venv/bin/python scripts/faults.py --stores 12 --owners 6 --phase-s 20

It runs its OWN PostgreSQL cluster (initdb into var/faults/pg, port 5440), its own Redis
(port 6390) and the fake model server (port 8092), never the machine's shared ones; the broker is
RabbitMQ on 127.0.0.1 (vhost ``shelfwise_faults``). The web process, the turns worker, the jobs
worker and beat are started here (not with honcho, which stops everything when one process dies).

Owners post count changes ("we actually have N bags of atta", N unique per store) with an
``Idempotency-Key``, retrying a 503 or a dropped connection with the same key, as a careful client
does; every store's daily reports are scheduled into the fault window. Phases, each ``--phase-s``
long: baseline, worker killed (SIGKILL mid-turn, restarted 5 s later), Redis stopped, PostgreSQL
restarted, model server hanging (turns time out after 5 s). Then it waits for the queues to drain
and checks the books against what the clients were told:

* lost: a count the owner was told was set, missing from the journal;
* duplicated: one asked count journaled twice; an email sent twice (files in the mail folder);
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
PG_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1] if Path("/usr/lib/postgresql").exists() else None
PY = str(ROOT / ".venv/bin/python")
CELERY = str(ROOT / ".venv/bin/celery")
# PostgreSQL refuses to run as root: as root, its cluster belongs to the postgres user, in /tmp.
AS_PG = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
PG_DIR = Path("/tmp/shelfwise-faults-pg") if os.geteuid() == 0 else DIR / "pg-cluster"
PHASES = ("baseline", "worker killed", "redis stopped", "postgres restarted", "model server hung")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


class Topology:
    """Our own PostgreSQL, Redis and fake model server, and the app's processes, each by its pid."""

    def __init__(self, args) -> None:
        self.args = args
        self.procs: dict[str, subprocess.Popen] = {}
        self.env = {
            **os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:{args.pg_port}/shelfwise",
            "REDIS_URL": f"redis://127.0.0.1:{args.redis_port}/0",
            "CELERY_BROKER_URL": f"amqp://guest:guest@127.0.0.1:5672/{args.vhost}",
            "EMAIL_URL": f"file://{DIR / 'mail'}", "PUBLIC_URL": f"http://127.0.0.1:{args.port}",
            "SHELFWISE_DATA_DIR": str(ROOT / "var"), "SHELFWISE_TURN_WAIT_S": "20", "SHELFWISE_WARM_UP": "1",
        }
        for role in ("ROUTER", "GUARD", "GENERAL"):
            self.env.update({f"SHELFWISE_{role}_BACKEND": "openai", f"SHELFWISE_{role}_MODEL": "fake",
                             f"SHELFWISE_{role}_URL": f"http://127.0.0.1:{args.model_port}/v1",
                             f"SHELFWISE_{role}_TIMEOUT": "5"})

    def start(self, name: str, command: list[str]) -> None:
        out = open(DIR / f"{name}.log", "ab")  # noqa: SIM115 - kept open for the process's life
        self.procs[name] = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def stop(self, name: str, sig: int = signal.SIGTERM) -> None:
        proc = self.procs.pop(name, None)
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, sig)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)

    def pg(self, action: str) -> None:
        subprocess.run([*AS_PG, str(PG_BIN / "pg_ctl"), "-D", str(PG_DIR / "data"), "-w", "-m", "fast", "-l",
                        str(PG_DIR / "pg.log"), "-o", f"-p {self.args.pg_port} -k {PG_DIR}", action],
                       check=True, capture_output=True)

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
                     "--pidfile="],
        }
        self.start(name, commands[name])

    def manage(self, *args: str) -> str:
        return subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=self.env, check=True, capture_output=True,
                              text=True, timeout=600).stdout

    def up(self) -> None:
        shutil.rmtree(DIR, ignore_errors=True)
        shutil.rmtree(PG_DIR, ignore_errors=True)
        (DIR / "mail").mkdir(parents=True)
        PG_DIR.mkdir(parents=True)
        if AS_PG:
            shutil.chown(PG_DIR, "postgres", "postgres")
        subprocess.run([*AS_PG, str(PG_BIN / "initdb"), "-D", str(PG_DIR / "data"), "-U", "postgres", "--auth=trust"],
                       check=True, capture_output=True)
        self.pg("start")
        subprocess.run([str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.args.pg_port), "-U", "postgres",
                        "shelfwise"], check=True)
        subprocess.run(["rabbitmqctl", "add_vhost", self.args.vhost], capture_output=True)
        subprocess.run(["rabbitmqctl", "set_permissions", "-p", self.args.vhost, "guest", ".*", ".*", ".*"],
                       capture_output=True)
        self.redis()
        self.start("model", [PY, "scripts/fake_model_server.py", "--port", str(self.args.model_port),
                             "--latency-ms", "900", "--jitter-ms", "300"])
        self.manage("migrate", "--noinput", "-v", "0")
        subprocess.run([PY, "scripts/load.py", "seed", "--stores", str(self.args.stores), "--out",
                        str(DIR / "stores.json")], cwd=ROOT, env=self.env, check=True)
        for name in ("web", "turns", "jobs", "beat"):
            self.app(name)

    def down(self) -> None:
        for name in list(self.procs):
            self.stop(name)
        try:
            self.pg("stop")
        except subprocess.CalledProcessError:
            pass


async def owner(client, store: dict, stop: float, phase: list[str], asked: list[dict]) -> None:
    headers = {"Authorization": f"Bearer {store['api']}"}
    count = 100
    while time.monotonic() < stop:
        count += 1
        key = uuid.uuid4().hex
        entry = {"store": store["slug"], "count": count, "phase": phase[0], "outcome": None, "statuses": []}
        asked.append(entry)
        for _attempt in range(4):  # a careful client retries with the same key
            try:
                answer = await client.post("/api/v1/turns", json={"text": f"we actually have {count} bags of atta"},
                                           headers={**headers, "Idempotency-Key": key})
                entry["statuses"].append(answer.status_code)
                if answer.status_code == 200:
                    entry["outcome"] = "done:" + answer.json()["reply"]
                    break
                if answer.status_code == 202:
                    entry["outcome"] = "pending"
                    entry["status_url"] = answer.json()["status_url"]
                    break
                entry["outcome"] = f"http {answer.status_code}"
            except Exception as exc:  # noqa: BLE001 - a dropped connection is retried, then counted
                entry["statuses"].append(type(exc).__name__)
                entry["outcome"] = "connection error"
            await asyncio.sleep(2)


async def load_with_faults(top: Topology, args) -> list[dict]:
    import httpx

    stores = json.loads((DIR / "stores.json").read_text())[: args.owners]
    phase = [PHASES[0]]
    asked: list[dict] = []
    total = args.phase_s * len(PHASES)
    stop = time.monotonic() + total
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{args.port}", timeout=60) as client:
        owners = [asyncio.create_task(owner(client, store, stop, phase, asked)) for store in stores]
        for name in PHASES:
            phase[0] = name
            log(f"phase: {name}")
            if name == "worker killed":
                await asyncio.sleep(3)
                top.stop("turns", signal.SIGKILL)
                await asyncio.sleep(5)
                top.app("turns")
                await asyncio.sleep(args.phase_s - 8)
            elif name == "redis stopped":
                top.stop("redis")
                await asyncio.sleep(args.phase_s)
                top.redis()
            elif name == "postgres restarted":
                await asyncio.to_thread(top.pg, "restart")
                await asyncio.sleep(args.phase_s)
            elif name == "model server hung":
                await client.post(f"http://127.0.0.1:{args.model_port}/control", json={"mode": "hang"})
                await asyncio.sleep(args.phase_s)
                await client.post(f"http://127.0.0.1:{args.model_port}/control", json={"mode": "ok"})
            else:
                await asyncio.sleep(args.phase_s)
        await asyncio.gather(*owners)
        for entry in asked:  # answers that were still running when the bound passed
            if entry["outcome"] == "pending":
                for _ in range(120):
                    status = (await client.get(entry["status_url"], headers={"Authorization": f"Bearer {next(s['api'] for s in stores if s['slug'] == entry['store'])}"})).json()
                    if status["status"] in ("done", "failed"):
                        entry["outcome"] = ("done:" + status["result"]["reply"]) if status["status"] == "done" else "failed"
                        break
                    await asyncio.sleep(1)
    return asked


def verify(top: Topology, asked: list[dict]) -> dict:
    """The journal and the mail folder against what the owners were told."""
    script = """
import json, django
django.setup()
from tenants.rls import bypass
from ledger.models import StockEntry
from worker.models import TurnJob, ReportDispatch
with bypass():
    journal = list(StockEntry.objects.filter(reason="count", product__name="Atta").values_list("store__slug", "after"))
    jobs = dict(TurnJob.objects.values_list("status").annotate(n=__import__("django.db.models", fromlist=["Count"]).Count("id")))
    dispatch = list(ReportDispatch.objects.values_list("store__slug", "kind", "status"))
print(json.dumps({"journal": journal, "jobs": jobs, "dispatch": dispatch}))
"""
    found = json.loads(subprocess.run([PY, "-c", script], cwd=ROOT, env={**top.env, "DJANGO_SETTINGS_MODULE": "shelfwise.settings"},
                                      capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    journaled = Counter((slug, after) for slug, after in found["journal"])
    subjects = Counter()
    for path in (DIR / "mail").glob("*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("Subject: "):
                subjects[line] += 1
    rows = defaultdict(Counter)
    for entry in asked:
        row = rows[entry["phase"]]
        row["asked"] += 1
        told_set = (entry["outcome"] or "").startswith("done:") and f"set to {entry['count']}" in entry["outcome"]
        times = journaled[(entry["store"], entry["count"])]
        row["answered (set)"] += told_set
        row["clean refusal (503 / failed / model sentence)"] += not told_set
        row["http 500"] += 500 in entry["statuses"]
        row["lost"] += told_set and times == 0
        row["applied twice"] += times > 1
        row["applied, answer not seen"] += (not told_set) and times == 1
    return {"phases": {phase: dict(row) for phase, row in rows.items()}, "jobs": found["jobs"],
            "emails": {"messages": sum(subjects.values()), "sent twice": sum(1 for n in subjects.values() if n > 1)},
            "dispatch": Counter(status for _, _, status in found["dispatch"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", type=int, default=12)
    parser.add_argument("--owners", type=int, default=6)
    parser.add_argument("--phase-s", type=int, default=20)
    parser.add_argument("--port", type=int, default=8016)
    parser.add_argument("--pg-port", type=int, default=5440)
    parser.add_argument("--redis-port", type=int, default=6390)
    parser.add_argument("--model-port", type=int, default=8092)
    parser.add_argument("--vhost", default="shelfwise_faults")
    parser.add_argument("--out", default=str(ROOT / "var" / "faults_result.json"))
    args = parser.parse_args()
    if PG_BIN is None:
        raise SystemExit("PostgreSQL's server binaries (initdb, pg_ctl) are needed.")
    top = Topology(args)
    try:
        top.up()
        import httpx

        for _ in range(120):  # bounded: the web process answers, the turns worker has warmed
            try:
                if httpx.get(f"http://127.0.0.1:{args.port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        # Every store's daily reports fall inside the fault window.
        top.manage("shell", "-c", "\n".join([
            "import datetime as dt", "from zoneinfo import ZoneInfo", "from tenants.models import Store",
            "from worker.schedules import store_schedule_sync",
            f"at = (dt.datetime.now(ZoneInfo('America/Chicago')) + dt.timedelta(seconds={args.phase_s * 2 + 60})).time()",
            "for s in Store.objects.filter(slug__startswith='load-'):",
            "    s.report_time = at.replace(second=0, microsecond=0); s.save(); store_schedule_sync(store=s)",
        ]))
        asked = asyncio.run(load_with_faults(top, args))
        log("draining")
        time.sleep(30)
        result = verify(top, asked)
    finally:
        top.down()
    Path(args.out).write_text(json.dumps(result, indent=2))
    print("| phase | asked | answered (set) | clean refusal | http 500 | lost | applied twice | applied, answer not seen |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for phase in PHASES:
        row = result["phases"].get(phase, {})
        print(f"| {phase} | {row.get('asked', 0)} | {row.get('answered (set)', 0)} | "
              f"{row.get('clean refusal (503 / failed / model sentence)', 0)} | {row.get('http 500', 0)} | "
              f"{row.get('lost', 0)} | {row.get('applied twice', 0)} | {row.get('applied, answer not seen', 0)} |")
    print(f"turn jobs: {result['jobs']}; emails: {result['emails']}; report dispatches: {dict(result['dispatch'])}")


if __name__ == "__main__":
    sys.exit(main())

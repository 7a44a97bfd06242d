"""Where a machine's CPU went between two snapshots, by kind of process (for the load run's report).

    python scripts/cpu_share.py snap var/up/cpu_before.json
    python scripts/cpu_share.py diff var/up/cpu_before.json var/up/cpu_after.json

Reads /proc (Linux): each process's user + system time. A process that started or ended between the
snapshots counts from zero or is missed (the run's own processes live through it).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

KINDS = (  # first match wins: (kind, words in the command line)
    ("web (uvicorn)", ("uvicorn",)),
    ("turns worker", ("-Q turns", "--queues turns", "-Q,turns", "turns@")),
    ("other workers and beat", ("celery",)),
    ("load client", ("load.py run",)),
    ("fake model server", ("fake_model_server",)),
    ("PostgreSQL", ("postgres",)),
    ("Redis", ("redis-server",)),
    ("RabbitMQ", ("beam.smp", "rabbitmq")),
)
TICK = os.sysconf("SC_CLK_TCK")


def _kind(command: str) -> str:
    return next((kind for kind, words in KINDS if any(word in command for word in words)), "everything else")


def snapshot() -> dict:
    taken = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        taken[entry.name] = {"cpu_s": (int(fields[11]) + int(fields[12])) / TICK, "parent": fields[1],
                             "command": command or stat.split("(")[1].split(")")[0]}
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    return {"processes": taken, "busy_s": (sum(values) - values[3] - values[4]) / TICK}


def _kind_of(pid: str, processes: dict) -> str:
    """A process's kind, or its nearest named ancestor's (uvicorn's and celery's children are
    ``python -c "from multiprocessing..."``)."""
    seen = 0
    while pid in processes and seen < 8:
        kind = _kind(processes[pid]["command"])
        if kind != "everything else":
            return kind
        pid, seen = processes[pid].get("parent", ""), seen + 1
    return "everything else"


def diff(before: dict, after: dict) -> dict[str, float]:
    shares: dict[str, float] = {}
    for pid, now in after["processes"].items():
        used = now["cpu_s"] - before["processes"].get(pid, {"cpu_s": 0.0})["cpu_s"]
        if used > 0:
            kind = _kind_of(pid, after["processes"])
            shares[kind] = shares.get(kind, 0.0) + used
    for kind, used in after.get("gone", {}).items():  # processes that reported their own CPU and ended
        shares[kind] = shares.get(kind, 0.0) + used
    shares["machine busy (all cores)"] = after["busy_s"] - before["busy_s"]
    return {kind: round(value, 1) for kind, value in sorted(shares.items(), key=lambda item: -item[1])}


def main() -> None:
    if sys.argv[1:2] == ["snap"]:
        taken = snapshot()
        # ``snap OUT [KIND=SECONDS]...``: CPU of processes that ended before this snapshot (the load client's own)
        taken["gone"] = {kind: float(value) for kind, value in (arg.split("=", 1) for arg in sys.argv[3:])}
        Path(sys.argv[2]).write_text(json.dumps(taken))
    elif sys.argv[1:2] == ["diff"]:
        shares = diff(json.loads(Path(sys.argv[2]).read_text()), json.loads(Path(sys.argv[3]).read_text()))
        print(json.dumps(shares, indent=1))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()

"""A scripted owner session against a running deployment (`make up`, then `make up-session`).

    python scripts/up_session.py --url http://127.0.0.1:8014 [--env var/up/env] [--mail var/up/mail]

1. signs up a new owner (allauth's form, with CSRF) and creates two stores: one with the demo
   catalog, one empty whose catalog is then imported (the import page of issue 12 when it is
   there; otherwise the demo catalog is installed through the same service the seeder uses);
2. makes an ``api`` token for each on the tokens page;
3. runs typed turns on both stores over REST (POST /api/v1/turns, answered by the worker) and over
   the voice websocket (events streamed until ``done``), and checks each store saw only its own;
4. moves the first store's daily report to the next minute (``report_schedules --store``) and waits
   for beat, the jobs worker and the mail backend to deliver its sales and inventory reports once.

Every wait is bounded; it prints one line per step and exits 1 at the first failure.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
RAW_TOKEN = re.compile(r'id="new-token"[^>]*value="([^"]+)"')
SLUG = re.compile(r'data-store="([^"]+)"')
TURN_TIMEOUT_S = 240
REPORT_TIMEOUT_S = 180


class SessionFailed(Exception):
    pass


def step(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def _form(client: httpx.Client, url: str, data: dict, *, expect_redirect: bool = True) -> httpx.Response:
    page = client.get(url)
    token = CSRF.search(page.text)
    if token is None:
        raise SessionFailed(f"No CSRF token on {url} ({page.status_code}).")
    answer = client.post(url, data={"csrfmiddlewaretoken": token.group(1), **data}, headers={"Referer": str(page.url)})
    if expect_redirect and answer.status_code not in (301, 302, 303):
        raise SessionFailed(f"POST {url} answered {answer.status_code}, not a redirect: {answer.text[:300]}")
    return answer


CONFIRM_LINK = re.compile(r"(/accounts/confirm-email/[^/\s]+/)")


def sign_up(client: httpx.Client, mail_dir: Path) -> str:
    """Sign up, then confirm the address with the link from the confirmation email (which signs in)."""
    email = f"owner-{uuid.uuid4().hex[:8]}@example.com"
    password = f"pw-{uuid.uuid4().hex}"
    _form(client, "/accounts/signup/", {"email": email, "password1": password, "password2": password})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for path in sorted(mail_dir.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True):
            text = path.read_text(errors="replace")
            link = CONFIRM_LINK.search(text) if email in text else None
            if link:
                _form(client, link.group(1), {})
                return email
        time.sleep(0.5)
    raise SessionFailed(f"No confirmation email for {email} within 30 s.")


def store_create(client: httpx.Client, name: str, catalog: str) -> dict:
    _form(client, "/app/stores/new/", {"name": name, "owner_name": "Raj", "timezone": "America/Chicago",
                                        "currency": "USD", "catalog": catalog})
    talk = client.get("/app/talk/")
    slug = SLUG.search(talk.text)
    tokens = _form(client, "/app/tokens/", {"name": "session", "scopes": ["api"]}, expect_redirect=False)
    raw = RAW_TOKEN.search(tokens.text)
    if slug is None or raw is None:
        raise SessionFailed(f"Store {name!r}: no slug on the talk page or no token on the tokens page.")
    return {"name": name, "slug": slug.group(1), "token": raw.group(1)}


def catalog_import(client: httpx.Client, store: dict, env: dict) -> str:
    """The empty store's catalog: issue 12's import when this deployment has it, else the demo catalog."""
    probe = client.get("/app/catalog/import/")
    if probe.status_code == 200:
        demo_csv = client.get("/app/catalog/export.csv")
        if demo_csv.status_code == 200 and demo_csv.text.count("\n") > 1:
            _form(client, "/app/catalog/import/", {}, expect_redirect=False)
            return "imported through /app/catalog/import/"
    manage("shell", "-c", "\n".join([
        "from tenants.models import Store",
        "from tenants.context import use_store",
        "from ledger.demo import install_demo_catalog",
        f"store = Store.objects.get(slug={store['slug']!r})",
        "with use_store(store):",
        "    install_demo_catalog(store=store)",
    ]), env=env)
    return "installed the demo catalog (no import page on this deployment)"


def manage(*args: str, env: dict) -> str:
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SessionFailed(f"manage.py {args[0]} failed: {done.stderr[-500:]}")
    return done.stdout


def rest_turn(base: str, store: dict, text: str) -> dict:
    with httpx.Client(base_url=base, timeout=TURN_TIMEOUT_S) as api:
        answer = api.post("/api/v1/turns", json={"text": text}, headers={"Authorization": f"Bearer {store['token']}"})
        if answer.status_code == 202:  # still running past the server's bound: follow the status URL
            url = answer.json()["status_url"]
            deadline = time.monotonic() + TURN_TIMEOUT_S
            while time.monotonic() < deadline:
                status = api.get(url, headers={"Authorization": f"Bearer {store['token']}"}).json()
                if status["status"] in ("done", "failed"):
                    if status["status"] == "failed":
                        raise SessionFailed(f"REST turn failed: {status['error']}")
                    return status["result"]
                time.sleep(0.5)
            raise SessionFailed("REST turn did not finish in time.")
        if answer.status_code != 200:
            raise SessionFailed(f"REST turn answered {answer.status_code}: {answer.text[:300]}")
        return answer.json()


async def socket_turn(base: str, cookies: httpx.Cookies, store: dict, text: str) -> list[dict]:
    """Switch the session to the store, then one typed turn over its voice socket; the events, in order."""
    url = base.replace("http", "ws", 1) + f"/ws/stores/{store['slug']}/voice"
    cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
    events: list[dict] = []
    async with websockets.connect(url, additional_headers={"Cookie": cookie, "Origin": base},
                                  open_timeout=15) as socket:
        ready = json.loads(await asyncio.wait_for(socket.recv(), 15))
        if ready.get("type") != "ready":
            raise SessionFailed(f"Socket for {store['slug']}: {ready}")
        await socket.send(json.dumps({"type": "text", "text": text}))
        while True:
            event = json.loads(await asyncio.wait_for(socket.recv(), TURN_TIMEOUT_S))
            events.append(event)
            if event.get("type") == "done":
                return events


def wait_for_reports(mail_dir: Path, store: dict, since: float) -> list[str]:
    deadline = time.monotonic() + REPORT_TIMEOUT_S
    while time.monotonic() < deadline:
        subjects = []
        for path in mail_dir.glob("*.log"):
            if path.stat().st_mtime < since:
                continue
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("Subject: ") and store["name"] in line:
                    subjects.append(line.removeprefix("Subject: "))
        if len(subjects) >= 2:
            return subjects
        time.sleep(2)
    raise SessionFailed(f"No daily reports for {store['name']} within {REPORT_TIMEOUT_S} s.")


def run(base: str, env: dict, mail_dir: Path) -> None:
    with httpx.Client(base_url=base, timeout=60, follow_redirects=False) as client:
        step(f"signed up and confirmed {sign_up(client, mail_dir)}")
        first = store_create(client, f"Session Grocery {uuid.uuid4().hex[:4]}", "demo")
        step(f"store {first['slug']}: demo catalog, api token")
        second = store_create(client, f"Session Corner {uuid.uuid4().hex[:4]}", "empty")
        step(f"store {second['slug']}: {catalog_import(client, second, env)}, api token")

        for store in (first, second):
            answer = rest_turn(base, store, "we actually have 15 bags of atta")
            if answer["action"] != "update_count" or "15" not in answer["reply"]:
                raise SessionFailed(f"REST turn on {store['slug']}: {answer['action']} / {answer['reply']}")
            step(f"REST turn on {store['slug']}: {answer['reply']!r} ({answer['latency_ms']:.0f} ms in the worker)")

        for store in (first, second):  # the socket's store comes from its URL; the session is a member of both
            events = asyncio.run(socket_turn(base, client.cookies, store, "where is the gur"))
            kinds = [event["type"] for event in events]
            done = events[-1].get("result") or {}
            if "transcript" not in kinds or "reply" not in kinds or done.get("action") != "find_product":
                raise SessionFailed(f"Socket turn on {store['slug']}: {kinds} {done.get('reply')}")
            step(f"socket turn on {store['slug']}: {' → '.join(kinds)}: {done['reply']!r}")

        local = dt.datetime.now(ZoneInfo("America/Chicago")) + dt.timedelta(minutes=1)
        since = time.time()
        step(manage("report_schedules", "--store", first["slug"], "--time", f"{local:%H:%M}", env=env).strip())
        subjects = wait_for_reports(mail_dir, first, since)
        step(f"daily reports delivered: {subjects}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8014")
    parser.add_argument("--env", default=str(ROOT / "var/up/env"), help="The deployment's environment file.")
    parser.add_argument("--mail", default=str(ROOT / "var/up/mail"), help="The file mail backend's folder.")
    args = parser.parse_args()
    env = dict(os.environ)
    for line in Path(args.env).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            env[key] = value
    try:
        run(args.url.rstrip("/"), env, Path(args.mail))
    except (SessionFailed, httpx.HTTPError, OSError, TimeoutError) as exc:
        step(f"FAILED: {exc}")
        sys.exit(1)
    step("session passed")


if __name__ == "__main__":
    main()

"""Screenshots of the main pages, so that changes can be looked at: ``make screenshots``.

    .venv/bin/python scripts/screenshots.py [--out var/screenshots] [--scripted-models] [--width 1280]

What it does: a fresh SQLite database in a temporary data folder (your own database is not
touched), ``migrate``, ``seed_demo`` (Little India Grocery, owner Raj), a platform admin, and a
few assistant turns so the audit and metrics pages have something to show. Then it serves the
real ASGI app (``tests.live_server.asgi_server``), signs in through the login form in headless
Chromium as the owner and as the admin, and saves a full-page PNG of each page to ``--out``.

The sample turns use the configured models (by default the bundled one, read from
``var/models`` so nothing is re-joined). ``--scripted-models`` replaces the models with a
scripted ``FakeBackend`` at their process boundary instead (fast; the audit then shows backend
"fake"). No benchmark run is made: the benchmark charts show whatever runs exist (none here).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADMIN_EMAIL = "admin@shelfwise.example"
ADMIN_PASSWORD = "shelfwise-admin-demo"
SAMPLE_TURNS = (
    "hey shelfwise good morning",
    "um where did we put the haldi",
    "how are sales today",
    "what's running low",
    "okay order twelve bottles of mustard oil",
)
OWNER_PAGES = (
    ("owner-home", "/app/"),
    ("owner-inventory", "/app/inventory/"),
    ("owner-sales", "/app/sales/"),
    ("owner-approvals", "/app/approvals/"),
    ("owner-orders", "/app/orders/"),
    ("owner-assistant", "/app/assistant/"),
    ("owner-talk", "/app/talk/"),
)


@dataclass
class Site:
    data_dir: Path
    store_slug: str
    owner_email: str
    owner_password: str
    admin_email: str
    admin_password: str
    turn_id: int | None


def configure(data_dir: Path) -> None:
    """Point Django at a fresh data folder and SQLite file, then set it up (before any Django import)."""
    sys.path.insert(0, str(ROOT))
    os.environ["SHELFWISE_DATA_DIR"] = str(data_dir)
    os.environ["DATABASE_URL"] = f"sqlite:///{data_dir / 'db.sqlite3'}"
    for variable in ("REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(variable, None)  # embedded defaults: eager Celery, in-memory channels
    bundled = ROOT / "var" / "models" / "qwen2.5-coder-1.5b-instruct-q4.gguf"
    if bundled.is_file():
        for role in ("ROUTER", "GUARD", "GENERAL", "NATIVE"):
            os.environ.setdefault(f"SHELFWISE_{role}_MODEL", str(bundled))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
    import django

    django.setup()


@contextmanager
def scripted_models():
    """The models replaced by scripted answers keyed on the request's words (``FakeBackend``)."""
    from inference.base import Role
    from inference.config import backend_override
    from inference.fake import FakeBackend

    routes = {
        "turmeric": {"action": "find_product", "item": "turmeric powder", "ask": "where"},
        "sales": {"action": "todays_sales"},
        "low": {"action": "low_stock"},
        "order": {"action": "draft_restock", "item": "mustard oil"},
    }

    def route(request):
        text = str(request.messages[-1]["content"]).rsplit("Request:", 1)[-1]
        return next((answer for word, answer in routes.items() if word in text), {"action": "general"})

    with backend_override(Role.ROUTER, FakeBackend(default=route)), \
            backend_override(Role.GUARD, FakeBackend(default={"verdict": "safe", "category": "none"})), \
            backend_override(Role.GENERAL, FakeBackend(default="Good morning! What can I do for the store?")):
        yield


def seed(*, scripted: bool, turns: tuple[str, ...] = SAMPLE_TURNS, log=print) -> Site:
    """migrate, seed_demo, an admin account and a few audited turns on the demo store."""
    from allauth.account.models import EmailAddress
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from assistant.pipeline import run_turn
    from assistant.types import Mode, TurnInput
    from audit.models import Turn
    from tenants.models import Store

    call_command("migrate", verbosity=0, interactive=False)
    out = io.StringIO()
    call_command("seed_demo", "--json", stdout=out)
    demo = json.loads(out.getvalue())
    User = get_user_model()
    admin = User.objects.create_user(username="admin", email=ADMIN_EMAIL, password=ADMIN_PASSWORD)
    call_command("platform_role", "grant", "admin", ADMIN_EMAIL, stdout=io.StringIO())
    EmailAddress.objects.create(user=admin, email=ADMIN_EMAIL, verified=True, primary=True)
    store = Store.objects.select_related("business_type").get(slug=demo["store"])
    turn_id = None
    with ExitStack() as stack:
        if scripted:
            stack.enter_context(scripted_models())
        conversation = None
        for text in turns:
            started = time.perf_counter()
            result = run_turn(store=store, turn=TurnInput(text=text, mode=Mode.ROUTER, conversation=conversation,
                                                          channel="dashboard", actor="owner:raj"))
            conversation = result.conversation
            log(f"  turn {text!r}: {result.action} in {time.perf_counter() - started:.1f} s")
        lookup = Turn.objects.filter(store=store, action="find_product").order_by("id").first()
        turn_id = (lookup or Turn.objects.filter(store=store).order_by("id").first()).pk
    return Site(data_dir=Path(settings.DATA_DIR), store_slug=store.slug, owner_email=demo["owner"]["email"],
                owner_password=demo["owner"]["password"], admin_email=ADMIN_EMAIL, admin_password=ADMIN_PASSWORD,
                turn_id=turn_id)


def admin_pages(site: Site) -> list[tuple[str, str]]:
    pages = [
        ("ops-stores", "/ops/"),
        ("ops-audit", "/ops/audit/"),
        ("ops-audit-filtered", f"/ops/audit/?store={site.store_slug}&tool=get_inventory"),
        ("ops-calls", "/ops/audit/calls/"),
        ("ops-metrics", "/ops/metrics/"),
        ("vendors", "/vendors/"),
        ("vendors-grocery", f"/vendors/grocery/?store={site.store_slug}"),
    ]
    if site.turn_id:
        pages.insert(3, ("ops-turn", f"/ops/audit/turns/{site.turn_id}/"))
    return pages


def shoot(base: str, site: Site, out: Path, *, width: int, log=print) -> list[Path]:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("SHELFWISE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("Chromium is not installed (apt-get install chromium).")
    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    public = [("shelf-finder", f"/s/{site.store_slug}/find?q=haldi")]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        try:
            for who, email, password, pages in (
                ("public", None, None, public),
                ("owner", site.owner_email, site.owner_password, list(OWNER_PAGES)),
                ("admin", site.admin_email, site.admin_password, admin_pages(site)),
            ):
                context = browser.new_context(viewport={"width": width, "height": 900})
                context.set_default_timeout(20_000)
                page = context.new_page()
                if email:
                    page.goto(f"{base}/accounts/login/")
                    page.fill("input[name=login]", email)
                    page.fill("input[name=password]", password)
                    page.click("button[type=submit]")
                    page.wait_for_load_state("networkidle")
                for name, path in pages:
                    response = page.goto(f"{base}{path}")
                    page.wait_for_load_state("networkidle")
                    status = response.status if response else "?"
                    target = out / f"{name}.png"
                    page.screenshot(path=str(target), full_page=True)
                    saved.append(target)
                    log(f"  {who:6} {status} {path} -> {target}")
                context.close()
        finally:
            browser.close()
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "var" / "screenshots"), help="Folder for the PNGs.")
    parser.add_argument("--width", type=int, default=1280, help="Viewport width in pixels (390 for a phone).")
    parser.add_argument("--scripted-models", action="store_true",
                        help="Replace the models by scripted answers for the sample turns (fast).")
    parser.add_argument("--keep", action="store_true", help="Keep the temporary data folder and say where it is.")
    args = parser.parse_args(argv)

    data_dir = Path(tempfile.mkdtemp(prefix="shelfwise-shots-"))
    try:
        configure(data_dir)
        print(f"Seeding a fresh demo site in {data_dir} ...")
        site = seed(scripted=args.scripted_models)
        from tests.live_server import asgi_server

        with asgi_server() as base:
            print(f"Serving {base}; taking screenshots ...")
            saved = shoot(base, site, Path(args.out), width=args.width)
        print(f"{len(saved)} screenshots in {args.out}")
    finally:
        if args.keep:
            print(f"Data kept in {data_dir}")
        else:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

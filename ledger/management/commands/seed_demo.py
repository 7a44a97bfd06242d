"""``python manage.py seed_demo``: the demo store Little India Grocery, its owner Raj and two store tokens."""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils.text import slugify

from ledger.demo import install_demo_catalog
from ledger.errors import LedgerError
from ledger.models import Product
from tenants.context import use_store
from tenants.models import Membership, Store, StoreToken
from tenants.services import (
    membership_add,
    store_create,
    store_delete,
    token_create,
    token_revoke,
)

logger = logging.getLogger(__name__)

ACTOR = "system:seed"
STORE_NAME = "Little India Grocery"
OWNER_EMAIL = "raj@little-india.example"
OWNER_NAME = "Raj"
STAFF_EMAIL = "priya@little-india.example"
STAFF_NAME = "Priya"
TIMEZONE = "America/Chicago"
CURRENCY = "USD"
BUSINESS_TYPE = "grocery"
# Tokens issued by this command: key in the JSON -> (name, scopes, whose). Earlier ones with these
# names are revoked on reissue. ``api`` is the owner's own (it may confirm orders, so an owner's
# "yes" through it still places one); ``staff`` is a staff member's, which cannot.
DEMO_TOKENS = {
    "api": ("Demo API token", ["api", "orders:confirm"], "owner"),
    "mcp": ("Demo MCP token", ["mcp"], "owner"),
    "staff": ("Demo staff API token", ["api"], "staff"),
}


class Command(BaseCommand):
    help = "Create the demo store Little India Grocery (owner Raj) with its catalog, sales and tokens."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--slug", default=None, help="The store's slug (default: DEMO_STORE_SLUG, little-india).")
        parser.add_argument("--seed", type=int, default=7, help="Seed for the generated sales (default 7).")
        parser.add_argument("--reset", action="store_true", help="Delete this store (only this one) and create it again.")
        parser.add_argument(
            "--if-missing",
            action="store_true",
            help="If the store exists, keep its books; only issue fresh tokens and print the login.",
        )
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print one JSON object and nothing else.")

    def handle(self, *args, **options) -> None:
        slug = options["slug"] or settings.DEMO_STORE_SLUG
        if slugify(slug) != slug or len(slug) > 50:
            raise CommandError(f"{slug!r} is not a store slug: use lower-case letters, digits and hyphens.")
        if options["reset"] and options["if_missing"]:
            raise CommandError("Use either --reset or --if-missing, not both.")
        password = settings.DEMO_OWNER_PASSWORD
        if not password:
            raise CommandError("DEMO_OWNER_PASSWORD is empty; set a password for the demo owner.")

        try:
            with transaction.atomic():
                store, created = self._store(slug, options)
                tokens = self._tokens(store)
        except (LedgerError, ValidationError) as exc:
            raise CommandError(f"The demo store could not be created: {_message(exc)}") from exc

        if options["as_json"]:
            payload = {
                "store": store.slug,
                "owner": {"email": OWNER_EMAIL, "password": password},
                "staff": {"email": STAFF_EMAIL, "password": password},
                "tokens": tokens,
            }
            self.stdout.write(json.dumps(payload))
            return
        state = "created" if created else "already there; its books were kept"
        self.stdout.write(self.style.SUCCESS(f'Demo store "{store.name}" ({store.slug}) {state}.'))
        self.stdout.write(f"  Sign in:   {settings.PUBLIC_URL}/accounts/login/")
        self.stdout.write(f"  Owner:     {OWNER_EMAIL} / {password}")
        self.stdout.write(f"  API token: {tokens['api']}")
        self.stdout.write(f"  MCP token: {tokens['mcp']}")
        self.stdout.write(f"  Staff:     {STAFF_EMAIL} / {password} (API token {tokens['staff']}, cannot confirm orders)")
        self.stdout.write("  (Tokens are shown once; run this again for fresh ones.)")

    def _store(self, slug: str, options: dict) -> tuple[Store, bool]:
        existing = Store.objects.filter(slug=slug).first()
        owner = _owner(settings.DEMO_OWNER_PASSWORD)
        if existing is not None and options["if_missing"]:
            membership_add(store=existing, user=owner, role=Membership.Role.OWNER)
            return existing, False
        if existing is not None and not options["reset"]:
            raise CommandError(
                f"The store {slug!r} already exists. Use --reset to recreate it or --if-missing to keep it."
            )
        if existing is not None:
            _delete(existing)
        store = store_create(
            name=STORE_NAME,
            slug=slug,
            business_type=BUSINESS_TYPE,
            timezone=TIMEZONE,
            currency=CURRENCY,
            owner=owner,
            owner_name=OWNER_NAME,
        )
        with use_store(store):
            install_demo_catalog(store=store, seed=options["seed"], actor=ACTOR)
        return store, True

    def _tokens(self, store: Store) -> dict[str, str]:
        names = [name for name, _scopes, _whose in DEMO_TOKENS.values()]
        with use_store(store):  # the store's tokens are fenced: read them in its context
            earlier = list(StoreToken.objects.filter(store=store, name__in=names, revoked_at__isnull=True))
        for token in earlier:
            token_revoke(store=store, token_id=token.pk, actor=ACTOR)
        people = {"owner": _person(OWNER_EMAIL, OWNER_NAME, settings.DEMO_OWNER_PASSWORD),
                  "staff": _person(STAFF_EMAIL, STAFF_NAME, settings.DEMO_OWNER_PASSWORD)}
        membership_add(store=store, user=people["staff"], role=Membership.Role.STAFF)
        return {
            key: token_create(store=store, name=name, scopes=scopes, created_by=people[whose])[1]
            for key, (name, scopes, whose) in DEMO_TOKENS.items()
        }


def _owner(password: str):
    return _person(OWNER_EMAIL, OWNER_NAME, password)


def _person(email: str, name: str, password: str):
    """Raj or Priya, with the demo password (set again if it was changed, so the printed login works)."""
    User = get_user_model()
    user = User.objects.filter(email__iexact=email).order_by("pk").first()
    if user is None:
        fields = {"email": email}
        if User.USERNAME_FIELD != "email":
            fields[User.USERNAME_FIELD] = email
        if hasattr(User, "first_name"):
            fields["first_name"] = name
        user = User.objects.create_user(password=password, **fields)
    elif not user.check_password(password):
        user.set_password(password)
        user.save(update_fields=["password"])
    if "allauth.account" in settings.INSTALLED_APPS:
        from allauth.account.models import EmailAddress

        EmailAddress.objects.update_or_create(
            user=user, email__iexact=email, defaults={"email": email, "verified": True, "primary": True}
        )
    return user


def _delete(store: Store) -> None:
    """Delete the one store and, once that commits, its shelf photo files."""
    with use_store(store):
        photos = [name for name in Product.objects.filter(store=store).values_list("photo", flat=True) if name]
    store_delete(store=store, actor=ACTOR)
    def delete_photos() -> None:
        for name in photos:
            default_storage.delete(name)

    transaction.on_commit(delete_photos)


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    return str(exc)

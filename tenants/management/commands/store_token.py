"""Create a store token (printed once, on stdout) or revoke one by its prefix."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants import rls
from tenants.errors import TenantError
from tenants.models import Store, StoreToken
from tenants.services import VALID_SCOPES, token_create, token_revoke


class Command(BaseCommand):
    help = (
        "Create a store token: `store_token --store SLUG --scope mcp [--scope api] [--name NAME]` prints the "
        "token once on stdout (its id and prefix on stderr). `store_token --revoke PREFIX` revokes one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--store", help="The store's slug.")
        parser.add_argument(
            "--scope", action="append", dest="scopes", choices=VALID_SCOPES, help="A scope; repeat for several."
        )
        parser.add_argument("--name", default="", help="What the token is for (default: 'CLI token').")
        parser.add_argument("--revoke", metavar="PREFIX", help="Revoke the token with this prefix.")

    def handle(self, *args, **options) -> None:
        if options["revoke"]:
            self._revoke(options["revoke"], options["store"])
            return
        if not options["store"]:
            raise CommandError("Name the store: --store SLUG.")
        if not options["scopes"]:
            raise CommandError(f"Give at least one --scope ({', '.join(VALID_SCOPES)}).")
        store = self._store(options["store"])
        try:
            token, raw = token_create(store=store, name=options["name"] or "CLI token", scopes=options["scopes"])
        except TenantError as exc:
            raise CommandError(exc.message) from exc
        self.stderr.write(
            f"Created token {token.pk} (prefix {token.prefix}) for {store.slug} with scopes "
            f"{', '.join(token.scopes)}. It is shown only once:"
        )
        self.stdout.write(raw)

    def _store(self, slug: str) -> Store:
        try:
            return Store.objects.get(slug=slug)
        except Store.DoesNotExist:
            raise CommandError(f"No store with the slug {slug!r}.") from None

    def _revoke(self, prefix: str, slug: str | None) -> None:
        prefix = prefix.strip()
        if prefix.startswith("sw_"):
            prefix = prefix.split("_")[1]
        tokens = StoreToken.objects.select_related("store").filter(prefix=prefix)
        if slug:
            tokens = tokens.filter(store__slug=slug)
        with rls.bypass():  # the operator's command: the prefix may belong to any store
            token = tokens.first()
        if token is None:
            raise CommandError(f"No token with the prefix {prefix!r}" + (f" in {slug!r}." if slug else "."))
        token_revoke(store=token.store, token_id=token.pk, actor="system:cli")
        self.stderr.write(f"Revoked token {token.pk} (prefix {token.prefix}) of {token.store.slug}.")

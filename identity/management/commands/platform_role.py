"""``manage.py platform_role grant|revoke admin|vendor EMAIL``: the platform-wide permissions."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError, CommandParser

ROLES = {"admin": "platform_admin", "vendor": "vendor"}


class Command(BaseCommand):
    help = "Grant or revoke the platform admin or vendor permission (not is_staff)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["grant", "revoke"])
        parser.add_argument("role", choices=sorted(ROLES))
        parser.add_argument("email")

    def handle(self, *args, action: str, role: str, email: str, **options) -> None:
        user = get_user_model().objects.filter(email__iexact=email).order_by("pk").first()
        if user is None:
            raise CommandError(f"No user with the email {email!r}.")
        permission = Permission.objects.get(content_type__app_label="identity", codename=ROLES[role])
        if action == "grant":
            user.user_permissions.add(permission)
        else:
            user.user_permissions.remove(permission)
        self.stdout.write(f"{action.capitalize()}: {role} for {user.email}.")

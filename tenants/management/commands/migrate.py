"""Django's ``migrate``, run as the login role past row-level security (see ``tenants.rls``).

Migrations create tables, roles and policies and move every store's rows, so they are platform
maintenance. Test-database setup calls this command too.
"""

from __future__ import annotations

from django.core.management.commands.migrate import Command as MigrateCommand

from tenants import rls


class Command(MigrateCommand):
    def handle(self, *args, **options):
        with rls.repairing():
            return super().handle(*args, **options)

"""Django's ``flush``, run as the login role: it empties every store's tables (TRUNCATE, which the app role may not run).

Test teardown of transactional tests calls this command.
"""

from __future__ import annotations

from django.core.management.commands.flush import Command as FlushCommand

from tenants import rls


class Command(FlushCommand):
    def handle(self, *args, **options):
        with rls.bypass():
            return super().handle(*args, **options)

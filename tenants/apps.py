from django.apps import AppConfig
from django.db.models.signals import post_migrate


class TenantsConfig(AppConfig):
    name = "tenants"
    verbose_name = "Stores and credentials"

    def ready(self) -> None:
        from tenants import checks, rls  # noqa: F401 - registers the system checks

        # Fence store-scoped tables created by migrations after tenants.0003 (later ledger models).
        post_migrate.connect(rls.install_after_migrate, sender=self, dispatch_uid="tenants.rls.install")

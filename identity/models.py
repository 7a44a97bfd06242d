"""Who may do what across the whole platform, as Django permissions (not ``is_staff``)."""

from __future__ import annotations

from django.db import models


class PlatformAccess(models.Model):
    """No table: the holder of the platform-wide permissions.

    ``identity.platform_admin`` opens ``/ops/`` (every store's audits, prompts, SQL and metrics)
    and the Django admin; ``identity.vendor`` lets a vendor author business types. Neither comes
    with ``is_staff``, and a vendor gets no ``/ops/``.
    """

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [
            ("platform_admin", "Administer the platform: every store's audits, metrics and the admin"),
            ("vendor", "Author business types (vendor pages)"),
        ]

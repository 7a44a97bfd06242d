from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class IdentityConfig(AppConfig):
    name = "identity"
    verbose_name = "Identity and access"
    default = True

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from identity.permissions import remember_platform_role

        user_logged_in.connect(remember_platform_role, dispatch_uid="identity.remember_platform_role")


class ShelfwiseAdminConfig(admin_apps.AdminConfig):
    """Django's admin, on a site that only platform admins may enter (``identity.admin_site``)."""

    default = False
    default_site = "identity.admin_site.PlatformAdminSite"

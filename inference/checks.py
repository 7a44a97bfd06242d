"""System checks: every model role's settings parse at start, not at the first turn that needs them.

One id per role, so a deployment log says which role is misconfigured (``inference.E001`` router,
``E002`` guard, ``E003`` general, ``E004`` native, ``E005`` small). Nothing is loaded here: a check
reads the environment and the files it names, as ``role_config`` does before a backend is built.
"""

from __future__ import annotations

from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

from .base import Role
from .config import role_config

ROLE_CHECK_IDS = {
    Role.ROUTER: "inference.E001",
    Role.GUARD: "inference.E002",
    Role.GENERAL: "inference.E003",
    Role.NATIVE: "inference.E004",
    Role.SMALL: "inference.E005",
}


@register()
def check_model_roles(app_configs=None, **kwargs):
    errors = []
    for role, check_id in ROLE_CHECK_IDS.items():
        try:
            role_config(role)
        except ImproperlyConfigured as exc:
            errors.append(Error(f"The {role} model's settings: {exc}", id=check_id,
                                hint="See inference/config.py for the SHELFWISE_<ROLE>_* settings."))
    return errors

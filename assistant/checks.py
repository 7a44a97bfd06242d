"""System checks for the assistant: the fast path's templates load for every business type that has them."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured


@register()
def check_fast_path_templates(app_configs=None, **kwargs):
    """With the fast path on, every pack's ``matcher.yaml`` must compile (else the start stops here)."""
    if not getattr(settings, "SHELFWISE_FAST_PATH", True):
        return []
    from assistant.matcher.templates import PACKS, matcher_pack

    errors = []
    for path in sorted(PACKS.glob("*/matcher.yaml")):
        try:
            matcher_pack(path.parent.name)
        except ImproperlyConfigured as exc:
            errors.append(Error(str(exc), hint="Fix the file, or set SHELFWISE_FAST_PATH=false.", id="assistant.E001"))
    return errors

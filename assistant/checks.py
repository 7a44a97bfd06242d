"""System checks for the assistant: the fast path's templates load for every business type that has them,
and the native mode's settings parse (at start, not at the first native turn)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured


@register()
def check_fast_path_templates(app_configs=None, **kwargs):
    """With the fast path on, every pack's ``matcher.yaml`` must compile (else the start stops here)."""
    if not getattr(settings, "SHELFWISE_FAST_PATH", True):
        return []
    from assistant.matcher.templates import matcher_pack
    from packs.source import BUNDLED

    errors = []
    for path in sorted(BUNDLED.glob("*/matcher.yaml")):
        try:
            matcher_pack(path.parent.name)
        except ImproperlyConfigured as exc:
            errors.append(Error(str(exc), hint="Fix the file, or set SHELFWISE_FAST_PATH=false.", id="assistant.E001"))
    return errors


@register()
def check_native_settings(app_configs=None, **kwargs):
    """``SHELFWISE_NATIVE_VARIANT`` and ``SHELFWISE_NATIVE_TOOLS_K`` are valid."""
    from assistant.modes.native import native_tools_k, native_variant

    errors = []
    for check_id, read in (("assistant.E002", native_variant), ("assistant.E003", native_tools_k)):
        try:
            read()
        except ImproperlyConfigured as exc:
            errors.append(Error(f"The native mode's settings: {exc}", id=check_id))
    return errors

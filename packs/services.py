"""Pack versions in the database: install a validated pack as a draft, publish it, move a store onto one.

A draft may be replaced by a new upload of the same version; a published version never changes
(the database refuses it too) and a store stays on the version it runs until ``store_pack_move``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from packs.errors import PackInvalid, Problem
from packs.source import pack_key
from packs.validate import Pack
from tenants.models import BusinessType, PackVersion, Store

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)


def pack_install(*, pack: Pack, publish: bool = False, actor: str, vendor: User | None = None) -> PackVersion:
    """Store a validated ``pack`` as a draft version of its business type (created if new); publish it if asked.

    ``vendor``: the vendor uploading it, who may change only the business types they created (a new
    one becomes theirs); None for the platform (the shell, a platform admin), who may change any.

    Raises:
        PackInvalid: that version is already published (a change needs a new version number), or the
            business type belongs to someone else.
    """
    with transaction.atomic():
        kind, _ = BusinessType.objects.select_for_update().get_or_create(
            slug=pack.slug, defaults={"name": pack.name, "description": pack.description, "vendor": vendor})
        if vendor is not None and kind.vendor_id != vendor.pk:
            raise PackInvalid([Problem("pack.yaml", "/slug", f"the business type {pack.slug!r} belongs to another "
                                       "vendor or to the platform; choose another slug")], origin=pack.files.origin)
        version = PackVersion.objects.filter(business_type=kind, version=pack.version).first()
        if version is not None and version.status == PackVersion.Status.PUBLISHED:
            if version.digest == pack.digest:
                return version  # the same files again: nothing to do
            raise PackInvalid([Problem("pack.yaml", "/version", f"version {pack.version} of {pack.slug!r} is "
                                       "published and never changes; give the changed pack a new version number")],
                              origin=pack.files.origin)
        if version is None:
            version = PackVersion(business_type=kind, version=pack.version)
        version.name, version.description = pack.name, pack.description
        version.files, version.digest, version.created_by = dict(pack.files.files), pack.digest, actor[:120]
        version.save()
        if publish:
            version = pack_publish(version=version)
    return version


def pack_publish(*, version: PackVersion) -> PackVersion:
    """Publish a draft: from now on it never changes. Stores of its type that run no version are pinned to it.

    Publishing does not move stores already pinned to an earlier version (``store_pack_move`` does).
    """
    with transaction.atomic():
        version = PackVersion.objects.select_for_update().get(pk=version.pk)
        if version.status == PackVersion.Status.PUBLISHED:
            return version
        version.status, version.published_at = PackVersion.Status.PUBLISHED, timezone.now()
        version.save(update_fields=["status", "published_at"])
        kind = version.business_type
        kind.name, kind.description = version.name, version.description
        kind.save(update_fields=["name", "description"])
        Store.objects.filter(business_type=kind, pack_version__isnull=True).update(pack_version=version)
    _speak_guides(version)
    return version


def _speak_guides(version: PackVersion) -> None:
    """The version's audio guides, spoken with espeak-ng into the media storage (a few seconds)."""
    from assistant.media.pack_guides import guides_speak

    key = pack_key(slug=version.business_type.slug, version=version.version, digest=version.digest)
    spoken, count = guides_speak(key)
    if spoken < count:
        logger.warning("Pack %s: %d of %d audio guides spoken; the rest are read out as text", key, spoken, count)


def pack_latest_published(*, business_type: BusinessType) -> PackVersion | None:
    """The business type's newest published version (what a new store of the type runs)."""
    return (PackVersion.objects.filter(business_type=business_type, status=PackVersion.Status.PUBLISHED)
            .order_by("-version").first())


def store_pack_move(*, store: Store, version: PackVersion) -> Store:
    """Move ``store`` onto a published version of its own business type.

    Raises:
        PackInvalid: the version is a draft or belongs to another business type.
    """
    if version.status != PackVersion.Status.PUBLISHED or version.business_type_id != store.business_type_id:
        raise PackInvalid([Problem("", "", "a store moves only onto a published version of its own business type")])
    Store.objects.filter(pk=store.pk).update(pack_version=version)
    store.pack_version = version
    return store


def store_sample_catalog_install(*, store: Store) -> int:
    """Fill an empty store with its pack version's sample catalog (as the catalog import would); returns how many.

    Raises:
        ledger.errors.InvalidInput: the store already has products, or a row cannot be imported.
    """
    from django.utils.translation import gettext as _

    from ledger.catalog_csv import read
    from ledger.errors import InvalidInput
    from ledger.models import Product
    from ledger.services.catalog_plan import catalog_apply, catalog_plan
    from packs.source import SAMPLE_CATALOG, pack_files, store_pack_key
    from tenants.context import use_store

    text = pack_files(store_pack_key(store)).files.get(SAMPLE_CATALOG, "")
    with use_store(store), transaction.atomic():
        if Product.objects.filter(store=store).exists():
            raise InvalidInput(_("This store already has products; the sample catalog only goes into an empty store."))
        created, _changed = catalog_apply(store=store, plan=catalog_plan(store=store, table=read(text)))
    return created

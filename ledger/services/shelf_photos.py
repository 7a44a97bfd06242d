"""Shelf photos: an uploaded image checked, re-encoded with Pillow and stored for one product.

The upload is never stored as sent: it is decoded (JPEG, PNG or WebP only, within a byte and a
pixel cap, so a decompression bomb is refused before it is decoded), turned upright by its EXIF
orientation, scaled down to at most ``MAX_SIDE`` pixels on its longer side and written again
without any metadata (so no EXIF location or camera data leaves the store).
"""

from __future__ import annotations

import io
import warnings

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

from ledger.errors import InvalidInput, NotFound
from ledger.models import Product
from ledger.scope import store_scope
from tenants.models import Store

MAX_PHOTO_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 40_000_000
MAX_SIDE = 1600
_FORMATS = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}


def _unreadable() -> str:
    return _("The photo could not be read; use a PNG, JPEG or WebP image.")


def _reencoded(content: bytes) -> tuple[bytes, str]:
    """The image re-encoded without metadata, and its file extension.

    Raises:
        InvalidInput: not a PNG, JPEG or WebP image, or too many pixels.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(content)) as image:
                kind = image.format
                if kind not in _FORMATS:
                    raise InvalidInput(_unreadable())
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise InvalidInput(_("The photo has too many pixels; use one under 40 megapixels."))
                image.load()
                upright = ImageOps.exif_transpose(image)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError,
            Image.DecompressionBombWarning):
        raise InvalidInput(_unreadable()) from None
    upright.thumbnail((MAX_SIDE, MAX_SIDE))
    out = io.BytesIO()
    if kind == "JPEG":
        upright.convert("RGB").save(out, "JPEG", quality=85, optimize=True)
    elif kind == "PNG":
        upright.save(out, "PNG", optimize=True)
    else:
        upright.save(out, "WEBP", quality=85)
    return out.getvalue(), _FORMATS[kind]


def product_photo_set(*, store: Store, product: Product, content: bytes, filename: str | None = None) -> Product:
    """Store a shelf photo (PNG, JPEG or WebP) for the product, replacing the earlier one.

    Raises:
        NotFound: the product is not this store's.
        InvalidInput: the bytes are not an image, are too large, or have too many pixels; the old
            photo stays.
    """
    if product.store_id != store.pk:
        raise NotFound("product")
    if not isinstance(content, bytes | bytearray) or not content:
        raise InvalidInput(_("The photo is empty."))
    if len(content) > MAX_PHOTO_BYTES:
        raise InvalidInput(_("The photo is larger than 5 MB; use a smaller one."))
    data, extension = _reencoded(bytes(content))
    stem = slugify(filename.rsplit(".", 1)[0]) if filename else ""
    stem = stem or f"{slugify(store.slug)}-{slugify(product.name) or product.pk}"
    with store_scope(store, what="product"), transaction.atomic():
        locked = Product.objects.select_for_update().filter(store=store, pk=product.pk).first()
        if locked is None:
            raise NotFound("product")
        old = locked.photo.name if locked.photo else ""
        locked.photo.save(f"{stem[:60]}.{extension}", ContentFile(data), save=False)
        locked.version += 1
        locked.save(update_fields=["photo", "version", "updated_at"])
        if old and old != locked.photo.name:
            storage = locked.photo.storage
            transaction.on_commit(lambda: storage.delete(old))
    product.photo = locked.photo
    product.version = locked.version
    return locked

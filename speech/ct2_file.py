"""CTranslate2's ``model.bin``, read and written (its binary format, version 6: a header, the named
variables with their shapes and types, then aliases), so a model's decoder can be swapped for an
adapted one (``speech.model``) without converting the model again.

The layout follows ``ctranslate2.specs.model_spec.ModelSpec._serialize``.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field

import numpy as np

DTYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")


@dataclass
class ModelFile:
    """One ``model.bin``: its spec name and revision, variables (numpy; bfloat16 kept as uint16) and aliases."""

    version: int
    name: str
    revision: int
    variables: dict[str, np.ndarray] = field(default_factory=dict)
    dtypes: dict[str, str] = field(default_factory=dict)
    aliases: list[tuple[str, str]] = field(default_factory=list)


def read(data: bytes) -> ModelFile:
    """Parse a ``model.bin``'s bytes."""
    handle = io.BytesIO(data)

    def unpack(fmt: str):
        return struct.unpack(fmt, handle.read(struct.calcsize(fmt)))

    def string() -> str:
        (size,) = unpack("H")
        return handle.read(size)[:-1].decode("utf-8")

    (version,) = unpack("I")
    if version != 6:
        raise ValueError(f"model.bin format version {version} is not supported (6 is)")
    model = ModelFile(version=version, name=string(), revision=unpack("I")[0])
    (count,) = unpack("I")
    for _ in range(count):
        name = string()
        (rank,) = unpack("B")
        shape = unpack("I" * rank)
        (type_id,) = unpack("B")
        (size,) = unpack("I")
        dtype = DTYPES[type_id]
        raw = handle.read(size)
        model.variables[name] = np.frombuffer(raw, dtype=np.uint16 if dtype == "bfloat16" else dtype).reshape(shape)
        model.dtypes[name] = dtype
    (count,) = unpack("I")
    model.aliases = [(string(), string()) for _ in range(count)]
    return model


def write(model: ModelFile) -> bytes:
    """A ``model.bin``'s bytes for ``model``."""
    out = io.BytesIO()

    def string(text: str) -> None:
        encoded = text.encode("utf-8")
        out.write(struct.pack("H", len(encoded) + 1) + encoded + b"\0")

    out.write(struct.pack("I", model.version))
    string(model.name)
    out.write(struct.pack("II", model.revision, len(model.variables)))
    for name, value in model.variables.items():
        dtype = model.dtypes[name]
        array = np.array(value, dtype=np.uint16 if dtype == "bfloat16" else dtype, order="C")  # keeps 0-d scalars 0-d
        string(name)
        out.write(struct.pack("B", array.ndim) + struct.pack("I" * array.ndim, *array.shape))
        out.write(struct.pack("=BI", DTYPES.index(dtype), array.nbytes))
        out.write(array.tobytes())
    out.write(struct.pack("I", len(model.aliases)))
    for alias, target in model.aliases:
        string(alias)
        string(target)
    return out.getvalue()


def patched(data: bytes, replacements: dict[str, np.ndarray]) -> bytes:
    """``data`` (a ``model.bin``) with some variables replaced by arrays of the same shape.

    Raises:
        ValueError: a replacement names no variable of the model, or has another shape.
    """
    model = read(data)
    for name, value in replacements.items():
        old = model.variables.get(name)
        if old is None or old.shape != value.shape:
            raise ValueError(f"{name}: not a variable of this model, or not its shape")
        model.variables[name] = value
    return write(model)

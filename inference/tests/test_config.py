"""Per-role backend settings from the environment, rejected with the variable named when wrong."""

from __future__ import annotations

import os

import pytest
from django.core.exceptions import ImproperlyConfigured

from inference.bundle import DEFAULT_MODEL
from inference.config import backends_reset, get_backend, role_config
from inference.llamacpp import LlamaCppBackend


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in list(os.environ):
        if name.startswith("SHELFWISE_") and name != "SHELFWISE_DATA_DIR":
            monkeypatch.delenv(name)
    backends_reset()
    yield
    backends_reset()


@pytest.mark.parametrize(("role", "n_ctx"), [("router", 4096), ("guard", 4096), ("general", 4096), ("native", 8192)])
def test_the_bundled_model_on_llamacpp_is_the_default(role, n_ctx):
    config = role_config(role)

    assert (config.backend, config.model, config.n_ctx) == ("llamacpp", "", n_ctx)


def test_a_role_gets_one_backend_per_process_and_nothing_loads_until_used():
    backend = get_backend("router")

    assert isinstance(backend, LlamaCppBackend)
    assert backend.model == DEFAULT_MODEL.name
    assert get_backend("router") is backend


def test_an_unknown_backend_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv("SHELFWISE_ROUTER_BACKEND", "transformers")

    with pytest.raises(ImproperlyConfigured, match="SHELFWISE_ROUTER_BACKEND must be one of llamacpp, openai, not 'transformers'"):
        get_backend("router")


def test_a_server_backend_needs_its_url_and_model(monkeypatch):
    monkeypatch.setenv("SHELFWISE_GUARD_BACKEND", "openai")
    with pytest.raises(ImproperlyConfigured, match="needs SHELFWISE_GUARD_URL"):
        role_config("guard")

    monkeypatch.setenv("SHELFWISE_GUARD_URL", "localhost:8000")
    with pytest.raises(ImproperlyConfigured, match="SHELFWISE_GUARD_URL must be an http"):
        role_config("guard")

    monkeypatch.setenv("SHELFWISE_GUARD_URL", "http://localhost:8000/v1/")
    with pytest.raises(ImproperlyConfigured, match="needs SHELFWISE_GUARD_MODEL"):
        role_config("guard")

    monkeypatch.setenv("SHELFWISE_GUARD_MODEL", "Qwen/Qwen2.5-7B-Instruct")
    monkeypatch.setenv("SHELFWISE_GUARD_TIMEOUT", "12.5")
    config = role_config("guard")
    assert (config.url, config.model, config.timeout_s) == ("http://localhost:8000/v1", "Qwen/Qwen2.5-7B-Instruct", 12.5)


def test_a_model_file_that_does_not_exist_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE_GENERAL_MODEL", str(tmp_path / "missing.gguf"))

    with pytest.raises(ImproperlyConfigured, match="SHELFWISE_GENERAL_MODEL points at .*missing.gguf"):
        get_backend("general")


def test_a_model_file_and_context_size_are_taken_from_the_environment(monkeypatch, tmp_path):
    model = tmp_path / "other.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("SHELFWISE_ROUTER_MODEL", str(model))
    monkeypatch.setenv("SHELFWISE_ROUTER_CTX", "8192")

    backend = get_backend("router")

    assert backend.model == str(model)
    assert backend.options.n_ctx == 8192


def test_the_small_model_defaults_to_the_bundled_base_with_the_shipped_adapter_on_llamacpp():
    from assistant.modes.small.base_model import gguf_path
    from inference.config import SMALL_ADAPTER

    config = role_config("small")
    assert (config.backend, config.model, config.adapter, config.n_ctx) == (
        "llamacpp", str(gguf_path()), str(SMALL_ADAPTER.resolve()), 2048)
    backend = get_backend("small")  # built lazily: no model loads here
    assert backend.kind == "llamacpp" and backend.options.lora == str(SMALL_ADAPTER.resolve())


def test_the_small_adapter_can_be_switched_off_or_pointed_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE_SMALL_ADAPTER", "none")
    assert role_config("small").adapter == ""
    monkeypatch.setenv("SHELFWISE_SMALL_ADAPTER", str(tmp_path / "missing.gguf"))
    with pytest.raises(ImproperlyConfigured, match="SHELFWISE_SMALL_ADAPTER points at .*missing.gguf"):
        role_config("small")


def test_a_small_model_folder_without_a_peft_adapter_is_refused_on_transformers(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE_SMALL_BACKEND", "transformers")
    monkeypatch.setenv("SHELFWISE_SMALL_MODEL", str(tmp_path))
    with pytest.raises(ImproperlyConfigured, match="SHELFWISE_SMALL_MODEL must be a PEFT LoRA adapter folder"):
        role_config("small")


def test_an_unknown_role_is_refused():
    with pytest.raises(ImproperlyConfigured, match="Unknown model role 'chef'"):
        get_backend("chef")

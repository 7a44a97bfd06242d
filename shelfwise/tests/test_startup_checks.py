"""Bad model, speech and native settings stop a process at start, each with its own check id."""

from __future__ import annotations

import pytest
from django.core import checks
from django.core.management.base import SystemCheckError

from inference.base import Role
from inference.checks import ROLE_CHECK_IDS
from shelfwise.startup import check_at_start


def _ids() -> set[str]:
    return {message.id for message in checks.run_checks() if message.is_serious()}


def test_the_default_settings_pass_every_check():
    assert _ids() == set()
    check_at_start("web")  # raises nothing


def test_every_model_role_has_its_own_check_id():
    assert set(ROLE_CHECK_IDS) == set(Role)
    assert len(set(ROLE_CHECK_IDS.values())) == len(Role)


@pytest.mark.parametrize(
    ("variable", "value", "check_id"),
    [
        ("SHELFWISE_ROUTER_BACKEND", "bogus", "inference.E001"),
        ("SHELFWISE_GUARD_MODEL", "/no/such/model.gguf", "inference.E002"),
        ("SHELFWISE_GENERAL_CTX", "12", "inference.E003"),
        ("SHELFWISE_NATIVE_BACKEND", "openai", "inference.E004"),  # openai without a URL
        ("SHELFWISE_SMALL_ADAPTER", "/no/such/adapter.gguf", "inference.E005"),
        ("SHELFWISE_STT_BEAM", "99", "speech.E001"),
        ("SHELFWISE_VAD_THRESHOLD", "loud", "speech.E001"),
        ("SHELFWISE_TTS", "robot", "speech.E002"),
        ("SHELFWISE_NATIVE_VARIANT", "fancy", "assistant.E002"),
        ("SHELFWISE_NATIVE_TOOLS_K", "x", "assistant.E003"),
    ],
)
def test_a_bad_value_is_reported_with_its_id_and_stops_the_start(monkeypatch, variable, value, check_id):
    monkeypatch.setenv(variable, value)
    assert _ids() == {check_id}
    with pytest.raises(SystemCheckError, match=rf"{check_id}: .*{variable}"):
        check_at_start("worker")

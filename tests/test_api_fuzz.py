"""schemathesis over the REST API's OpenAPI schema: generated requests, a bounded number per
operation, with a store token: no 500, and no response that contradicts the schema."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from shelfwise.wsgi import application

# Bounded for CI (two cores, two database runs): a few operations times this many examples.
EXAMPLES_PER_OPERATION = 15

schema = schemathesis.openapi.from_wsgi("/api/v1/schema?format=json", application)


@pytest.fixture
def scripted_models():
    """Turns that pass validation run the real pipeline around a scripted router (no model load)."""
    try:
        from inference.fake import fake_models  # after the apps move out of assistant/
    except ImportError:
        from inference.fake import fake_models

    with fake_models("router", default={"action": "general"}) as router:
        yield router


@pytest.fixture
def token(demo, scripted_models) -> str:
    from tenants.services import token_create

    return token_create(store=demo, name="fuzz", scopes=["api"])[1]


@pytest.mark.django_db(transaction=True)  # each request commits on its own, as in production: one example's database error cannot poison the next one's transaction (PostgreSQL)
@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_the_api_never_errors_and_keeps_to_its_schema(case, token):
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"},
                           checks=[not_a_server_error, response_schema_conformance])

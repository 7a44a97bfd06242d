"""The suite of live turns marked as regression cases (``assistant.models.RegressionCase``).

``bench --suite regressions`` reads the marked cases from the database; ``manage.py regressions
export FILE`` writes them as a suite file (``"store": "captured"``), which ``bench --suite FILE``
runs the same way, so a case can be kept in the repository and replayed where its database is not.
"""

from __future__ import annotations

from typing import Any

from lab.bench.suite import Suite, SuiteError, suite_parse

SUITE_NAME = "regressions"


def regressions_data(*, ids: list[int] | None = None) -> dict[str, Any]:
    """Every marked case (or those of ``ids``) as a captured suite's JSON."""
    from assistant.models import RegressionCase

    cases = RegressionCase.objects.order_by("id")
    if ids:
        cases = cases.filter(pk__in=ids)
    return {"version": 1, "name": SUITE_NAME, "store": "captured", "cases": [case.as_suite_case() for case in cases]}


def regressions_suite(*, ids: list[int] | None = None) -> Suite:
    """The marked cases as a suite.

    Raises:
        SuiteError: there is no marked case, or one is no longer valid (the message names it).
    """
    data = regressions_data(ids=ids)
    if not data["cases"]:
        raise SuiteError("No regression case is marked yet: mark a turn in the audit explorer (/ops/audit/).")
    return suite_parse(data, source=SUITE_NAME)

"""Start-up checks for the long-running processes (the ASGI web process, Celery workers and beat).

``manage.py`` commands run Django's system checks before they start; uvicorn and Celery do not.
Each of them calls ``check_at_start`` once, so a bad setting (an unknown backend, a missing model
file, a malformed speech value: see ``inference.checks``, ``speech.checks``, ``assistant.checks``)
stops the process at start with the check's id and message, instead of failing the first turn.
"""

from __future__ import annotations

from django.core import checks
from django.core.management.base import SystemCheckError


def check_at_start(process: str) -> None:
    """Run the system checks (not the database ones); raise ``SystemCheckError`` on any error."""
    problems = [message for message in checks.run_checks() if message.is_serious() and not message.is_silenced()]
    if problems:
        lines = "\n".join(f"{problem.id}: {problem.msg}" + (f" ({problem.hint})" if problem.hint else "")
                          for problem in problems)
        raise SystemCheckError(f"The {process} process cannot start:\n{lines}")

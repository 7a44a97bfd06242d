"""Fakes at the worker's process boundaries: a mail server that refuses a few times first."""

from __future__ import annotations

import smtplib

from django.core.mail.backends.locmem import EmailBackend


class FlakyMailServer(EmailBackend):
    """Django's in-memory outbox behind a server that refuses the first ``refusals`` messages."""

    refusals = 0
    refused = 0

    @classmethod
    def reset(cls, refusals: int) -> None:
        cls.refusals, cls.refused = refusals, 0

    def send_messages(self, messages):
        if type(self).refused < type(self).refusals:
            type(self).refused += 1
            raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
        return super().send_messages(messages)

"""Conversation state: created on first use, read and updated by the pipeline only."""

from __future__ import annotations

import uuid

from assistant.models import Conversation
from tenants.models import Store

MAX_KEY = 64


def conversation_for(*, store: Store, key: str | None, mode: str) -> Conversation:
    """The store's conversation with this key (locked for the turn), or a new one.

    A key that belongs to another store is never found: it starts a new conversation here.
    """
    if key:
        conversation = Conversation.objects.select_for_update().filter(store=store, key=key).first()
        if conversation is not None:
            return conversation
    return Conversation.objects.create(store=store, key=key or uuid.uuid4().hex, mode=mode)

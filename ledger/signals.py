"""What the books tell listeners above them (the alerts), without importing them.

``stock_changed`` is sent by ``journal_append`` inside the write's transaction, with the new
journal ``entry`` and the locked ``product``; a listener that acts on it should do so after
the transaction commits (``transaction.on_commit``), so a rolled-back sale raises nothing.
"""

from django.dispatch import Signal

stock_changed = Signal()

"""The benchmark: a declarative suite of owner turns run through the real pipeline, and the routing set.

- ``suite``: load and validate a suite file (turns, categories, ``expect`` objects).
- ``checks``: evaluate one turn's ``expect`` against its answer and ledger snapshots.
- ``spoken``: the numbers a reply says, in digits or words ("twenty-eight", "eight ninety-nine").
- ``stats``: Wilson intervals and percentiles.
- ``runner``: run a suite on a fresh demo store and record the results.
- ``routing``: score the router on single utterances (the routing set).
- ``report``: the tables the commands print.
- ``stores``: throwaway demo stores (a unique slug each, deleted afterwards with their photos).

The scorer shares no code with the system it scores (its number reading is its own, not
``assistant.normalize``), so a bug in one cannot hide behind the other.
"""

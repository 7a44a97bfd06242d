"""The Berkeley Function Calling Leaderboard (BFCL v4) on the project's models, plain and through a harness.

Its data and its AST checker come from the ``bfcl-eval`` package (Apache-2.0, installed without
its dependencies: requirements-nodeps.txt); the single-turn, non-web categories run here:

- ``data``: the entries and possible answers of a category, read from the package.
- ``checker``: BFCL's own ``ast_checker`` (its model table stubbed: that module imports every
  vendor's SDK) and BFCL's decoding rules for the plain prompting format, ``[f(a=1), g(b="x")]``.
- ``conditions``: ``plain`` (BFCL's own system prompt for prompting models, free text) and
  ``harness`` (a lexical shortlist of the functions, output constrained to a JSON schema of the
  shortlisted functions, validation, one repair).
- ``runner``: run a model over categories and conditions, resumable, one JSON line per answer.
- ``report``: pass rates per category with 95% Wilson intervals, exact McNemar tests plain vs harness.
"""

"""The REST API's JSON parser: DRF's, with JSON nested too deep to decode refused as a parse error.

Python's decoder raises ``RecursionError`` (not ``ValueError``) on arrays or objects nested about a
thousand deep, a few kilobytes of ``[``; DRF catches only ``ValueError``, so that body was a 500.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

TOO_DEEP = "JSON parse error - the body is nested too deeply."


class JSONParser(parsers.JSONParser):
    """``rest_framework.parsers.JSONParser`` that answers 400 instead of 500 for deeply nested JSON."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(TOO_DEEP) from None

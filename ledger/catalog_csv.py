"""Catalog and stock-count CSV files, read and written with tablib.

Reading keeps each record's row number as a spreadsheet shows it (the header is row 1, blank
lines included), so a preview can say "row 12, price: ..." and the owner finds that row. tablib's
own CSV reader drops blank lines and refuses rows wider than the header, so ``read`` registers
a variant of it that keeps both facts in two extra columns (``ROW`` and ``EXTRA``).

Writing guards against spreadsheet formula injection: a cell that starts with ``= + - @`` (or a
tab or carriage return) is written with a leading apostrophe, which spreadsheets show as text;
reading strips that apostrophe again, so export → edit → import round-trips.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import tablib
from django.utils.translation import gettext as _
from tablib.formats import registry
from tablib.formats._csv import CSVFormat

from ledger.errors import InvalidInput

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_ROWS = 50_000
MAX_CELLS = 1_000
ROW = "__row__"
EXTRA = "__extra__"
_FORMAT = "shelfwise-csv"
_RISKY = ("=", "+", "-", "@", "\t", "\r")


class _NumberedCSV(CSVFormat):
    """tablib's CSV reader, keeping each record's row number and whether it had cells past the header."""

    title = _FORMAT
    extensions = ()

    @classmethod
    def import_set(cls, dset, in_stream, headers=True, **kwargs):
        dset.wipe()
        rows = csv.reader(in_stream, strict=True)
        header: list[str] | None = None
        for number, row in enumerate(rows, start=1):
            if header is None:
                header = [cell.strip() for cell in row]
                dset.headers = [ROW, EXTRA, *header]
                continue
            if not any(cell.strip() for cell in row):
                continue
            if len(row) > MAX_CELLS:
                raise InvalidInput(_("Row %(row)s has too many cells.") % {"row": number})
            extra = any(cell.strip() for cell in row[len(header):])
            cells = (row + [""] * len(header))[: len(header)]
            dset.append([number, "yes" if extra else "", *cells])
            if len(dset) > MAX_ROWS:
                raise InvalidInput(_("The file has more than %(max)s rows; split it.") % {"max": f"{MAX_ROWS:,}"})


registry.register(_FORMAT, _NumberedCSV())


@dataclass(frozen=True)
class Table:
    """A read CSV: its header (as written) and each record as (row number, cells by column, too wide)."""

    header: list[str]
    records: list[tuple[int, dict[str, str], bool]]


def decode(content: bytes) -> str:
    """The file's text: UTF-8 (with or without the byte-order mark spreadsheets add).

    Raises:
        InvalidInput: empty, too large, binary, or not UTF-8.
    """
    if not content:
        raise InvalidInput(_("The file is empty."))
    if len(content) > MAX_FILE_BYTES:
        raise InvalidInput(_("The file is larger than 10 MB; split it into smaller files."))
    if b"\x00" in content[:8192]:
        raise InvalidInput(_("That is not a CSV file. Save the sheet as CSV (UTF-8) and upload that."))
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(_("The file is not UTF-8 text. In your spreadsheet, save it as “CSV UTF-8”.")) from None


def read(text: str) -> Table:
    """The CSV's header and records.

    Raises:
        InvalidInput: no header, a malformed CSV (an unclosed quote), or too many rows.
    """
    dataset = tablib.Dataset()
    try:
        dataset.load(io.StringIO(text, newline=""), format=_FORMAT)
    except csv.Error as exc:
        raise InvalidInput(_("The file is not a readable CSV (%(problem)s).") % {"problem": str(exc)[:80]}) from None
    if not dataset.headers or not any(name for name in dataset.headers[2:]):
        raise InvalidInput(_("The file has no header row; the first row must name the columns."))
    header = list(dataset.headers[2:])
    records = []
    for values in dataset.dict:
        cells = {name: _unescaped(str(values[name] or "")) for name in header if name}
        records.append((int(values[ROW]), cells, bool(values[EXTRA])))
    return Table(header=header, records=records)


def _unescaped(cell: str) -> str:
    cell = cell.strip()
    if len(cell) > 1 and cell[0] == "'" and cell[1] in _RISKY:
        return cell[1:]
    return cell


def _escaped(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_RISKY) else text


def write(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text with a header row and one row per item, cells escaped against formula injection."""
    dataset = tablib.Dataset(headers=list(columns))
    for row in rows:
        dataset.append([_escaped(value) for value in row])
    return dataset.export("csv", lineterminator="\n")

"""CSV cells that a spreadsheet will not run.

Annotations are typed by people and pair texts come from uploaded files; a cell such as
``=HYPERLINK("http://...")`` or ``@SUM(A1:A9)`` in an exported CSV would be evaluated as a
formula by the spreadsheet that opens it (CSV or formula injection). Text cells that start
with a formula prefix are written with a leading apostrophe, which spreadsheets show as
text and drop; numbers are written as numbers.
"""

from __future__ import annotations

# ASCII formula starters, the control characters some spreadsheets skip before them, and
# their full-width forms (which some spreadsheets normalise to ASCII).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def spreadsheet_safe(value: object) -> object:
    """``value`` unchanged, unless it is text starting with a formula prefix: then ``'`` + it."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value

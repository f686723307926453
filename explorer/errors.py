"""The one exception base of the explorer.

Every error the library raises on purpose derives from :class:`ExplorerError`, and also
from the built-in class it always had (``ValueError``, ``KeyError`` or ``RuntimeError``),
so callers that catch those keep working. The command line catches ``ExplorerError``
once, at its entry, and prints ``error: MESSAGE`` (exit status 2) instead of a traceback.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """Base of every error the explorer raises for bad input, files, options or models."""

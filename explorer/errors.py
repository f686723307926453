"""The one exception base of the explorer.

Every error the library raises on purpose derives from :class:`ExplorerError`, and also
from the built-in class it always had (``ValueError``, ``KeyError`` or ``RuntimeError``),
so callers that catch those keep working. The command line catches ``ExplorerError``
once, at its entry, and prints ``error: MESSAGE`` (exit status 2) instead of a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ExplorerError", "command_status", "read_json"]


class ExplorerError(Exception):
    """Base of every error the explorer raises for bad input, files, options or models."""


def command_status(run: Callable[[], object]) -> int:
    """Run the command of a ``python -m explorer...`` module: exit status 0, or 2 after one
    ``error: MESSAGE`` line on stderr for bad input (a ``ValueError`` or ``KeyError``, as
    every explorer error is), never a traceback."""
    try:
        run()
    except (ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def read_json(path: str | Path, error: type[ExplorerError]) -> Any:
    """The JSON in the file ``path`` (a model file, say); a file that cannot be read or is
    not JSON raises ``error`` with the path and the reason."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise error(f"{path}: cannot read ({err.strerror})") from None
    except json.JSONDecodeError as err:
        raise error(f"{path}: not JSON ({err})") from None

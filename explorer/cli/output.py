"""Output helpers shared by every command: errors, JSON, progress lines, warnings."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from explorer.api import json_safe, result_to_json

__all__ = ["fail", "json_safe", "print_json", "progress_printer", "result_to_json", "stderr_log", "warn_missing_resources"]


def fail(message: str) -> int:
    """Print ``error: MESSAGE`` on stderr; the exit status of a refused command (2)."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def print_json(payload: Any, *, indent: int | None = 2, ensure_ascii: bool = True) -> None:
    print(json.dumps(json_safe(payload), indent=indent, ensure_ascii=ensure_ascii))


def stderr_log(message: str) -> None:
    """A progress or status line on stderr (the library's ``log`` callbacks)."""
    print(message, file=sys.stderr, flush=True)


def progress_printer(unit: str = "pairs", *, tty_every: int = 100,
                     pipe_every: int | None = None) -> Callable[[str, int, int], None]:
    """``report(name, done, total)`` printing ``name: done/total UNIT`` on stderr: on a
    terminal every ``tty_every`` items on one rewritten line; when piped every
    ``pipe_every`` items (never when None)."""
    tty = sys.stderr.isatty()
    every = tty_every if tty else pipe_every

    def report(name: str, i: int, n: int) -> None:
        if every is None or not (i == n or i % every == 0):
            return
        if tty:
            print(f"\r{name}: {i}/{n} {unit}", end="\n" if i == n else "", file=sys.stderr, flush=True)
        else:
            print(f"{name}: {i}/{n} {unit}", file=sys.stderr, flush=True)

    return report


def warn_missing_resources() -> None:
    from explorer import resources

    for r in resources.missing():
        print(
            f"warning: NLTK resource {r.nltk_id!r} is missing: {r.without_it}. "
            "Run `python -m explorer resources --download`.",
            file=sys.stderr,
        )

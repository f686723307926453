"""Output helpers shared by every command: the one renderer of a command's record
(:func:`emit`), errors, JSON, progress lines, warnings."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from explorer.api import Report, json_safe, shown
from explorer.errors import ExplorerError

__all__ = ["FORMATS", "UsageError", "add_train_test", "dataset_paths", "emit", "fail", "finite_float", "int_in", "output_file", "print_json", "progress_printer",
           "stderr_log", "warn_missing_resources"]

#: What ``--format`` takes (``--json`` is ``--format json``).
FORMATS = ("text", "json")


class UsageError(ExplorerError, ValueError):
    """Options that do not go together, or one the command would not use: refused, never
    ignored."""

def fail(message: str) -> int:
    """Print ``error: MESSAGE`` on stderr (:func:`shown`); the exit status of a refused
    command (2)."""
    print(f"error: {shown(message)}", file=sys.stderr)
    return 2


#: The characters :func:`~explorer.api.shown` escapes that JSON writes raw inside strings (it escapes C0
#: itself, and its line ends and indentation outside strings must stay).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                             "\ud800-\udfff]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def emit(report: Report, fmt: str) -> int:
    """Print a command's record as ``fmt`` (one of :data:`FORMATS`): its ``to_json()`` as
    one JSON document, or its ``format()`` text, every line :func:`~explorer.api.shown`.
    Returns the exit status (0)."""
    if fmt == "json":
        print_json(report.to_json(), ensure_ascii=False)
    else:
        print("\n".join(shown(line) for line in report.format().split("\n")))
    return 0


def print_json(payload: object, *, indent: int | None = 2, ensure_ascii: bool = True) -> None:
    """One JSON document on stdout; with ``ensure_ascii=False`` the characters of
    :data:`_UNSAFE_IN_JSON` are written as ``\\uXXXX`` escapes all the same."""
    text = json.dumps(json_safe(payload), indent=indent, ensure_ascii=ensure_ascii)
    print(text if ensure_ascii else _UNSAFE_IN_JSON.sub(_json_escape, text))


def stderr_log(message: str) -> None:
    """A progress or status line on stderr (the library's ``log`` callbacks), :func:`shown`."""
    print(shown(message), file=sys.stderr, flush=True)


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
        name = shown(name)
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


# -- argument types: checked when the command line is parsed, before any work ---------

def finite_float(low: float, high: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite number in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
            bracket = "(" if low_open else "["
            raise argparse.ArgumentTypeError(f"{text} is outside {bracket}{low:g}, {high:g}]")
        return value

    return parse


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ``[low, high]``."""
    def parse(text: str) -> int:
        if len(text) > 12:
            raise argparse.ArgumentTypeError(f"{text[:12]}... is too long for a number of at most {high}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside [{low}, {high}]")
        return value

    return parse


def add_train_test(parser: argparse.ArgumentParser, *, test: str) -> None:
    """The TRAIN and optional TEST files of a classifier's command (TRAIN may join several
    files with commas: :func:`dataset_paths`)."""
    parser.add_argument("train", help="labelled training data; several files joined by commas (e.g. RTE1-3 dev)")
    parser.add_argument("test", nargs="?", help=test)


def dataset_paths(spec: str) -> list[str]:
    """``"rte1_dev.xml,rte2_dev.xml"`` -> the files, for options that join several with
    commas (a file whose own name has a comma stays whole when the parts are not files)."""
    parts = spec.split(",")
    return parts if len(parts) > 1 and all(Path(p).is_file() for p in parts) else [spec]


def output_file(text: str) -> Path:
    """An argparse ``type`` for a file the command will write: refused at once (not after
    minutes of training) when it names a folder, a missing or unwritable folder, or an
    existing file that cannot be written."""
    path = Path(text).expanduser()
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name inside it")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {folder} does not exist; create it first")
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text} exists and cannot be written")
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write into the folder {folder}")
    return path

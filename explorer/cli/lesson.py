"""Command ``lesson``: one pair's Teach lessons written as one self-contained HTML file.

The lessons are the Teach page's own (every step's sentence, chapter and figure, keys and
clicker, plotly.js inside the file), so the file opens from disk with the network off.
Drawing them is the app's work: the figures are Plotly JSON built by
``components.figures.teaching``, which the library may not import. This command is the
one place the CLI reaches the app's package, by name (:data:`BUILDER`), when it runs; the
layering test allows that one name and no other. Without the app's package (the library
installed alone) the command says so in one line.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from explorer.api import import_attr, shown
from explorer.batch.source import read_dataset
from explorer.cli.output import emit, output_file, warn_missing_resources
from explorer.errors import ExplorerError
from explorer.methods import METHODS

#: The function that traces, draws and writes the lessons (the app's package).
BUILDER = "components.lesson_export:write_deck"
#: The methods with a Teach lesson, by their one name.
LESSONS = [name for name, row in METHODS.items() if row.lesson is not None]


class LessonCommandError(ExplorerError, ValueError):
    """A pair the data does not have, or the app's package missing."""


@dataclass(frozen=True)
class LessonFile:
    """What ``lesson`` prints: the file written, its size and each lesson's steps."""

    out: str
    pair: str
    size: int
    lessons: tuple[tuple[str, str, int], ...]

    def to_json(self) -> dict[str, object]:
        return {"out": self.out, "pair": self.pair, "bytes": self.size,
                "lessons": [{"method": m, "title": t, "steps": n} for m, t, n in self.lessons]}

    def format(self) -> str:
        lines = [f"wrote {shown(self.out)} ({self.size / 1e6:.1f} MB, {len(self.lessons)} lesson"
                 f"{'s' if len(self.lessons) != 1 else ''}, opens from disk with no network)"]
        lines += [f"  {title}: {steps} steps" for _, title, steps in self.lessons]
        return "\n".join(lines)


def configure_lesson(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file (RTE XML, MSRP/STS/SICK TSV, CSV, JSONL)")
    parser.add_argument("--pair", required=True, help="the pair's id in the dataset")
    parser.add_argument("--method", required=True,
                        help=f"comma-separated Teach methods ({', '.join(LESSONS)}) or a method's "
                             "variant (mbleu, bleu_pa, itg_lex, pfsm, ...); several make a deck in one file")
    parser.add_argument("--out", required=True, type=output_file, help="the HTML file to write")


def run_lesson(args: argparse.Namespace) -> int:
    data = read_dataset(args.data)
    pair = next((p for p in data.pairs if p.id == args.pair), None)
    if pair is None:
        some = ", ".join(p.id for p in data.pairs[:5])
        raise LessonCommandError(f"{data.name} has no pair {args.pair!r} (its {len(data.pairs)} pairs start: {some})")
    try:
        write = import_attr(BUILDER)
    except ImportError as err:
        raise LessonCommandError(f"the lesson command draws with the app's package (components/), which is not "
                                 f"importable here ({err}); run it from the repository") from None
    warn_missing_resources()
    out: Path = args.out
    lessons = write(pair, args.method, out, where=f"pair {pair.id} of {Path(args.data).name}")
    return emit(LessonFile(str(out), pair.id, out.stat().st_size, tuple(lessons)), args.format)

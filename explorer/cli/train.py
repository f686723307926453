"""Command ``train``: a registered trainer (:data:`explorer.training.TRAINERS`) on gold data."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.api import shown
from explorer.batch.source import read_dataset
from explorer.cli.output import emit, fail, output_file, stderr_log
from explorer.datasets import load_many
from explorer.training import TRAINERS, check_pairs, parse_options


@dataclass(frozen=True)
class Trained:
    """What ``train`` prints: the model written, from what, and how long it took (the
    trainer's progress goes to stderr as it runs)."""

    trainer: str
    data: str
    pairs: int
    out: str
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {"trainer": self.trainer, "data": self.data, "pairs": self.pairs, "out": self.out,
                "seconds": round(self.seconds, 3)}

    def format(self) -> str:
        return (f"wrote {shown(self.out)} ({self.trainer}, trained on {self.pairs} pairs of {shown(self.data)}) "
                f"in {self.seconds:.1f} s")


def configure_train(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trainer", help=f"what to train (known: {', '.join(TRAINERS)})")
    parser.add_argument("gold", nargs="+", help="gold data files (any format the loaders read; several MSR annotator "
                        "files are merged by majority, other files added after them)")
    parser.add_argument("--out", required=True, type=output_file, help="where to write the model (JSON); checked before training")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a trainer option, e.g. epochs=50 (repeatable)",
    )


def run_train(args: argparse.Namespace) -> int:
    info = TRAINERS.info(args.trainer)
    started = time.perf_counter()
    try:
        options = parse_options(args.option)
        data = load_many(args.gold, read=read_dataset, log=stderr_log)
        check_pairs(info.name, data.pairs)  # the limits (--max-tokens ...) bound training too
        info.run(data.pairs, Path(args.out), options, stderr_log)
    except ValueError as err:  # trainers refuse bad options and data with ValueError
        return fail(str(err))
    return emit(Trained(args.trainer, data.name, len(data), str(args.out), time.perf_counter() - started), args.format)

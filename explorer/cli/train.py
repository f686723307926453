"""Command ``train``: a registered trainer (:data:`explorer.training.TRAINERS`) on gold data."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from explorer.cli.output import fail, output_file, stderr_log
from explorer.training import TRAINERS, load_training_pairs, parse_options


def configure_train(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trainer", help=f"what to train (known: {', '.join(TRAINERS)})")
    parser.add_argument("gold", nargs="+", help="gold data files (any format the loaders read; several MSR annotator files are merged by majority)")
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
        pairs = load_training_pairs(args.gold, stderr_log)
        info.run(pairs, Path(args.out), options, stderr_log)
    except ValueError as err:  # trainers refuse bad options and data with ValueError
        return fail(str(err))
    stderr_log(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")
    return 0

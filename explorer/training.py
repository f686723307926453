"""Trainers: one registry for every method that learns from gold data.

``python -m explorer train NAME GOLD... --out PATH`` loads the gold files with the
dataset loaders and hands the pairs to the trainer registered under NAME. A trainer
is a function ``train(pairs, out, options, log) -> None`` that writes its model to
``out``; ``options`` are the ``--option KEY=VALUE`` strings, for the trainer to parse
(it raises :class:`TrainingOptionError` for one it does not know). Progress goes to
``log`` (stderr on the command line). Adding a trainer is one line in
:data:`TRAINERS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.pairs import Pair

Log = Callable[[str], None]
TrainFunction = Callable[[Sequence[Pair], Path, dict[str, str], Log], None]


class TrainingOptionError(ValueError):
    """An ``--option`` the trainer does not accept."""


@dataclass(frozen=True)
class TrainerInfo:
    """A trainer: ``module.function(pairs, out, options, log)`` trains and saves."""

    name: str
    description: str
    module: str
    function: str

    def run(self, pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
        train: TrainFunction = getattr(importlib.import_module(self.module), self.function)
        train(pairs, out, options, log)


TRAINERS: dict[str, TrainerInfo] = {
    "manli": TrainerInfo("manli", "MANLI feature weights (averaged perceptron on gold alignments)", "explorer.aligners.manli_learn", "train_command"),
    "pfsm": TrainerInfo("pfsm", "probabilistic edit distance FSM (regression on graded STS/SICK scores)", "explorer.edit_distance.training", "train_pfsm"),
    "ppda": TrainerInfo("ppda", "probabilistic edit distance with jumps, pPDA (regression on graded scores)", "explorer.edit_distance.training", "train_ppda"),
}


def parse_options(items: Sequence[str]) -> dict[str, str]:
    """``["epochs=5", "seed=1"]`` -> ``{"epochs": "5", "seed": "1"}``."""
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise TrainingOptionError(f"option {item!r} is not KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def configure_train(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trainer", help=f"what to train (known: {', '.join(TRAINERS)})")
    parser.add_argument("gold", nargs="+", help="gold data files (any format the loaders read; several MSR annotator files are merged by majority)")
    parser.add_argument("--out", required=True, help="where to write the model (JSON)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="a trainer option, e.g. epochs=50 (repeatable)",
    )


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_training_pairs(paths: Sequence[str]) -> list[Pair]:
    """Every pair of the files; several MSR annotator files (A, B, C) are merged by
    majority into one gold set instead of being concatenated."""
    from explorer.datasets import DatasetError, detect_file_format, load

    if len(paths) > 1:
        try:
            formats = {detect_file_format(path) for path in paths}
        except DatasetError:
            formats = set()
        if formats == {"msr_align"}:
            from explorer.datasets.msr_align import load_annotators

            merged = load_annotators(paths)
            _log(f"{merged.name}: {len(merged)} pairs, {len(paths)} annotators merged by majority")
            return list(merged.pairs)
    pairs: list[Pair] = []
    for path in paths:
        dataset = load(path)
        pairs.extend(dataset.pairs)
        _log(f"{dataset.name}: {len(dataset)} pairs ({dataset.format})")
    return pairs


def run_train(args: argparse.Namespace) -> int:
    from explorer.datasets import DatasetError
    from explorer.preprocess import InputError

    info = TRAINERS.get(args.trainer)
    if info is None:
        print(f"error: unknown trainer {args.trainer!r}; choose from: {', '.join(TRAINERS)}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        options = parse_options(args.option)
        pairs = load_training_pairs(args.gold)
        info.run(pairs, Path(args.out), options, _log)
    except (DatasetError, InputError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    _log(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")
    return 0

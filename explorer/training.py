"""Trainers: one registry for every method that learns from gold data.

``python -m explorer train NAME GOLD... --out PATH`` (:mod:`explorer.cli.train`) loads the gold files with the
dataset loaders and hands the pairs to the trainer registered under NAME. A trainer
is a function ``train(pairs, out, options, log) -> None`` that writes its model to
``out``; ``options`` are the ``--option KEY=VALUE`` strings, for the trainer to parse
(it raises :class:`TrainingOptionError` for one it does not know). Progress goes to
``log`` (stderr on the command line). Adding a trainer is one line in
:data:`TRAINERS` (a :class:`explorer.api.Registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from explorer.api import Log, Registry, TrainerInfo, caps
from explorer.errors import ExplorerError
from explorer.pairs import Pair

TrainFunction = Callable[[Sequence[Pair], Path, dict[str, str], Log], None]


class TrainingOptionError(ExplorerError, ValueError):
    """An ``--option`` the trainer does not accept."""


TRAINERS: Registry[TrainerInfo] = Registry("trainer", [
    TrainerInfo("manli", "MANLI feature weights (averaged perceptron on gold alignments)", "explorer.aligners.manli.learn:train_command",
                caps("gold_alignments")),
    TrainerInfo("pfsm", "probabilistic edit distance FSM (regression on graded STS/SICK scores)", "explorer.edit_distance.training:train_pfsm",
                caps("graded")),
    TrainerInfo("ppda", "probabilistic edit distance with jumps, pPDA (regression on graded scores)", "explorer.edit_distance.training:train_ppda",
                caps("graded")),
])


def parse_options(items: Sequence[str]) -> dict[str, str]:
    """``["epochs=5", "seed=1"]`` -> ``{"epochs": "5", "seed": "1"}``."""
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise TrainingOptionError(f"option {item!r} is not KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def load_training_pairs(paths: Sequence[str], log: Log | None = None) -> list[Pair]:
    """Every pair of the files; several MSR annotator files (A, B, C) are merged by
    majority into one gold set instead of being concatenated, also when other files
    (an Edinburgh++ JSON file, say) come with them: the merged set first, then the
    other files' pairs in order. ``log`` gets one line per file."""
    from explorer.datasets import load
    from explorer.datasets.msr_align import file_format, is_annotator_set, load_annotators

    say = log or (lambda message: None)
    msr = [p for p in paths if Path(p).is_file() and file_format(p) == "msr_align"]
    pairs: list[Pair] = []
    if is_annotator_set(msr):
        merged = load_annotators(msr)
        say(f"{merged.name}: {len(merged)} pairs, {len(msr)} annotators merged by majority")
        pairs.extend(merged.pairs)
        paths = [p for p in paths if p not in msr]
    for path in paths:
        dataset = load(path)
        pairs.extend(dataset.pairs)
        say(f"{dataset.name}: {len(dataset)} pairs ({dataset.format})")
    return pairs

"""Trainers: one registry for every method that learns from gold data.

``python -m explorer train NAME GOLD... --out PATH`` (:mod:`explorer.cli.train`) loads the gold files as one
set (:func:`explorer.datasets.load_many`: MSR annotator files merged by majority, other files after) and hands
the pairs to the trainer registered under NAME. A trainer
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


class TrainingDataError(ExplorerError, ValueError):
    """Training data the trainer refuses (a pair past its method's limits)."""


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


def check_pairs(trainer: str, pairs: Sequence[Pair]) -> None:
    """Refuse training data holding a pair past the limits of the trainer's method (its
    cost model in :mod:`explorer.limits`, the limits in force), before any training: a
    long pair would cost as much to train on as to score.

    Raises:
        TrainingDataError: naming the pair (its file and id) and the limit.
    """
    from explorer.limits import LimitError, check
    from explorer.preprocess import analyze_pair

    for pair in pairs:
        analysed = analyze_pair(pair)
        try:
            check(trainer, len(analysed.text), len(analysed.hypothesis))
        except LimitError as err:
            where = f"{Path(pair.source).name}, " if pair.source else ""
            raise TrainingDataError(f"{where}pair {pair.id}: {err}") from None

"""Command ``combined``: the combined entailment classifier on the command line.

Trains :mod:`explorer.combined`'s logistic regression on TRAIN (several files joined by
commas), reports on TEST (accuracy, precision, recall, F1, per task) and, with
``--save-model``, writes the model JSON that the ``combined`` scorer can load. It takes
only the options it uses: no folds, kernels or feature-group experiments (those are
``classify``'s, the MT-metric SVM).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.batch.source import read_dataset
from explorer.cli.output import (
    UsageError,
    add_train_test,
    dataset_paths,
    emit,
    finite_float,
    output_file,
    progress_printer,
    warn_missing_resources,
)
from explorer.combined import DEFAULT_C, CombinedError, CombinedRun, parse_features, train_test
from explorer.datasets import load_many


def configure_combined(parser: argparse.ArgumentParser) -> None:
    add_train_test(parser, test="labelled test data to report on")
    parser.add_argument("--features", default="default",
                        help="'default', 'all' or comma-separated names and families such as "
                             "scorer:,lex:,manli:coverage (explorer/combined.py FEATURES)")
    parser.add_argument("--c", type=finite_float(0.0, 1e6, low_open=True), default=DEFAULT_C,
                        help=f"inverse regularisation strength C, in (0, 1e6] (default {DEFAULT_C:g})")
    parser.add_argument("--save-model", metavar="PATH", type=output_file, help="write the trained model (JSON) here")


def run_combined(args: argparse.Namespace) -> int:
    """Errors (:class:`explorer.errors.ExplorerError`) are reported by the CLI's entry."""
    if not args.test and not args.save_model:
        raise UsageError("give TEST data to report on, or --save-model PATH to keep the trained model")
    names = parse_features(args.features)
    paths = dataset_paths(args.train)
    train = load_many(paths, read=read_dataset)
    test = read_dataset(args.test) if args.test else None
    warn_missing_resources()
    model, report = train_test(
        train.pairs, test.pairs if test else None, names, c=args.c,
        progress=progress_printer("pairs"),
        info={"trained_on_files": [Path(p).name for p in paths]},
    )
    if args.save_model is not None:  # checked when parsed (output_file)
        try:
            model.save(args.save_model)
        except OSError as err:
            raise CombinedError(f"cannot write {args.save_model}: {err.strerror}") from None
    run = CombinedRun(args.train, args.test, train.name, test.name if test else None, len(train), args.c, model,
                      report, None if args.save_model is None else str(args.save_model))
    return emit(run, args.format)

"""Commands for the MT-metric features (Finch et al. 2005): ``classify`` and ``corpus-stats``."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence

import numpy as np

from explorer.batch.source import iter_pairs, read_dataset
from explorer.cli.output import (
    UsageError,
    add_train_test,
    dataset_paths,
    emit,
    fail,
    finite_float,
    int_in,
    output_file,
    progress_printer,
    warn_missing_resources,
)
from explorer.datasets import Dataset, load_many
from explorer.errors import ExplorerError
from explorer.metrics.features import ALL_GROUPS, feature_matrix, feature_names, parse_groups
from explorer.mtclassify import (
    ClassifyError,
    ClassifyReport,
    CorpusReport,
    CorpusStatistics,
    Features,
    Report,
    corpus_statistics,
    cross_validate,
    feature_profile,
    labelled,
    train_test,
)
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair


def _gamma(text: str) -> str | float:
    return "scale" if text == "scale" else finite_float(0.0, 1e6, low_open=True)(text)


def configure_classify(parser: argparse.ArgumentParser) -> None:
    add_train_test(parser, test="labelled test data; leave out with --folds")
    parser.add_argument("--features", default="all",
                        help="comma-separated feature groups or 'all' (default): wer, per, bleu1-4, nist1-5, pos, "
                             "pos_syn, scorer:NAME")
    parser.add_argument("--each", action="store_true",
                        help="also run every named group on its own (features are computed once)")
    parser.add_argument("--ablate", action="store_true",
                        help="also run the named groups with each one left out in turn")
    parser.add_argument("--folds", type=int_in(0, 100), default=0,
                        help="k-fold cross-validation over TRAIN (and TEST, if given) instead of train/test")
    parser.add_argument("--c", type=finite_float(0.0, 1e6, low_open=True), default=1.0,
                        help="regularisation C, in (0, 1e6] (default 1)")
    parser.add_argument("--gamma", default="scale", type=_gamma, help="RBF gamma: a number in (0, 1e6] or 'scale' (default)")
    parser.add_argument("--ldr-split", action="store_true",
                        help="also report the low- and high-LDR halves (split at the median LDR)")
    parser.add_argument("--per-task", action="store_true",
                        help="with --folds: also train and cross-validate one classifier per task")
    parser.add_argument("--seed", type=int_in(0, 2**32 - 1), default=None, help="with --folds: seed of the fold split (0)")
    parser.add_argument("--save-profile", metavar="PATH", type=output_file,
                        help="write per-class quantiles of TRAIN's scalar features (the Pair page's reference)")


def _cached_features(pairs: Sequence[Pair], groups: Sequence[str]) -> Callable[[Sequence[str]], Features]:
    """Compute the union of ``groups`` once; each experiment slices its columns."""
    report = progress_printer("pairs")
    names, matrix = feature_matrix([analyze_pair(p) for p in pairs], groups,
                                   progress=lambda i, n: report("features", i, n))
    rows = {id(p): i for i, p in enumerate(pairs)}

    def for_groups(wanted: Sequence[str]) -> Features:
        columns = [names.index(n) for n in feature_names(wanted)]

        def compute(subset: Sequence[Pair]) -> tuple[tuple[str, ...], np.ndarray]:
            index = [rows[id(p)] for p in subset]
            return tuple(names[c] for c in columns), matrix[np.ix_(index, columns)]

        return compute

    return for_groups


def _save_profile(path: str, name: str, pairs: list[Pair], features: Features) -> None:
    kept, gold = labelled(pairs, name)
    names, matrix = features(kept)
    profile = feature_profile(names, matrix, gold, source=f"{name} ({len(kept)} pairs)")
    try:
        with open(path, "w", encoding="utf-8") as out:
            json.dump(profile, out, indent=1)
            out.write("\n")
    except OSError as err:
        raise ClassifyError(f"cannot write {path}: {err.strerror}") from None


def _experiments(groups: tuple[str, ...], *, each: bool, ablate: bool) -> list[tuple[str, tuple[str, ...]]]:
    """The feature sets to run, named: each group alone, each left out, then all named."""
    if (each or ablate) and len(groups) < 2:
        raise UsageError(f"--each and --ablate compare feature groups; name two or more in --features (given: "
                         f"{', '.join(groups)})")
    experiments: list[tuple[str, tuple[str, ...]]] = [(g, (g,)) for g in groups] if each else []
    if ablate:
        experiments += [(f"without {g}", tuple(x for x in groups if x != g)) for g in groups]
    name = "all" if set(groups) == set(ALL_GROUPS) else "+".join(groups) if len(groups) < 4 else "selected"
    return [*experiments, (name, groups)]


def _check_protocol(args: argparse.Namespace) -> None:
    """Without --folds there must be TEST data, and no option that only cross-validation uses."""
    if args.folds:
        return
    if not args.test:
        raise UsageError("give TEST data, or --folds K for cross-validation over TRAIN")
    for option, given in (("--per-task", args.per_task), ("--seed", args.seed is not None)):
        if given:
            raise UsageError(f"{option} applies to cross-validation; give --folds K with it")


def _run_experiment(
    args: argparse.Namespace, name: str, wanted: tuple[str, ...], pairs: list[Pair],
    train: Dataset, test: Dataset | None, every: Callable[[Sequence[str]], Features],
) -> list[tuple[str, Report]]:
    """One feature set's report (cross-validated, or trained on TRAIN and tested on TEST),
    then with --per-task one cross-validated report per task."""
    seed = args.seed or 0
    if args.folds:
        report = cross_validate(pairs, wanted, folds=args.folds, c=args.c, gamma=args.gamma,
                                seed=seed, ldr_split=args.ldr_split, features=every(wanted))
    else:
        report = train_test(train.pairs, test.pairs if test else (), wanted, c=args.c, gamma=args.gamma,
                            ldr_split=args.ldr_split, features=every(wanted))
    reports = [(name, report)]
    if args.per_task:
        for task in sorted({p.task for p in pairs if p.task}):
            subset = [p for p in pairs if p.task == task]
            reports.append((f"{name} [{task} only]", cross_validate(subset, wanted, folds=args.folds, c=args.c,
                                                                   gamma=args.gamma, seed=seed,
                                                                   features=every(wanted))))
    return reports


def _protocol(args: argparse.Namespace, train: Dataset, test: Dataset | None) -> str:
    """The evaluation protocol in words, for the report's heading."""
    if args.folds:
        return f"{args.folds}-fold cross-validation over {train.name}" + (f" + {test.name}" if test else "")
    return f"train {train.name} ({len(train)}), test {test.name if test else ''}"


def run_classify(args: argparse.Namespace) -> int:
    _check_protocol(args)
    try:
        groups = tuple(parse_groups(args.features))
        experiments = _experiments(groups, each=args.each, ablate=args.ablate)
        train = load_many(dataset_paths(args.train), read=read_dataset)
        test = read_dataset(args.test) if args.test else None
        warn_missing_resources()
        pairs = list(train.pairs) + (list(test.pairs) if test else [])
        every = _cached_features(pairs, groups)
        if args.save_profile:
            _save_profile(args.save_profile, train.name, list(train.pairs), every(groups))
        reports = [report for name, wanted in experiments
                   for report in _run_experiment(args, name, wanted, pairs, train, test, every)]
    except ValueError as err:
        if isinstance(err, ExplorerError):
            raise
        return fail(f"invalid option: {err}")
    settings = f"SVM (RBF), C={args.c:g}, gamma={args.gamma}"
    return emit(ClassifyReport(args.train, args.test, _protocol(args, train, test), settings, tuple(reports)),
                args.format)


def configure_corpus_stats(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file")


class _Totals:
    """Corpus statistics summed over ranges of a file, so only one range is held."""

    def __init__(self) -> None:
        #: group -> [pairs, labelled pairs, positives, sum of text lengths, of hypothesis
        #: lengths, of LDRs, of edit distances]
        self.sums: dict[str, list[float]] = {}

    def add(self, pairs: Sequence[Pair]) -> None:
        labelled = {"all": sum(p.entails is not None for p in pairs)}
        for p in pairs:
            if p.task and p.entails is not None:
                labelled[p.task] = labelled.get(p.task, 0) + 1
        for row in corpus_statistics(pairs):
            k = labelled.get(row.group, 0)
            add = (row.n, k, row.positive_share * k if k else 0.0, row.mean_text_length * row.n,
                   row.mean_hypothesis_length * row.n, row.mean_ldr * row.n, row.mean_edit_distance * row.n)
            total = self.sums.setdefault(row.group, [0.0] * len(add))
            for i, value in enumerate(add):
                total[i] += value

    def rows(self) -> list[CorpusStatistics]:
        groups = ["all", *sorted(g for g in self.sums if g != "all")]
        return [CorpusStatistics(group, int(n), positives / k if k else math.nan, text / n, hyp / n, ldr / n, edit / n)
                for group in groups for n, k, positives, text, hyp, ldr, edit in [self.sums[group]]]


def run_corpus_stats(args: argparse.Namespace) -> int:
    totals = _Totals()
    for pairs, _ in iter_pairs(args.data):  # one range of pairs at a time
        if pairs:
            totals.add(pairs)
    if not totals.sums:
        raise ClassifyError(f"{args.data}: no pairs to describe")
    return emit(CorpusReport(args.data, tuple(totals.rows())), args.format)

"""Commands for the MT-metric features (Finch et al. 2005): ``classify`` and ``corpus-stats``."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from explorer.batch.source import iter_pairs, read_dataset
from explorer.cli.output import (
    fail,
    finite_float,
    int_in,
    output_file,
    print_json,
    progress_printer,
    shown,
    warn_missing_resources,
)
from explorer.errors import ExplorerError
from explorer.metrics.features import ALL_GROUPS, feature_matrix, feature_names, parse_groups
from explorer.mtclassify import (
    ClassifyError,
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
    parser.add_argument("train", help="labelled training data (MSRP TSV, RTE XML, ...)")
    parser.add_argument("test", nargs="?", help="labelled test data; leave out with --folds")
    parser.add_argument("--classifier", choices=("svm", "combined"), default="svm",
                        help="svm: RBF SVM over MT-metric groups (Finch et al.); combined: logistic regression "
                             "over scorers and alignment features (explorer/combined.py)")
    parser.add_argument("--features", default=None,
                        help="svm: comma-separated feature groups or 'all' (default): wer, per, bleu1-4, nist1-5, "
                             "pos, pos_syn; combined: 'default', 'all' or names/families such as scorer:,lex:,manli:coverage")
    parser.add_argument("--save-model", metavar="PATH", type=output_file, help="combined: write the trained model (JSON) here")
    parser.add_argument("--each", action="store_true",
                        help="also run every named group on its own (features are computed once)")
    parser.add_argument("--ablate", action="store_true",
                        help="also run the named groups with each one left out in turn")
    parser.add_argument("--folds", type=int_in(0, 100), default=0,
                        help="k-fold cross-validation over TRAIN (and TEST, if given) instead of train/test")
    parser.add_argument("--c", type=finite_float(0.0, 1e6, low_open=True), default=None,
                        help="regularisation C, in (0, 1e6] (default 1 for the SVM, 0.03 for the combined classifier)")
    parser.add_argument("--gamma", default="scale", type=_gamma, help="RBF gamma: a number in (0, 1e6] or 'scale' (default)")
    parser.add_argument("--ldr-split", action="store_true",
                        help="also report the low- and high-LDR halves (split at the median LDR)")
    parser.add_argument("--per-task", action="store_true",
                        help="with --folds: also train and cross-validate one classifier per task")
    parser.add_argument("--seed", type=int_in(0, 2**32 - 1), default=0, help="seed of the fold split")
    parser.add_argument("--save-profile", metavar="PATH", type=output_file,
                        help="write per-class quantiles of TRAIN's scalar features (the Pair page's reference)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


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


def _print_report(name: str, report: Report) -> None:
    o = report.overall
    line = (f"  {shown(name):<12} n={o.n:<5} acc {o.accuracy:6.2%}  P {o.precision:.3f}  R {o.recall:.3f}  "
            f"F1 {o.f1:.3f}  ({report.n_features} features)")
    if report.interval is not None:
        mean = float(np.mean(report.fold_accuracies))
        line += f"  folds {mean:.2%} [{report.interval[0]:.2%}, {report.interval[1]:.2%}]"
    print(line)
    for task, s in report.by_task.items() if len(report.by_task) > 1 else ():
        print(f"      {shown(task):<6} n={s.n:<4} acc {s.accuracy:6.2%}  F1 {s.f1:.3f}")
    for half, s in report.by_ldr.items():
        print(f"      LDR {half:<4} n={s.n:<4} acc {s.accuracy:6.2%}  F1 {s.f1:.3f}  (cutoff {report.ldr_cutoff:.3f})")


def run_classify(args: argparse.Namespace) -> int:
    if args.classifier == "combined":
        from explorer.cli.combined import run_combined_classify

        return run_combined_classify(args)
    args.c = 1.0 if args.c is None else args.c
    try:
        groups = parse_groups(args.features or "all")
        gamma: str | float = args.gamma
        if args.c <= 0:
            raise ClassifyError("--c must be positive")
        if not args.folds and not args.test:
            raise ClassifyError("give TEST data, or --folds K for cross-validation over TRAIN")
        if args.save_model:
            raise ClassifyError("--save-model needs --classifier combined (the SVM is not saved)")
        train = read_dataset(args.train)
        test = read_dataset(args.test) if args.test else None
        warn_missing_resources()
        pairs = list(train.pairs) + (list(test.pairs) if test else [])
        every = _cached_features(pairs, groups)
        if args.save_profile:
            _save_profile(args.save_profile, train.name, list(train.pairs), every(groups))
        experiments: list[tuple[str, tuple[str, ...]]] = [(g, (g,)) for g in groups] if args.each and len(groups) > 1 else []
        if args.ablate and len(groups) > 1:
            experiments += [(f"without {g}", tuple(x for x in groups if x != g)) for g in groups]
        name = "all" if set(groups) == set(ALL_GROUPS) else "+".join(groups) if len(groups) < 4 else "selected"
        experiments.append((name, groups))
        reports = []
        for name, wanted in experiments:
            if args.folds:
                report = cross_validate(pairs, wanted, folds=args.folds, c=args.c, gamma=gamma,
                                        seed=args.seed, ldr_split=args.ldr_split, features=every(wanted))
            else:
                report = train_test(train.pairs, test.pairs if test else (), wanted, c=args.c, gamma=gamma,
                                    ldr_split=args.ldr_split, features=every(wanted))
            reports.append((name, report))
            if args.per_task and args.folds:
                for task in sorted({p.task for p in pairs if p.task}):
                    subset = [p for p in pairs if p.task == task]
                    report = cross_validate(subset, wanted, folds=args.folds, c=args.c, gamma=gamma,
                                            seed=args.seed, features=every(wanted))
                    reports.append((f"{name} [{task} only]", report))
    except ValueError as err:
        if isinstance(err, ExplorerError):
            raise
        return fail(f"invalid option: {err}")
    protocol = (f"{args.folds}-fold cross-validation over {train.name}" + (f" + {test.name}" if test else "")
                if args.folds else f"train {train.name} ({len(train)}), test {test.name if test else ''}")
    if args.json:
        payload = {"train": args.train, "test": args.test, "protocol": protocol,
                   "results": {name: r.to_json() for name, r in reports}}
        print_json(payload)
        return 0
    print(shown(protocol) + "; SVM (RBF), C=" + f"{args.c:g}, gamma={args.gamma}")
    for name, report in reports:
        _print_report(name, report)
    return 0


def configure_corpus_stats(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


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
    rows = totals.rows()
    if args.json:
        print_json({"data": args.data, "rows": [r.__dict__ for r in rows]})
        return 0
    print(f"{shown(Path(args.data).name)}: {rows[0].n} pairs (lengths in tokens)")
    print(f"  {'group':<6} {'n':>5} {'pos.':>6} {'|text|':>7} {'|hyp|':>7} {'LDR':>6} {'edit':>6}")
    for r in rows:
        print(f"  {shown(r.group):<6} {r.n:>5} {r.positive_share:>6.1%} {r.mean_text_length:>7.2f} "
              f"{r.mean_hypothesis_length:>7.2f} {r.mean_ldr:>6.3f} {r.mean_edit_distance:>6.2f}")
    return 0

"""``classify --classifier combined``: the combined entailment classifier on the command line.

Trains :mod:`explorer.combined`'s logistic regression on TRAIN, reports on TEST (accuracy,
precision, recall, F1, per task) and, with ``--save-model``, writes the model JSON that the
``combined`` scorer can load.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.batch.source import read_dataset
from explorer.cli.output import print_json, progress_printer, shown, warn_missing_resources
from explorer.combined import DEFAULT_C, CombinedError, parse_features, train_test


def run_combined_classify(args: argparse.Namespace) -> int:
    """Errors (:class:`explorer.errors.ExplorerError`) are reported by the CLI's entry."""
    names = parse_features(args.features or "default")
    c = DEFAULT_C if args.c is None else args.c
    if not c > 0:
        raise CombinedError("--c must be positive")
    if args.folds:
        raise CombinedError("--folds is not available with --classifier combined; give TRAIN and TEST")
    if not args.test and not args.save_model:
        raise CombinedError("give TEST data to report on, or --save-model PATH to keep the trained model")
    out = Path(args.save_model) if args.save_model else None  # checked when parsed (output_file)
    # TRAIN may name several files joined by commas (e.g. RTE1, RTE2 and RTE3 dev).
    parts = args.train.split(",")
    paths = parts if len(parts) > 1 and all(Path(p).is_file() for p in parts) else [args.train]
    trains = [read_dataset(p) for p in paths]
    train_pairs = [pair for data in trains for pair in data.pairs]
    train_name = " + ".join(d.name for d in trains)
    test = read_dataset(args.test) if args.test else None
    warn_missing_resources()
    model, report = train_test(
        train_pairs, test.pairs if test else None, names, c=c,
        progress=progress_printer("pairs"),
        info={"trained_on_files": [d.name for d in trains]},
    )
    if out is not None:
        try:
            model.save(out)
        except OSError as err:
            raise CombinedError(f"cannot write {out}: {err.strerror}") from None
    if args.json:
        payload = {"train": args.train, "test": args.test, "classifier": "combined", "C": c,
                   "features": list(names), "model": model.to_json(),
                   "results": {"combined": report.to_json()} if report else {}}
        print_json(payload)
        return 0
    print(f"train {shown(train_name)} ({len(train_pairs)}), test {shown(test.name) if test else '-'}; "
          f"logistic regression, C={c:g}, {len(names)} features")
    if report is not None:
        o = report.overall
        print(f"  combined     n={o.n:<5} acc {o.accuracy:6.2%}  P {o.precision:.3f}  R {o.recall:.3f}  F1 {o.f1:.3f}")
        for task, s in report.by_task.items() if len(report.by_task) > 1 else ():
            print(f"      {shown(task):<6} n={s.n:<4} acc {s.accuracy:6.2%}  F1 {s.f1:.3f}")
    print("  weights (standardised features), largest first:")
    for k in sorted(range(len(names)), key=lambda k: -abs(float(model.weights[k]))):
        print(f"    {model.features[k]:<28} {float(model.weights[k]):+.3f}")
    if out is not None:
        print(f"saved {shown(out)}")
    return 0

"""Command ``rewrite``: what-if rewrites of a dataset's pairs (or a slice's), and the
verdicts each scorer flips (:func:`explorer.groups.rewrites.rewrite_run`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from explorer.batch.source import read_dataset
from explorer.cli.output import UsageError, emit, progress_printer, stderr_log, warn_missing_resources
from explorer.datasets import Dataset
from explorer.groups.rewrites import REWRITES, get_rule, rewrite_run
from explorer.scorers import SCORERS, parse_scorer_names


def configure_rewrite(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file (RTE XML, MSRP/STS/SICK TSV, CSV, JSONL)")
    parser.add_argument("--rule", required=True, help=f"the rewrite rule (known: {', '.join(REWRITES)})")
    parser.add_argument("--scorer", required=True,
                        help=f"comma-separated scorer names or 'all' (known: {', '.join(SCORERS)})")
    parser.add_argument("--slice", dest="slice_expression", metavar="EXPR",
                        help="rewrite only the pairs of this slice, e.g. 'negation_only_in_h and task == \"QA\"' "
                             "(the slice language of `slices`)")
    parser.add_argument("--dev", help="development set on which to choose the cutoffs")
    parser.add_argument("--cutoff-rule", default=None,
                        help="how the cutoff is chosen on --dev (as evaluate's --rule; default midpoint)")
    parser.add_argument("--save", action="store_true",
                        help="keep the rewritten pairs as counterfactuals in the store, to open on the Pair page")


def slice_ids(data: Dataset, expression: str, scorers: Sequence[str], dev: Dataset | None,
              rule: str | None = None) -> list[str]:
    """The ids of ``data``'s pairs in the slice ``expression``, decided as ``slices``
    decides them (the frame's verdicts by evaluate's cutoffs). The expression is parsed
    before anything is scored; only the phenomena it names are computed, and only the
    scorers its functions name (which must be among ``scorers``) are run for it.

    Raises:
        UsageError: when this version has no slice language, or the expression asks for
            tags (the command line opens no store to read them).
        SliceError: for an expression the slice language refuses (it names the position;
            its bounds on length and nesting are checked before anything runs).
    """
    try:
        from explorer.groups.frame import group_frame, registered_phenomena, slice_names
        from explorer.groups.language import calls_in, compile_pandas, names_in, parse
    except ImportError:
        raise UsageError("--slice needs the slice language (explorer/groups/language.py), "
                         "which this version does not have") from None
    known = slice_names()
    node = parse(expression, known, scorers=scorers, kinds=known)
    calls = calls_in(node)
    if any(function == "tagged" for function, _ in calls):
        raise UsageError("tagged() reads the tags of the app's store, which the command line does not open; "
                         "ask it on the app's slices page")
    used = sorted(names_in(node) & set(registered_phenomena()))
    called = sorted({scorer for _, scorer in calls})
    frame = group_frame(data, called, dev=dev, phenomena=used, progress=progress_printer("pairs"), rule=rule)
    mask = compile_pandas(node, frame)
    return [str(i) for i in frame.table.loc[mask, "id"]]


def run_rewrite(args: argparse.Namespace) -> int:
    if args.cutoff_rule is not None and not args.dev:
        raise UsageError("--cutoff-rule says how the cutoff is chosen on a development set; give --dev DEV with it")
    get_rule(args.rule)  # an unknown rule is refused before any file is read
    names = parse_scorer_names(args.scorer)
    data = read_dataset(args.data)
    dev: Dataset | None = read_dataset(args.dev) if args.dev else None
    warn_missing_resources()
    ids = (slice_ids(data, args.slice_expression, names, dev, args.cutoff_rule)
           if args.slice_expression is not None else None)
    if ids is not None:
        stderr_log(f"slice: {len(ids)} of {len(data)} pairs")
    report = rewrite_run(data, args.rule, names, dev=dev, ids=ids, progress=progress_printer("pairs"),
                         cutoff_rule=args.cutoff_rule)
    if args.save:
        from explorer.store import Store

        store = Store()
        kept = store.add_counterfactuals(store.add_dataset(data), args.rule, report.counterfactuals())
        stderr_log(f"kept {kept} counterfactual pairs in the store {store.path}")
    return emit(report, args.format)


__all__ = ["configure_rewrite", "run_rewrite", "slice_ids"]

"""Command ``slices``: each scorer's accuracy on groups of pairs, with 95% intervals.

``DATA`` is a dataset file (scored here, one row per pair: :mod:`explorer.groups.frame`)
or a batch result folder (queried in DuckDB: :mod:`explorer.groups.batch_slices`). Every
slice is parsed before anything is scored.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from explorer.batch.schema import MANIFEST
from explorer.batch.source import read_dataset
from explorer.cli.output import UsageError, emit, progress_printer, warn_missing_resources
from explorer.datasets import Dataset
from explorer.decision.rules import DEFAULT_RULE
from explorer.groups.language import SliceError, calls_in, names_in, parse
from explorer.groups.stats import MAX_SLICES, SliceTable, cutoff_lines
from explorer.scorers import SCORERS, parse_scorer_names

#: ``NAME=EXPR``: a name before one "=" that is not part of "==" / "!=" / "<=" / ">=".
_NAMED = re.compile(r"^\s*([^=!<>\"'()\[\]]{1,80}?)\s*=(?!=)(.*)$", re.DOTALL)


def configure_slices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file (RTE XML, MSRP/STS/SICK TSV, CSV, JSONL) or a batch result folder")
    parser.add_argument("--dev", help="labelled development set on which to choose the cutoffs (as evaluate --dev)")
    parser.add_argument("--rule", default=None, help="how the cutoff is chosen on --dev (as evaluate --rule)")
    parser.add_argument("--scorer", default="mbleu",
                        help=f"comma-separated scorer names or 'all' (known: {', '.join(SCORERS)})")
    parser.add_argument("--slice", dest="slices", action="append", default=[], metavar="[NAME=]EXPR",
                        help='a slice, e.g. --slice \'qa=task == "QA"\' or --slice "wrong(bleu) and not wrong(bow)"; '
                             "repeat for more")
    parser.add_argument("--phenomena", action="store_true", help="add every built-in phenomenon as a slice")


def slice_specs(specs: list[str]) -> dict[str, str]:
    """``--slice`` values as name -> expression (a bare expression names itself).

    Raises:
        UsageError: for two slices of one name or more than :data:`MAX_SLICES`.
    """
    if len(specs) > MAX_SLICES:
        raise UsageError(f"{len(specs)} slices; at most {MAX_SLICES} at once")
    out: dict[str, str] = {}
    for spec in specs:
        named = _NAMED.match(spec)
        name, expression = (named.group(1).strip(), named.group(2)) if named else (spec.strip(), spec)
        if name in out:
            raise UsageError(f"two slices are named {name!r}; name them apart with NAME=EXPR")
        out[name] = expression
    return out


def builtin() -> dict[str, str]:
    """The built-in phenomena as slices (empty while none is registered)."""
    try:
        from explorer.groups.phenomena import builtin_slices
    except ImportError:
        return {}
    return dict(builtin_slices())


def run_slices(args: argparse.Namespace) -> int:
    if args.rule is not None and not args.dev:
        raise UsageError("--rule says how the cutoff is chosen on a development set; give --dev DEV with it")
    slices = slice_specs(args.slices)
    if args.phenomena:
        found = builtin()
        if not found:
            raise UsageError("no built-in phenomena are registered in this installation; give --slice EXPR")
        slices = {**found, **slices}
    if not slices:
        raise UsageError('give at least one --slice EXPR (e.g. --slice \'task == "QA"\') or --phenomena')
    names = parse_scorer_names(args.scorer)
    rule = args.rule or DEFAULT_RULE
    dev: Dataset | None = read_dataset(args.dev) if args.dev else None
    if (Path(args.data) / MANIFEST).is_file():
        return _run_batch(args, names, slices, dev, rule)
    used = _phenomena_used(slices, names)
    data = read_dataset(args.data)
    warn_missing_resources()
    from explorer.groups.frame import group_frame
    from explorer.groups.stats import slice_results

    frame = group_frame(data, names, dev=dev, phenomena=sorted(used), progress=progress_printer("pairs"), rule=rule)
    table = SliceTable(args.data, len(frame.table), tuple(slice_results(frame, slices)),
                       cutoff_lines(frame.cutoffs, names), args.dev)
    return emit(table, args.format)


def _phenomena_used(slices: dict[str, str], scorers: list[str]) -> set[str]:
    """The phenomena the slices name (only those are computed); every slice parsed here,
    before any scoring.

    Raises:
        SliceError: naming the first slice that does not parse.
    """
    from explorer.groups.frame import registered_phenomena, slice_names

    known = slice_names()
    phenomena = registered_phenomena()
    used: set[str] = set()
    for name, expression in slices.items():
        try:
            node = parse(expression, known, scorers=scorers, kinds=known)
        except SliceError as error:
            raise SliceError(f"slice {name!r}: {error}") from None
        if any(function == "tagged" for function, _ in calls_in(node)):
            raise UsageError(f"slice {name!r}: tagged() reads the tags of the app's store, which the command line "
                             "does not open; ask it on the app's slices page")
        used |= names_in(node)
    return used & set(phenomena)


def _run_batch(args: argparse.Namespace, scorers: list[str], slices: dict[str, str], dev: Dataset | None,
               rule: str) -> int:
    from explorer.batch.query import BatchResult
    from explorer.groups.batch_slices import batch_slice_results

    result = BatchResult.open(args.data)
    found, cutoffs = batch_slice_results(result, scorers, slices, dev=dev, rule=rule)
    n = result.count()
    return emit(SliceTable(args.data, n, tuple(found), cutoff_lines(cutoffs, scorers), args.dev), args.format)

"""Command ``align-eval``: an aligner against gold alignments (:mod:`explorer.aligners.evaluation`)."""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace
from pathlib import Path

from explorer.aligners import ALIGNERS, get_aligner
from explorer.aligners.evaluation import (
    AlignEvalReport,
    load_gold,
    predictions_json,
    reachability,
    report,
    run_aligner,
    score_pair,
)
from explorer.api import Aligner, method_signature
from explorer.batch.source import read_dataset
from explorer.cli.output import UsageError, emit, fail, int_in, output_file, progress_printer


def configure_align_eval(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("gold", nargs="+", help="gold file(s): MSR .align.txt or Edinburgh++ JSON; several MSR "
                        "annotator files (A, B, C) are merged by majority, other files added after them")
    parser.add_argument("--aligner", help=f"aligner to evaluate (known: {', '.join(ALIGNERS) or 'none yet'})")
    parser.add_argument("--model", help="with --aligner: a trained model file for aligners that take one, or a shipped "
                        "model's name (manli: msr, the default, or msr_edi)")
    parser.add_argument("--out", type=output_file, help="with --aligner: write predictions as a JSON list of "
                        "{id, source, target, sureAlign}")
    parser.add_argument("--reachability", action="store_true", help="report gold links no one-to-one phrase alignment can reach")
    parser.add_argument("--limit", type=int_in(1, 10**9), help="evaluate only the first N problems")


def _build_aligner(name: str, model: str | None) -> Aligner:
    aligner = get_aligner(name)
    if model is None:
        return aligner
    with_model = getattr(aligner, "with_model", None)
    if with_model is None:
        raise ValueError(f"aligner {name!r} takes no --model")
    built: Aligner = with_model(model)
    return built


def _model_file(aligner: str, model: str | None) -> str | Path | None:
    """The file behind ``--model`` (MANLI's shipped models go by name)."""
    if model is None or aligner != "manli":
        return model
    from explorer.aligners.manli import model_file

    return model_file(model)


def run_align_eval(args: argparse.Namespace) -> int:
    if args.aligner is None:
        if not args.reachability:
            raise UsageError("give --aligner NAME (or --reachability to check the gold alone)")
        for option, given in (("--model", args.model), ("--out", args.out)):
            if given is not None:
                raise UsageError(f"{option} goes with --aligner NAME")
    dataset = load_gold(args.gold, read=read_dataset)
    pairs = [p for p in dataset.pairs if p.gold_alignment is not None][: args.limit]
    record = AlignEvalReport(dataset.name, len(pairs))
    if args.aligner is not None:
        try:
            aligner = _build_aligner(args.aligner, args.model)
        except (ValueError, OSError) as err:  # an unusable --model file, or one the aligner does not take
            return fail(str(err))
        report_progress = progress_printer("problems", tty_every=50, pipe_every=200)
        alignments, seconds = run_aligner(aligner, pairs, progress=lambda i, n: report_progress("align-eval", i, n))
        try:
            scores = [score_pair(p.id, a, p.gold_alignment) for p, a in zip(pairs, alignments) if p.gold_alignment]
        except ValueError as err:
            return fail(str(err))
        record = AlignEvalReport(
            dataset.name, len(pairs), args.aligner, report(scores), statistics.median(seconds),
            method_signature(ALIGNERS[args.aligner], model=_model_file(args.aligner, args.model)))
        if args.out:
            try:
                Path(args.out).write_text(json.dumps(predictions_json(pairs, alignments), indent=1) + "\n",
                                          encoding="utf-8")
            except OSError as err:
                return fail(f"{args.out}: cannot write ({err.strerror})")
            record = replace(record, predictions=str(args.out))
    if args.reachability:
        record = replace(record, reach=reachability(pairs))
    return emit(record, args.format)

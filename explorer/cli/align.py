"""Command ``align-eval``: an aligner against gold alignments (:mod:`explorer.aligners.evaluation`)."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from explorer.aligners import ALIGNERS, get_aligner
from explorer.aligners.evaluation import load_gold, predictions_json, reachability, report, run_aligner, score_pair
from explorer.api import method_signature
from explorer.cli.output import fail, int_in, output_file, progress_printer, shown


def configure_align_eval(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("gold", nargs="+", help="gold file(s): one MSR .align.txt or Edinburgh++ JSON, or the MSR A/B/C files to merge by majority")
    parser.add_argument("--aligner", help=f"aligner to evaluate (known: {', '.join(ALIGNERS) or 'none yet'})")
    parser.add_argument("--model", help="trained model file for aligners that take one, or a shipped model's name "
                        "(manli: msr, the default, or msr_edi)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--out", type=output_file, help="write predictions as a JSON list of {id, source, target, sureAlign}")
    parser.add_argument("--reachability", action="store_true", help="report gold links no one-to-one phrase alignment can reach")
    parser.add_argument("--limit", type=int_in(1, 10**9), help="evaluate only the first N problems")


def _build_aligner(name: str, model: str | None) -> Any:
    aligner = get_aligner(name)
    if model is None:
        return aligner
    with_model = getattr(aligner, "with_model", None)
    if with_model is None:
        raise ValueError(f"aligner {name!r} takes no --model")
    return with_model(model)


def _model_file(aligner: str, model: str | None) -> str | Path | None:
    """The file behind ``--model`` (MANLI's shipped models go by name)."""
    if model is None or aligner != "manli":
        return model
    from explorer.aligners.manli import model_file

    return model_file(model)


def run_align_eval(args: argparse.Namespace) -> int:
    if args.aligner is None and not args.reachability:
        return fail("give --aligner NAME (or --reachability to check the gold alone)")
    if args.limit is not None and args.limit < 1:
        return fail("--limit must be at least 1")
    dataset = load_gold(args.gold)
    pairs = [p for p in dataset.pairs if p.gold_alignment is not None]
    if args.limit is not None:
        pairs = pairs[: args.limit]
    output: dict[str, Any] = {"gold": dataset.name}
    lines: list[str] = [f"gold: {shown(dataset.name)} ({len(pairs)} problems with gold alignments)"]
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
        result = report(scores)
        median = statistics.median(seconds)
        output.update(
            aligner=args.aligner,
            n=result.n,
            precision=result.precision,
            recall=result.recall,
            f1=result.f1,
            mean_pair_f1=result.mean_pair_f1,
            exact=result.exact,
            seconds_per_pair_median=median,
            signature=method_signature(ALIGNERS[args.aligner], model=_model_file(args.aligner, args.model)),
        )
        lines += [
            f"aligner: {args.aligner}",
            f"precision {100 * result.precision:.1f}  recall {100 * result.recall:.1f}  "
            f"F1 {100 * result.f1:.1f}  (mean per-problem F1 {100 * result.mean_pair_f1:.1f})  "
            f"exact {100 * result.exact:.1f}%",
            f"median {1000 * median:.2f} ms per problem",
        ]
        if args.out:
            try:
                Path(args.out).write_text(json.dumps(predictions_json(pairs, alignments), indent=1) + "\n", encoding="utf-8")
            except OSError as err:
                return fail(f"{args.out}: cannot write ({err.strerror})")
            lines.append(f"predictions written to {shown(args.out)}")
    if args.reachability:
        reach = reachability(pairs)
        output["reachability"] = {
            "gold_links": reach.gold_links,
            "unreachable": reach.unreachable,
            "unreachable_whole_components": reach.unreachable_whole,
            "problems": reach.problems,
        }
        lines.append(
            f"reachability: {reach.unreachable} of {reach.gold_links} gold SURE links in {reach.problems} problems "
            f"cannot be reached by one-to-one phrase edits ({reach.unreachable_whole} if whole link components are dropped)"
        )
        lines += [f"  problem {shown(pid)}: {' '.join(f'{p}-{h}' for p, h in links)}" for pid, links in reach.examples[:20]]
        if len(reach.examples) > 20:
            lines.append(f"  ... and {len(reach.examples) - 20} more problems")
    if args.json:
        print(json.dumps(output))
    else:
        print("\n".join(lines))
    return 0

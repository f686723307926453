"""Commands ``evaluate``, ``score`` and ``resources``."""

from __future__ import annotations

import argparse
from dataclasses import replace

from explorer import resources
from explorer.api import method_signature
from explorer.batch.source import read_dataset
from explorer.cli.output import print_json, progress_printer, result_to_json, shown, stderr_log, warn_missing_resources
from explorer.datasets import Dataset
from explorer.decision.evaluation import evaluate
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer, parse_scorer_names

# -- evaluate -----------------------------------------------------------------------

def configure_evaluate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="dataset file (RTE XML, MSRP/STS/SICK TSV, CSV, JSONL)")
    parser.add_argument("--dev", help="development set on which to choose the cutoff")
    parser.add_argument("--rule", default=None,
                        help="how the cutoff is chosen on --dev: best, midpoint (default), plateau, smoothed, "
                             "prior, logistic (explorer/decision/rules.py)")
    parser.add_argument(
        "--scorer", default="mbleu",
        help=f"comma-separated scorer names or 'all' (known: {', '.join(SCORERS)})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def labelled_subset(data: Dataset) -> tuple[Dataset, int]:
    """A partly labelled classification dataset (e.g. SNLI's ``-`` pairs, MSR gold joined
    to NLTK's 400 RTE2 labels) as its labelled pairs, and how many were left out (said on
    stderr). Graded, fully labelled and wholly unlabelled data come back unchanged."""
    if data.kind == "graded":
        return data, 0
    kept = tuple(p for p in data.pairs if p.entails is not None)
    left_out = len(data.pairs) - len(kept)
    if not kept or not left_out:
        return data, 0
    stderr_log(f"note: {left_out} of {len(data.pairs)} pairs of {data.name} have no entailment label "
               f"and are left out; evaluating the {len(kept)} labelled pairs")
    return replace(data, pairs=kept), left_out


def run_evaluate(args: argparse.Namespace) -> int:
    names = parse_scorer_names(args.scorer)
    data = read_dataset(args.data)
    dev: Dataset | None = read_dataset(args.dev) if args.dev else None
    data, left_out = labelled_subset(data)
    warn_missing_resources()
    results = evaluate(data, names, dev=dev, progress=progress_printer("pairs"), rule=args.rule)
    if args.json:
        from explorer.decision.rules import DEFAULT_RULE

        payload = {
            "data": args.data,
            "dev": args.dev,
            "rule": (args.rule or DEFAULT_RULE) if args.dev else None,
            "unlabelled_left_out": left_out,
            "results": [
                {**r.to_json(), "signature": method_signature(
                    SCORERS[r.scorer], cutoff_source=getattr(r.report, "cutoff_source", None))}
                for r in results
            ],
        }
        print_json(payload)
        return 0
    print(f"{shown(data.name)}: {len(data)} pairs ({data.kind})" + (f"; cutoffs chosen on {shown(dev.name)}" if dev else ""))
    for note in data.notes:
        print(f"  note: {shown(note)}")
    for r in results:
        body = r.to_json()
        if "pearson" in body:
            print(f"  {r.scorer:<10} pearson {body['pearson']:.4f}  spearman {body['spearman']:.4f}  ({r.seconds:.2f} s)")
            continue
        print(
            f"  {r.scorer:<10} accuracy {body['accuracy']:.2%}  cutoff {body['cutoff']:.4f} ({body['cutoff_source']})"
            f"  cws {body['cws']:.4f}  ap {body['average_precision']:.4f}  ({r.seconds:.2f} s)"
        )
        for task, t in body["by_task"].items():
            print(f"      {shown(task):<6} n={t['n']:<4} accuracy {t['accuracy']:.2%}  cws {t['cws']:.4f}  ap {t['average_precision']:.4f}")
    return 0


# -- score --------------------------------------------------------------------------

def configure_score(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--text", required=True, help="the text (premise)")
    parser.add_argument("--hypothesis", required=True, help="the hypothesis")
    parser.add_argument("--scorer", default="all", help="comma-separated scorer names or 'all'")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_score(args: argparse.Namespace) -> int:
    names = parse_scorer_names(args.scorer)
    pair = analyze_pair(make_pair(args.text, args.hypothesis))
    results = {name: get_scorer(name).score(pair) for name in names}
    if args.json:
        payload = {
            "text_tokens": list(pair.text.tokens),
            "hypothesis_tokens": list(pair.hypothesis.tokens),
            "scores": {name: result_to_json(r) for name, r in results.items()},
        }
        print_json(payload, ensure_ascii=False)
        return 0
    print("text:       " + shown(" ".join(pair.text.tokens)))
    print("hypothesis: " + shown(" ".join(pair.hypothesis.tokens)))
    for name, r in results.items():
        print(f"  {name:<10} {r.value:.4f}")
    return 0


# -- resources ----------------------------------------------------------------------

def configure_resources(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--download", action="store_true", help="download every missing resource with nltk.download")


def run_resources(args: argparse.Namespace) -> int:
    if args.download:
        results = resources.download()
        for nltk_id, ok in results.items():
            print(f"{nltk_id}: {'downloaded' if ok else 'FAILED (check your network or NLTK_DATA)'}")
        if not results:
            print("every resource is already installed")
    width = max(len(r.nltk_id) for r in resources.RESOURCES)
    for row in resources.describe():
        line = f"{row['resource']:<{width}}  {row['status']:<8} {row['used for']}"
        if row["status"] == "missing":
            line += f"\n{'':<{width}}  without it: {row['without it']}"
        print(line)
    return 1 if resources.missing() and args.download else 0

"""Commands ``evaluate``, ``score`` and ``resources``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace

from explorer import resources
from explorer.api import ScoreResult, shown
from explorer.batch.source import read_dataset
from explorer.cli.output import UsageError, emit, progress_printer, stderr_log, warn_missing_resources
from explorer.datasets import Dataset
from explorer.decision.evaluation import EvaluationReport, evaluate
from explorer.decision.rules import DEFAULT_RULE
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
    if args.rule is not None and not args.dev:
        raise UsageError("--rule says how the cutoff is chosen on a development set; give --dev DEV with it")
    names = parse_scorer_names(args.scorer)
    data = read_dataset(args.data)
    dev: Dataset | None = read_dataset(args.dev) if args.dev else None
    data, left_out = labelled_subset(data)
    warn_missing_resources()
    rule = args.rule or DEFAULT_RULE
    results = evaluate(data, names, dev=dev, progress=progress_printer("pairs"), rule=rule)
    return emit(EvaluationReport(data, tuple(results), args.data, args.dev, dev, rule if dev else None, left_out),
                args.format)


# -- score --------------------------------------------------------------------------

@dataclass(frozen=True)
class PairScores:
    """What ``score`` prints: the pair's tokens and each scorer's result."""

    text_tokens: tuple[str, ...]
    hypothesis_tokens: tuple[str, ...]
    scores: dict[str, ScoreResult]

    def to_json(self) -> dict[str, object]:
        return {"text_tokens": list(self.text_tokens), "hypothesis_tokens": list(self.hypothesis_tokens),
                "scores": {name: r.to_json() for name, r in self.scores.items()}}

    def format(self) -> str:
        """The tokens, then one line per scorer: its value and what explains it."""
        return "\n".join([f"text:       {shown(' '.join(self.text_tokens))}",
                          f"hypothesis: {shown(' '.join(self.hypothesis_tokens))}",
                          *(f"  {name:<10} {r.format()}" for name, r in self.scores.items())])


def configure_score(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--text", required=True, help="the text (premise)")
    parser.add_argument("--hypothesis", required=True, help="the hypothesis")
    parser.add_argument("--scorer", default="all", help="comma-separated scorer names or 'all'")


def run_score(args: argparse.Namespace) -> int:
    names = parse_scorer_names(args.scorer)
    pair = analyze_pair(make_pair(args.text, args.hypothesis))
    results = {name: get_scorer(name).score(pair) for name in names}
    return emit(PairScores(pair.text.tokens, pair.hypothesis.tokens, results), args.format)


# -- resources ----------------------------------------------------------------------

@dataclass(frozen=True)
class ResourceReport:
    """What ``resources`` prints: each NLTK resource's status, and what a download did."""

    rows: tuple[dict[str, str], ...]
    downloaded: dict[str, bool] | None = None

    def to_json(self) -> dict[str, object]:
        return {"resources": list(self.rows), "downloaded": self.downloaded}

    def format(self) -> str:
        lines = []
        if self.downloaded is not None:
            lines += [f"{nltk_id}: {'downloaded' if ok else 'FAILED (check your network or NLTK_DATA)'}"
                      for nltk_id, ok in self.downloaded.items()] or ["every resource is already installed"]
        width = max(len(row["resource"]) for row in self.rows)
        for row in self.rows:
            lines.append(f"{row['resource']:<{width}}  {row['status']:<8} {row['used for']}")
            if row["status"] == "missing":
                lines.append(f"{'':<{width}}  without it: {row['without it']}")
        return "\n".join(lines)


def configure_resources(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--download", action="store_true", help="download every missing resource with nltk.download")


def run_resources(args: argparse.Namespace) -> int:
    # NLTK's downloader writes its progress on stdout: quiet when stdout carries JSON.
    downloaded = resources.download(quiet=args.format == "json") if args.download else None
    emit(ResourceReport(tuple(resources.describe()), downloaded), args.format)
    return 1 if resources.missing() and args.download else 0

"""Alignment evaluation against gold token links, as in MacCartney, Galley & Manning
(2008, §5): per-problem precision and recall of aligned token pairs, SURE gold links
only, macro-averaged over problems; F1 is the harmonic mean of the macro precision and
recall (the mean of per-problem F1 is reported beside it); exact match is the share of
problems whose predicted links equal the gold SURE links.

Edge cases: a problem with no predicted links has precision 1 (nothing wrong was
claimed); one with no gold SURE links has recall 1. A problem's F1 is 0 when its
precision and recall are both 0.

The CLI command ``align-eval`` runs a registered aligner over gold files and prints
these figures (``--json`` for the machine-readable contract), writes predictions in
the ``{"id", "source", "target", "sureAlign"}`` format published aligners use
(``--out``), and reports gold links no one-to-one phrase alignment can reach
(``--reachability``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.alignment import Alignment
from explorer.datasets import Dataset, DatasetError, detect_file_format, load
from explorer.pairs import Pair


@dataclass(frozen=True)
class PairScore:
    """One problem's figures: counts of predicted, gold SURE and correct links."""

    id: str
    predicted: int
    gold: int
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        return harmonic_mean(self.precision, self.recall)

    @property
    def exact(self) -> bool:
        return self.correct == self.predicted == self.gold


def harmonic_mean(p: float, r: float) -> float:
    """``2pr / (p + r)``, 0 when both are 0."""
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def score_pair(pair_id: str, predicted: Alignment, gold: Alignment) -> PairScore:
    """Compare predicted links (SURE and POSSIBLE alike: systems output one kind) with
    the gold SURE links.

    Raises:
        ValueError: when the two alignments are for different sentence lengths.
    """
    if (predicted.p_len, predicted.h_len) != (gold.p_len, gold.h_len):
        raise ValueError(
            f"problem {pair_id}: prediction is {predicted.p_len}x{predicted.h_len} tokens, "
            f"gold {gold.p_len}x{gold.h_len}; the aligner must keep the gold tokens"
        )
    links = predicted.links
    return PairScore(pair_id, len(links), len(gold.sure), len(links & gold.sure))


@dataclass(frozen=True)
class AlignmentReport:
    """Macro-averaged figures over problems, and the per-problem scores."""

    n: int
    precision: float
    recall: float
    f1: float
    mean_pair_f1: float
    exact: float
    pairs: tuple[PairScore, ...]


def report(scores: Sequence[PairScore]) -> AlignmentReport:
    """Macro-average per-problem scores.

    Raises:
        ValueError: for an empty list.
    """
    if not scores:
        raise ValueError("no problems to evaluate")
    precision = statistics.fmean(s.precision for s in scores)
    recall = statistics.fmean(s.recall for s in scores)
    return AlignmentReport(
        n=len(scores),
        precision=precision,
        recall=recall,
        f1=harmonic_mean(precision, recall),
        mean_pair_f1=statistics.fmean(s.f1 for s in scores),
        exact=sum(s.exact for s in scores) / len(scores),
        pairs=tuple(scores),
    )


@dataclass(frozen=True)
class Reachability:
    """Gold SURE links that no one-to-one phrase alignment can hold."""

    gold_links: int
    unreachable_whole: int  # links of components that are not one full block
    unreachable: int  # links outside the closest reachable alignment
    problems: int  # problems with at least one unreachable link
    examples: tuple[tuple[str, tuple[tuple[int, int], ...]], ...]


def reachability(pairs: Sequence[Pair]) -> Reachability:
    """Count unreachable gold SURE links, strictly (whole components) and after
    keeping the largest reachable part of each (:meth:`Alignment.to_phrase_edits`)."""
    gold_links = whole = partial = problems = 0
    examples: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    for pair in pairs:
        gold = pair.gold_alignment
        if gold is None:
            continue
        gold_links += len(gold.sure)
        whole += len(gold.to_phrase_edits()[1])
        _, lost = gold.to_phrase_edits(partial=True)
        partial += len(lost)
        if lost:
            problems += 1
            examples.append((pair.id, tuple(sorted(lost))))
    return Reachability(gold_links, whole, partial, problems, tuple(examples))


# -- gold files ---------------------------------------------------------------------------

def load_gold(paths: Sequence[str | Path]) -> Dataset:
    """One gold file, or several MSR annotator files merged by majority.

    Raises:
        DatasetError: for unreadable files, several files that are not all MSR, or a
            file without gold alignments.
    """
    if not paths:
        raise DatasetError("give at least one gold alignment file")
    if len(paths) == 1:
        dataset = load(paths[0])
    else:
        from explorer.datasets.msr_align import load_annotators

        for path in paths:
            if not Path(path).is_file():
                raise DatasetError(f"{path}: no such file")
            try:
                fmt = detect_file_format(path)
            except DatasetError:
                fmt = "unknown"
            if fmt != "msr_align":
                raise DatasetError(
                    f"{path}: several gold files are merged only when all are MSR annotator files; this one is {fmt}"
                )
        dataset = load_annotators(paths)
    if not dataset.has_gold_alignments:
        raise DatasetError(f"{dataset.name}: has no gold alignments (use an MSR .align.txt or Edinburgh++ JSON file)")
    return dataset


# -- running an aligner ------------------------------------------------------------------------

def run_aligner(
    aligner: Any, pairs: Sequence[Pair], *, progress: bool = False
) -> tuple[list[Alignment], list[float]]:
    """Align every pair; returns the alignments and the seconds each ``align`` call
    took. Tokens are tagged and lemmatised before the clock starts, so the times are
    the aligner's own."""
    from explorer.preprocess import analyze_pair

    alignments: list[Alignment] = []
    seconds: list[float] = []
    n = len(pairs)
    tty = sys.stderr.isatty()
    for i, pair in enumerate(pairs, start=1):
        analysed = analyze_pair(pair)
        for side in (analysed.text, analysed.hypothesis):
            side.lemmas, side.stop  # noqa: B018 -- computed (and cached) outside the timing
        start = time.perf_counter()
        result = aligner.align(analysed)
        seconds.append(time.perf_counter() - start)
        alignments.append(result.alignment)
        if progress and (i == n or (i % 50 == 0 if tty else i % 200 == 0)):
            end = "\n" if i == n or not tty else ""
            print(f"\ralign-eval: {i}/{n} problems" if tty else f"align-eval: {i}/{n} problems", end=end, file=sys.stderr, flush=True)
    return alignments, seconds


def predictions_json(pairs: Sequence[Pair], alignments: Sequence[Alignment]) -> list[dict[str, str]]:
    """Predictions in the published-aligner format: 0-based ``text-hypothesis`` links."""
    return [
        {
            "id": pair.id,
            "source": " ".join(pair.text_tokens or ()),
            "target": " ".join(pair.hypothesis_tokens or ()),
            "sureAlign": " ".join(f"{p}-{h}" for p, h in sorted(alignment.links)),
        }
        for pair, alignment in zip(pairs, alignments)
    ]


# -- CLI ------------------------------------------------------------------------------------------

def configure(parser: argparse.ArgumentParser) -> None:
    from explorer.aligners import ALIGNERS

    parser.add_argument("gold", nargs="+", help="gold file(s): one MSR .align.txt or Edinburgh++ JSON, or the MSR A/B/C files to merge by majority")
    parser.add_argument("--aligner", help=f"aligner to evaluate (known: {', '.join(ALIGNERS) or 'none yet'})")
    parser.add_argument("--model", help="trained model file for aligners that take one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--out", help="write predictions as a JSON list of {id, source, target, sureAlign}")
    parser.add_argument("--reachability", action="store_true", help="report gold links no one-to-one phrase alignment can reach")
    parser.add_argument("--limit", type=int, help="evaluate only the first N problems")


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _build_aligner(name: str, model: str | None) -> Any:
    from explorer.aligners import get_aligner

    aligner = get_aligner(name)
    if model is None:
        return aligner
    with_model = getattr(aligner, "with_model", None)
    if with_model is None:
        raise ValueError(f"aligner {name!r} takes no --model")
    return with_model(model)


def run(args: argparse.Namespace) -> int:
    from explorer.aligners import UnknownAlignerError

    if args.aligner is None and not args.reachability:
        return _fail("give --aligner NAME (or --reachability to check the gold alone)")
    if args.limit is not None and args.limit < 1:
        return _fail("--limit must be at least 1")
    try:
        dataset = load_gold(args.gold)
    except DatasetError as err:
        return _fail(str(err))
    pairs = [p for p in dataset.pairs if p.gold_alignment is not None]
    if args.limit is not None:
        pairs = pairs[: args.limit]
    output: dict[str, Any] = {"gold": dataset.name}
    lines: list[str] = [f"gold: {dataset.name} ({len(pairs)} problems with gold alignments)"]
    if args.aligner is not None:
        try:
            aligner = _build_aligner(args.aligner, args.model)
        except (UnknownAlignerError, ValueError, OSError) as err:
            return _fail(str(err))
        alignments, seconds = run_aligner(aligner, pairs, progress=True)
        try:
            scores = [score_pair(p.id, a, p.gold_alignment) for p, a in zip(pairs, alignments) if p.gold_alignment]
        except ValueError as err:
            return _fail(str(err))
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
                return _fail(f"{args.out}: cannot write ({err.strerror})")
            lines.append(f"predictions written to {args.out}")
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
        lines += [f"  problem {pid}: {' '.join(f'{p}-{h}' for p, h in links)}" for pid, links in reach.examples[:20]]
        if len(reach.examples) > 20:
            lines.append(f"  ... and {len(reach.examples) - 20} more problems")
    if args.json:
        print(json.dumps(output))
    else:
        print("\n".join(lines))
    return 0

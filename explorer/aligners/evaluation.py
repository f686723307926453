"""Alignment evaluation against gold token links, as in MacCartney, Galley & Manning
(2008, §5): per-problem precision and recall of aligned token pairs, SURE gold links
only, macro-averaged over problems; F1 is the harmonic mean of the macro precision and
recall (the mean of per-problem F1 is reported beside it); exact match is the share of
problems whose predicted links equal the gold SURE links.

Edge cases: a problem with no predicted links has precision 1 (nothing wrong was
claimed); one with no gold SURE links has recall 1. A problem's F1 is 0 when its
precision and recall are both 0.

The CLI command ``align-eval`` (:mod:`explorer.cli.align`) runs a registered aligner over gold files and prints
these figures (:class:`AlignEvalReport`, as text or JSON), writes predictions in
the ``{"id", "source", "target", "sureAlign"}`` format published aligners use
(``--out``), and reports gold links no one-to-one phrase alignment can reach
(``--reachability``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.alignment import Alignment
from explorer.api import Aligner, shown
from explorer.datasets import Dataset, DatasetError, Reader, load
from explorer.pairs import Pair

__all__ = [
    "AlignEvalReport", "AlignmentReport", "PairScore", "Progress", "Reachability", "harmonic_mean", "load_gold",
    "predictions_json", "reachability", "report", "run_aligner", "score_pair",
]

#: ``progress(done, total)``, called after each problem.
Progress = Callable[[int, int], None]


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

    def format(self, shown_examples: int = 20) -> str:
        """The counts, then the first problems' unreachable links."""
        lines = [f"reachability: {self.unreachable} of {self.gold_links} gold SURE links in {self.problems} problems "
                 f"cannot be reached by one-to-one phrase edits ({self.unreachable_whole} if whole link components "
                 "are dropped)"]
        lines += [f"  problem {shown(pid)}: {' '.join(f'{p}-{h}' for p, h in links)}"
                  for pid, links in self.examples[:shown_examples]]
        if len(self.examples) > shown_examples:
            lines.append(f"  ... and {len(self.examples) - shown_examples} more problems")
        return "\n".join(lines)


@dataclass(frozen=True)
class AlignEvalReport:
    """What ``align-eval`` prints: an aligner's figures on a gold set (when one ran),
    where its predictions went, and the gold links no phrase alignment can reach (when
    asked for).

    Attributes:
        gold: the gold set's name; ``problems`` its problems with gold alignments.
        signature: :func:`explorer.api.method_signature` of the aligner (and its model).
        predictions: the file the predictions were written to.
    """

    gold: str
    problems: int
    aligner: str | None = None
    result: AlignmentReport | None = None
    seconds_per_pair_median: float | None = None
    signature: dict[str, object] | None = None
    predictions: str | None = None
    reach: Reachability | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"gold": self.gold}
        if self.result is not None:
            r = self.result
            out.update(aligner=self.aligner, n=r.n, precision=r.precision, recall=r.recall, f1=r.f1,
                       mean_pair_f1=r.mean_pair_f1, exact=r.exact,
                       seconds_per_pair_median=self.seconds_per_pair_median, signature=self.signature)
        if self.reach is not None:
            out["reachability"] = {"gold_links": self.reach.gold_links, "unreachable": self.reach.unreachable,
                                   "unreachable_whole_components": self.reach.unreachable_whole,
                                   "problems": self.reach.problems}
        return out

    def format(self) -> str:
        lines = [f"gold: {shown(self.gold)} ({self.problems} problems with gold alignments)"]
        if self.result is not None:
            r = self.result
            lines += [f"aligner: {self.aligner}",
                      f"precision {100 * r.precision:.1f}  recall {100 * r.recall:.1f}  F1 {100 * r.f1:.1f}  "
                      f"(mean per-problem F1 {100 * r.mean_pair_f1:.1f})  exact {100 * r.exact:.1f}%",
                      f"median {1000 * (self.seconds_per_pair_median or 0.0):.2f} ms per problem"]
        if self.predictions is not None:
            lines.append(f"predictions written to {shown(self.predictions)}")
        if self.reach is not None:
            lines.append(self.reach.format())
        return "\n".join(lines)


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

def load_gold(paths: Sequence[str | Path], *, read: Reader | None = None) -> Dataset:
    """Gold alignment files as one set (:func:`explorer.datasets.load_many`: several MSR
    annotator files merged by majority, other files after them).

    Raises:
        DatasetError: for unreadable files, or a file without gold alignments (it would
            add nothing to evaluate).
    """
    from explorer.datasets import load_many

    def gold(path: Path) -> Dataset:
        dataset = (read or load)(path)
        if not dataset.has_gold_alignments:
            raise DatasetError(f"{path}: has no gold alignments (use an MSR .align.txt or Edinburgh++ JSON file)")
        return dataset

    return load_many(paths, read=gold)


# -- running an aligner ------------------------------------------------------------------------

def run_aligner(
    aligner: Aligner, pairs: Sequence[Pair], *, progress: Progress | None = None
) -> tuple[list[Alignment], list[float]]:
    """Align every pair; returns the alignments and the seconds each ``align`` call
    took. Tokens are tagged and lemmatised before the clock starts, so the times are
    the aligner's own. ``progress(i, n)`` is called after each pair."""
    from explorer.preprocess import analyze_pair

    alignments: list[Alignment] = []
    seconds: list[float] = []
    n = len(pairs)
    for i, pair in enumerate(pairs, start=1):
        analysed = analyze_pair(pair)
        for side in (analysed.text, analysed.hypothesis):
            side.lemmas, side.stop  # noqa: B018 -- computed (and cached) outside the timing
        start = time.perf_counter()
        result = aligner.align(analysed)
        seconds.append(time.perf_counter() - start)
        alignments.append(result.alignment)
        if progress is not None:
            progress(i, n)
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

"""Published figures for the methods the explorer implements, kept as data with sources.

The Evaluate page shows them beside what the explorer measures on the same data with the
same method. A figure belongs to a dataset (a key from :func:`dataset_key`, e.g.
``rte1_dev``) and a scorer name from :data:`explorer.scorers.SCORERS`. Other methods add
their papers' figures by appending :class:`PublishedFigure` rows to :data:`PUBLISHED`.

Sources:

* Szymanski, "Recognizing Textual Entailment With a Modified BLEU Algorithm": accuracy
  of unmodified BLEU and of the modified BLEU (linear mean, no brevity penalty), cutoff
  chosen on RTE1 dev (0.221 for the modified BLEU; for BLEU two equal peaks, 0.002 and
  0.132, of which the paper took the lower).
* MacCartney, Galley & Manning (2008): accuracy and average precision of the
  bag-of-words aligner's score as an entailment classifier, cutoff tuned on RTE2 dev.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

SZYMANSKI = 'Szymanski, "Recognizing Textual Entailment With a Modified BLEU Algorithm"'
MACCARTNEY = 'MacCartney, Galley & Manning 2008, "A Phrase-Based Alignment Model for Natural Language Inference"'


@dataclass(frozen=True)
class PublishedFigure:
    """One number from a paper.

    Attributes:
        dataset: the dataset key (see :func:`dataset_key`), e.g. ``rte1_dev``.
        scorer: the explorer's name for the method (a key of ``SCORERS``).
        metric: ``accuracy``, ``cws``, ``average_precision``, ``pearson`` or ``spearman``;
            fractions in 0..1.
        value: the published figure.
        source: the paper (and table or section where the paper gives one).
        cutoff: the decision cutoff the paper used, if it says.
        cutoff_from: the dataset key the cutoff was chosen on, if it says.
        note: anything that makes the comparison less than exact.
    """

    dataset: str
    scorer: str
    metric: str
    value: float
    source: str
    cutoff: float | None = None
    cutoff_from: str | None = None
    note: str = ""


PUBLISHED: tuple[PublishedFigure, ...] = (
    PublishedFigure("rte1_dev", "mbleu", "accuracy", 0.578, SZYMANSKI, 0.221, "rte1_dev"),
    PublishedFigure("rte1_test", "mbleu", "accuracy", 0.538, SZYMANSKI, 0.221, "rte1_dev"),
    PublishedFigure("rte2_dev", "mbleu", "accuracy", 0.604, SZYMANSKI, 0.221, "rte1_dev",
                    "all 800 RTE2 dev pairs; NLTK ships the first 400"),
    PublishedFigure("rte1_dev", "bleu", "accuracy", 0.538, SZYMANSKI, 0.002, "rte1_dev",
                    "equal peaks at 0.002 and 0.132; the paper took the lower"),
    PublishedFigure("rte1_test", "bleu", "accuracy", 0.520, SZYMANSKI, 0.002, "rte1_dev"),
    PublishedFigure("rte2_dev", "bleu", "accuracy", 0.560, SZYMANSKI, 0.002, "rte1_dev",
                    "all 800 RTE2 dev pairs; NLTK ships the first 400"),
    # MacCartney, Galley & Manning 2008, entailment from the bag-of-words aligner's score
    # with the cutoff tuned on RTE2 dev.
    PublishedFigure("rte2_dev", "bow", "accuracy", 0.613, MACCARTNEY, None, "rte2_dev",
                    "all 800 RTE2 dev pairs; NLTK ships the first 400"),
    PublishedFigure("rte2_dev", "bow", "average_precision", 0.615, MACCARTNEY, None, "rte2_dev",
                    "all 800 RTE2 dev pairs; NLTK ships the first 400"),
    PublishedFigure("rte2_test", "bow", "accuracy", 0.579, MACCARTNEY, None, "rte2_dev"),
    PublishedFigure("rte2_test", "bow", "average_precision", 0.589, MACCARTNEY, None, "rte2_dev"),
)

_RTE_FILE = re.compile(r"^rte([123])_?(dev|test)(?:_3ways)?$")


def dataset_key(name: str) -> str | None:
    """The dataset key of a file name (``rte1_dev.xml`` -> ``rte1_dev``), or None when
    the file is not one of the corpora that papers report on."""
    stem = PurePath(name).name.lower()
    for suffix in (".xml", ".tsv", ".txt", ".csv", ".jsonl", ".json"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    match = _RTE_FILE.match(stem)
    if match:
        return f"rte{match.group(1)}_{match.group(2)}"
    return None


def lookup(dataset: str | None, scorer: str, *, metric: str | None = None) -> list[PublishedFigure]:
    """The published figures for a dataset key and scorer (optionally one metric)."""
    if dataset is None:
        return []
    return [
        f for f in PUBLISHED
        if f.dataset == dataset and f.scorer == scorer and (metric is None or f.metric == metric)
    ]

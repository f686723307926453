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
  bag-of-words aligner's score as an entailment classifier, cutoff tuned on RTE2 dev;
  their Table 1 alignment figures on RTE2 test (:data:`PAPER_TABLE1`, the Aligners page).
* Finch, Hwang & Sumita (2005): MSRP accuracy of the MT-metric SVM per feature set
  (:data:`PAPER_MSRP_ACCURACY`, :data:`PAPER_MSRP_JACKKNIFE`, the ``classify`` command).

Every published figure the explorer shows lives in this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

__all__ = [
    "MACCARTNEY", "PAPER_MSRP_ACCURACY", "PAPER_MSRP_JACKKNIFE", "PAPER_TABLE1", "PUBLISHED", "SZYMANSKI",
    "PublishedFigure", "dataset_key", "lookup",
]

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


# -- tables shown beside the explorer's own runs -------------------------------------------------

#: Finch, Hwang & Sumita (2005): accuracy (%) on the MSRP test set (1,725 pairs) with an
#: RBF SVM trained on the MSRP training set (4,076 pairs), per feature set.
PAPER_MSRP_ACCURACY: dict[str, float] = {"per": 71.9, "bleu1": 73.2, "pos": 74.2, "all": 74.96}
#: Their 10-fold jackknifing over all 5,801 MSRP pairs with every feature: mean, +/-.
PAPER_MSRP_JACKKNIFE: tuple[float, float] = (75.35, 1.13)

#: MacCartney, Galley & Manning (2008), Table 1, RTE2 *test* (the dev rows are not
#: reproduced here): P / R / F1 / exact match in %, None where we do not cite a figure.
PAPER_TABLE1: tuple[tuple[str, float | None, float | None, float | None, float | None], ...] = (
    ("Bag-of-words", None, None, 70.9, None),
    ("GIZA++", None, None, 74.8, None),
    ("Stanford RTE aligner", None, None, 79.1, None),
    ("MANLI", 85.4, 85.3, 85.3, 21.3),
)

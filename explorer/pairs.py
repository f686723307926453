"""The one pair model every loader produces and every method consumes.

Names follow RTE usage: the *text* is the premise (``p_``), the *hypothesis* is
``h_``; text always comes first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from explorer.errors import ExplorerError

__all__ = [
    "CONTRADICTION", "ENTAILMENT", "LABELS", "NEUTRAL", "NON_ENTAILMENT", "LabelError", "Pair", "content_mark",
    "normalize_label",
]

if TYPE_CHECKING:
    from explorer.alignment import Alignment

ENTAILMENT = "entailment"
NON_ENTAILMENT = "non-entailment"
NEUTRAL = "neutral"
CONTRADICTION = "contradiction"

#: Every label a pair may carry. Binary corpora (RTE, MSRP) use ENTAILMENT /
#: NON_ENTAILMENT (for MSRP, ENTAILMENT means "paraphrase"); 3-way corpora (SICK,
#: RTE3 3-way, generic files) use ENTAILMENT / NEUTRAL / CONTRADICTION.
LABELS = (ENTAILMENT, NON_ENTAILMENT, NEUTRAL, CONTRADICTION)

_LABEL_ALIASES = {
    "entailment": ENTAILMENT,
    "entails": ENTAILMENT,
    "entailed": ENTAILMENT,
    "yes": ENTAILMENT,
    "true": ENTAILMENT,
    "1": ENTAILMENT,
    "paraphrase": ENTAILMENT,
    "non-entailment": NON_ENTAILMENT,
    "non_entailment": NON_ENTAILMENT,
    "nonentailment": NON_ENTAILMENT,
    "not_entailment": NON_ENTAILMENT,
    "not-entailment": NON_ENTAILMENT,
    "no": NON_ENTAILMENT,
    "false": NON_ENTAILMENT,
    "0": NON_ENTAILMENT,
    "unknown": NEUTRAL,
    "neutral": NEUTRAL,
    "contradiction": CONTRADICTION,
    "contradicts": CONTRADICTION,
}


class LabelError(ExplorerError, ValueError):
    """A label string that no corpus convention recognises."""


def normalize_label(raw: str) -> str:
    """Map a corpus label (``YES``, ``TRUE``, ``1``, ``neutral``...) to one of LABELS.

    Raises:
        LabelError: naming the label and the accepted spellings.
    """
    key = raw.strip().lower()
    try:
        return _LABEL_ALIASES[key]
    except KeyError:
        accepted = ", ".join(sorted(_LABEL_ALIASES))
        raise LabelError(f"unknown label {raw!r}; expected one of: {accepted}") from None


def content_mark(text: str, hypothesis: str) -> str:
    """A short hash of a text and hypothesis: the Pair page's verdict strip carries it as
    ``data-pair``, so a browser test or benchmark can wait for *this* pair's strip."""
    import hashlib

    return hashlib.sha1(f"{text}\x1f{hypothesis}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Pair:
    """One text/hypothesis pair.

    Attributes:
        id: identifier, unique within its dataset.
        text: the premise.
        hypothesis: the hypothesis.
        label: one of LABELS, or None when the pair is unlabelled or graded only.
        score: a graded similarity / relatedness score (STS 0-5, SICK 1-5), if any.
        task: the corpus' task or subtask tag (RTE1: CD, IE, IR, MT, PP, QA, RC).
        source: where the pair came from (file name or "typed").
        text_tokens: tokens given by the dataset; kept exactly as given.
        hypothesis_tokens: likewise for the hypothesis.
        gold_alignment: a gold token alignment, if the dataset has one.
        note: a one-line comment kept with the pair (the built-in blind-spot set says
            what each pair teaches); shown on the Pair page, not used by any method.
    """

    id: str
    text: str
    hypothesis: str
    label: str | None = None
    score: float | None = None
    task: str | None = None
    source: str = ""
    text_tokens: tuple[str, ...] | None = None
    hypothesis_tokens: tuple[str, ...] | None = None
    gold_alignment: Alignment | None = field(default=None, compare=False)
    note: str | None = None

    def __post_init__(self) -> None:
        if self.label is not None and self.label not in LABELS:
            raise LabelError(f"pair {self.id}: label {self.label!r} is not one of {LABELS}")

    @property
    def entails(self) -> bool | None:
        """True for ENTAILMENT, False for any other label, None when unlabelled."""
        if self.label is None:
            return None
        return self.label == ENTAILMENT

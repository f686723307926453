"""Scorers and aligners over trained pFSM / pPDA models.

The score of a pair is the model's regression prediction ``log Z / (|t| + |h|) + alpha``
(on the scale of the training scores: STS 0-5). The breakdown carries the Viterbi edit
sequence (the single best path through the machine) and the token alignment it
implies: every substitution links its tokens (EQ for the match classes S_WORD,
S_LEMMA, S_PUNC and blocks; SUB otherwise), deletions and insertions leave tokens
unlinked, jumps only move the machine. The shipped models (``pfsm_sts_sick.json``,
``ppda_sts_sick.json``) are trained on every graded file we have (STS 2012 MSRpar and
SMTeuroparl, SICK train and trial) with the setting that transferred best across files
(the hypothesis read in the text's order, so moved words cost nothing; a pairwise
ranking loss within each training file, lambda 0.15 per 1,700 pairs, one offset per
file, then a least-squares scale and offset; docs/RESULTS.md, "Probabilistic edit
distance"). With such a model the steps' hypothesis positions are reading positions
(``EditDistanceResult.hypothesis_order``); the alignment is in original positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from explorer.alignment import Alignment, Edit, EditKind
from explorer.api import ResultMixin, Value
from explorer.edit_distance.model import Batch, Counts, EditDistanceModel, EditStep
from explorer.edit_distance.states import C_JUMP_B, CLASSES, MATCH_CLASSES
from explorer.lexical import LexicalSimilarity
from explorer.limits import Limits, check, lexical_words
from explorer.methods import model_path
from explorer.preprocess import AnalyzedPair

__all__ = [
    "DEFAULT_MODELS", "MODELS", "EditDistanceResult", "EditDistanceScorer", "default_model", "steps_to_alignment",
]

MODELS = Path(__file__).resolve().parents[1] / "models"
#: The shipped models, named in the method table's ``edit`` row.
DEFAULT_MODELS = {kind: model_path(kind) for kind in ("pfsm", "ppda")}


@cache
def default_model(kind: str) -> EditDistanceModel:
    """The shipped model of ``kind`` (``pfsm`` or ``ppda``)."""
    return EditDistanceModel.load(DEFAULT_MODELS[kind])


@dataclass(frozen=True)
class EditDistanceResult(ResultMixin):
    """A pair's probabilistic edit-distance score and its best edit sequence.

    Attributes:
        value: the predicted similarity (higher = more similar).
        log_z: the log-sum over every edit sequence.
        best_log_score: the log score of the Viterbi sequence.
        steps: the Viterbi sequence, one :class:`EditStep` per operation.
        probabilities: per step, the posterior probability (over all edit sequences)
            that this operation is applied at this position; for jumps, the expected
            number of forward jumps of that distance.
        alignment: the token alignment the Viterbi sequence creates (original token
            positions on both sides).
        kind: ``pfsm`` or ``ppda``.
        hypothesis_order: the order in which the machine read the hypothesis
            (``hypothesis_order[k]`` = the original position of the ``k``-th word read;
            the identity unless the model reorders, see
            :func:`~explorer.edit_distance.features.reorder_hypothesis`). The hypothesis
            positions of ``steps`` are reading positions.
    """

    value: float
    log_z: float
    best_log_score: float
    steps: tuple[EditStep, ...]
    probabilities: tuple[float, ...]
    alignment: Alignment
    kind: str
    hypothesis_order: tuple[int, ...] = ()

    def detail(self) -> str:
        return (f"{self.kind}: log-sum over edit sequences {self.log_z:.3f}, best of {len(self.steps)} steps "
                f"{self.best_log_score:.3f}")

    @property
    def reordered(self) -> bool:
        """Whether the machine read the hypothesis in another order than given."""
        return self.hypothesis_order != tuple(range(len(self.hypothesis_order)))

    def reading(self, hypothesis_tokens: Sequence[str]) -> tuple[str, ...]:
        """The hypothesis tokens in the order the machine read them."""
        if not self.hypothesis_order:
            return tuple(hypothesis_tokens)
        return tuple(hypothesis_tokens[j] for j in self.hypothesis_order)

    def reading_links(self) -> list[tuple[int, int]]:
        """The alignment's links with hypothesis positions as read (for drawing over ``steps``)."""
        where = {j: k for k, j in enumerate(self.hypothesis_order)}
        return [(i, where.get(j, j)) for i, j in self.alignment.links]


def steps_to_alignment(steps: Sequence[EditStep], p_len: int, h_len: int,
                       order: Sequence[int] | None = None) -> Alignment:
    """The token alignment of an edit sequence (jumps create no edit). ``order`` maps
    the steps' hypothesis reading positions back to the original ones (a span of two
    words read side by side was side by side in the original too)."""
    edits = []
    for step in steps:
        if step.op.startswith("JUMP"):
            continue
        hyp_span = step.hyp_span
        if hyp_span is not None and order is not None:
            first = order[hyp_span[0]]
            hyp_span = (first, first + hyp_span[1] - hyp_span[0])
        if step.op == "INS":
            edits.append(Edit(EditKind.INS, None, hyp_span, step.log_weight))
        elif step.op == "DEL":
            edits.append(Edit(EditKind.DEL, step.text_span, None, step.log_weight))
        else:
            kind = EditKind.EQ if CLASSES.index(step.cls) in MATCH_CLASSES else EditKind.SUB
            edits.append(Edit(kind, step.text_span, hyp_span, step.log_weight, ((step.cls, step.log_weight),)))
    return Alignment.from_edits(p_len, h_len, edits)


_TABLE_OF_OP = {"SUB": "sub", "B12": "b12", "B21": "b21", "B22": "b22"}


def _step_probability(step: EditStep, counts: Counts, m: int) -> float:
    if step.op == "INS":
        return float(counts.tables["ins"][step.hyp_position])
    if step.op == "DEL":
        return float(counts.tables["del"][step.text_position])
    if step.op in _TABLE_OF_OP:
        return float(counts.tables[_TABLE_OF_OP[step.op]][step.text_position * m + step.hyp_position])
    if step.op == "JUMP_F":
        return float(counts.jump[0, step.jump - 1])
    return float(counts.trans[0, :, C_JUMP_B].sum())  # expected number of backward jumps


class EditDistanceScorer:
    """Scorer (and aligner) for one model; ``score`` also decodes the best sequence."""

    def __init__(self, kind: str, *, model: EditDistanceModel | None = None) -> None:
        self.name = kind
        self.kind = kind
        self._model = model

    @property
    def model(self) -> EditDistanceModel:
        if self._model is None:
            self._model = default_model(self.kind)
        return self._model

    def word_similarity(self) -> LexicalSimilarity:
        """The lexical similarity the substitution classes are read from (:mod:`explorer.lexical`)."""
        from explorer.edit_distance.features import lexical_similarity

        return lexical_similarity()

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> EditDistanceResult:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits, and
        :class:`explorer.edit_distance.model.ModelError` for an empty side."""
        check(self.name, len(pair.text), len(pair.hypothesis), limits=limits,
              words=lexical_words(pair))
        model = self.model
        feats, order = model.features(pair)
        batch = Batch.build([feats], model.index)
        log_z, counts = model.log_z(batch, counts=True)
        assert counts is not None  # counts=True always returns them
        value = float(model.value(log_z[0], feats.n + feats.m))
        steps, best = model.best_sequence(pair, features=feats)
        alignment = steps_to_alignment(steps, feats.n, feats.m, order)
        probabilities = tuple(_step_probability(step, counts, feats.m) for step in steps)
        return EditDistanceResult(value, float(log_z[0]), best, tuple(steps), probabilities, alignment, self.kind,
                                  order)

    def score_many(self, pairs: Sequence[AnalyzedPair], *, limits: Limits | None = None) -> list[Value]:
        """Values only (no Viterbi decoding), in one batch."""
        for pair in pairs:
            check(self.name, len(pair.text), len(pair.hypothesis), limits=limits,
                  words=lexical_words(pair))
        return [Value(float(v)) for v in self.model.predict(list(pairs))]

    def align(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> EditDistanceResult:
        return self.score(pair, limits=limits)

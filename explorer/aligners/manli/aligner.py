"""MANLI's aligner: candidate edits, their features, the decoder, a scored alignment.

Cost: up to :func:`explorer.limits.manli_candidates` candidate edits (phrases of up to
``max_phrase`` tokens on each side, about ``36 |t| |h|``), each with a float32 feature
row (:mod:`explorer.aligners.manli.features`); the walk (:mod:`explorer.aligners.manli.search`)
is linear in the candidates per round. :class:`ManliAligner` checks the limits of
:mod:`explorer.limits` before it computes anything.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explorer.aligners.manli.entailment import ManliScore, entailment_score
from explorer.aligners.manli.features import PairFeatures, extract
from explorer.aligners.manli.model import (
    SHIPPED_MODELS,
    DecoderConfig,
    ManliModel,
    ManliModelError,
    default_model,
    lexical_similarity,
    model_file,
    shipped_model,
)
from explorer.aligners.manli.names import FEATURES, N_FEATURES
from explorer.aligners.manli.result import ManliResult
from explorer.aligners.manli.search import decode
from explorer.alignment import Alignment
from explorer.limits import Limits, check, lexical_words, manli_candidates

if TYPE_CHECKING:
    from explorer.aligners.manli.evidence import SimilarityMatrix
    from explorer.preprocess import AnalyzedPair


class ManliAligner:
    """MANLI with trained weights.

    Args:
        model: weights and feature options; the shipped model when None.
        similarity: the lexical similarity to use; the model's when None.
        decoder: the annealing schedule.
    """

    name = "manli"

    def __init__(
        self,
        model: ManliModel | None = None,
        *,
        similarity: SimilarityMatrix | None = None,
        decoder: DecoderConfig = DecoderConfig(),
    ) -> None:
        self.model = model if model is not None else default_model()
        if self.model.weights.shape != (N_FEATURES,):
            raise ManliModelError(f"expected {N_FEATURES} weights, got {self.model.weights.shape}")
        self._similarity = similarity
        self.decoder = decoder

    @property
    def similarity(self) -> SimilarityMatrix:
        if self._similarity is None:
            self._similarity = lexical_similarity(self.model.lexical)
        return self._similarity

    def word_similarity(self) -> SimilarityMatrix:
        """The word similarity the candidate edits are scored with (the model's components)."""
        return self.similarity

    def with_model(self, path: str | Path) -> ManliAligner:
        """The same aligner with weights from another file or a shipped model's name
        (:data:`SHIPPED_MODELS`; ``align-eval --model``)."""
        if isinstance(path, str) and path in SHIPPED_MODELS:
            return ManliAligner(shipped_model(path), decoder=self.decoder)
        return ManliAligner(ManliModel.load(model_file(path)), decoder=self.decoder)

    def check_limits(self, pair: AnalyzedPair, limits: Limits | None = None) -> None:
        """Refuse a pair whose candidate edits (bounded by the sizes and the model's
        phrase length) or memory estimate exceed the limits (:mod:`explorer.limits`)."""
        p_len, h_len = len(pair.text), len(pair.hypothesis)
        check(self.name, p_len, h_len, limits=limits,
              candidates=manli_candidates(p_len, h_len, self.model.features.max_phrase),
              words=lexical_words(pair))

    def features(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> PairFeatures:
        self.check_limits(pair, limits)
        return extract(pair, self.similarity, config=self.model.features)

    def align(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> ManliResult:
        """Raises :class:`explorer.limits.LimitError` for a pair past the limits."""
        feats = self.features(pair, limits=limits)
        chosen, total = decode(feats, self.model.weights, config=self.decoder)
        edits = feats.edits(chosen, self.model.weights)
        alignment = Alignment.from_edits(feats.p_len, feats.h_len, edits)
        n_tokens = max(feats.p_len + feats.h_len, 1)
        result = ManliResult(
            alignment, total, total / n_tokens, len(feats),
            tuple((name, float(w)) for name, w in zip(FEATURES, self.model.weights)),
        )
        return replace(result, entailment=entailment_score(pair, result).value)

    def score_alignment(self, pair: AnalyzedPair, alignment: Alignment, *,
                        limits: Limits | None = None) -> tuple[ManliResult, int]:
        """Score a given alignment (a hand-edited one, say) with the model's weights.

        The links become phrase edits by merging contiguous links
        (:meth:`Alignment.to_phrase_edits` with ``partial=True``); links no one-to-one
        phrase alignment can hold are left out and counted.

        Returns:
            The scored alignment as a :class:`ManliResult`, and how many links were left out.

        Raises:
            ValueError: if the alignment does not cover the pair's tokens.
            explorer.limits.LimitError: for a pair past the limits.
        """
        self.check_limits(pair, limits)
        if (alignment.p_len, alignment.h_len) != (len(pair.text), len(pair.hypothesis)):
            raise ValueError(
                f"alignment is {alignment.p_len} x {alignment.h_len} tokens but the pair has "
                f"{len(pair.text)} x {len(pair.hypothesis)}"
            )
        edits, unreachable = alignment.to_phrase_edits(partial=True)
        blocks = tuple(
            (e.p_span, e.h_span) for e in edits if e.p_span is not None and e.h_span is not None
        )
        feats = extract(pair, self.similarity, config=self.model.features, extra=blocks)  # type: ignore[arg-type]
        chosen = np.array([feats.find(ps, hs) for ps, hs in blocks], dtype=np.int64)
        base, gain = feats.gains(self.model.weights)
        total = base + float(gain[chosen].sum())
        scored = Alignment.from_edits(feats.p_len, feats.h_len, feats.edits(chosen, self.model.weights))
        n_tokens = max(feats.p_len + feats.h_len, 1)
        result = ManliResult(scored, total, total / n_tokens, len(feats))
        return replace(result, entailment=entailment_score(pair, result).value), len(unreachable)


class ManliScorer:
    """Entailment score from the MANLI alignment (:func:`entailment_score`)."""

    name = "manli"

    def __init__(self, aligner: ManliAligner | None = None) -> None:
        self._aligner = aligner

    @property
    def aligner(self) -> ManliAligner:
        if self._aligner is None:
            self._aligner = ManliAligner()
        return self._aligner

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> ManliScore:
        return entailment_score(pair, self.aligner.align(pair, limits=limits))

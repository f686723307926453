"""Static embeddings step by step: words cut into subword pieces, each word's vector, the
matrix of word cosines, then either the ``embed`` aligner's links (each hypothesis word's
and each text word's most similar word, linked where they choose each other) or the
``embed`` scorer's sentence cosine.

Every number comes from the methods' own code: the pieces and vectors from
:class:`explorer.lexical.embedding.StaticEmbeddings`, the matrix and the links from
:class:`explorer.aligners.embed.EmbedAligner` (its :func:`~explorer.aligners.embed.itermax`),
the score from :class:`explorer.aligners.embed.EmbedScorer`, so the last step's value is
the aligner's or the scorer's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer.aligners.embed import EmbedAligner, EmbedScorer, itermax
from explorer.preprocess import AnalyzedPair
from explorer.teaching import PairTrace, check_size

__all__ = ["RESULTS", "SHOWN_DIMENSIONS", "Cell", "EmbedStep", "EmbedTrace", "Result", "trace_embed"]

#: The vector numbers a figure draws (of the table's 256).
SHOWN_DIMENSIONS = 8
RESULTS = ("links", "score")
Result = Literal["links", "score"]
Cell = tuple[int, int]


@dataclass(frozen=True)
class EmbedStep:
    """One step. ``marked`` are the cells the step points at (text index, hypothesis
    index): each hypothesis word's best text word, each text word's best hypothesis word,
    or the links found in the step; ``links`` every link so far; ``value`` is the aligner's value of the links so far, or the score."""

    phase: Literal["tokens", "vectors", "matrix", "best_for_hypothesis", "best_for_text", "links", "round",
                   "sentence", "score"]
    explain: str
    value: float
    marked: frozenset[Cell] = frozenset()
    links: frozenset[Cell] = frozenset()


@dataclass(frozen=True)
class EmbedTrace(PairTrace):
    """Everything the figures draw: each word's pieces, the first
    :data:`SHOWN_DIMENSIONS` numbers of each word's (and each sentence's) vector, the word
    cosines (text rows, hypothesis columns) and the least cosine a link needs."""

    result: Result
    text_pieces: tuple[tuple[str, ...], ...]
    hypothesis_pieces: tuple[tuple[str, ...], ...]
    text_vectors: np.ndarray
    hypothesis_vectors: np.ndarray
    similarity: np.ndarray
    sentence_vectors: np.ndarray
    min_similarity: float
    dimensions: int
    steps: tuple[EmbedStep, ...]
    value: float


def _q(word: str) -> str:
    return f"“{word}”"


def _pieces_sentence(text: tuple[str, ...], pieces: tuple[tuple[str, ...], ...],
                     hypothesis: tuple[str, ...], h_pieces: tuple[tuple[str, ...], ...]) -> str:
    words = [*zip(text, pieces), *zip(hypothesis, h_pieces)]
    whole = next((w for w, p in words if len(p) == 1 and w.isalpha()), None)
    split = max(words, key=lambda wp: len(wp[1]))
    example = ""
    if whole is not None and len(split[1]) > 1:
        example = (f" A word the vocabulary holds whole is one piece, like {_q(whole)}; a rarer one is several: "
                   f"{_q(split[0])} is {' + '.join(_q(p) for p in split[1])}.")
    return (f"Each word, lower-cased, is cut into subword pieces of the model's vocabulary (▁ marks where a word "
            f"starts): the text's {len(text)} words make {sum(map(len, pieces))} pieces, the hypothesis's "
            f"{len(hypothesis)} words {sum(map(len, h_pieces))}.{example}")


def _best_unlike_pair(sims: np.ndarray, text: tuple[str, ...], hypothesis: tuple[str, ...]) -> str:
    """The most similar two different words, as an example for the matrix step."""
    lower_t, lower_h = [w.lower() for w in text], [w.lower() for w in hypothesis]
    best: tuple[float, int, int] | None = None
    for i in range(len(text)):
        for j in range(len(hypothesis)):
            if lower_t[i] != lower_h[j] and text[i].isalnum() and hypothesis[j].isalnum():
                if best is None or sims[i, j] > best[0]:
                    best = (float(sims[i, j]), i, j)
    if best is None:
        return ""
    return f" The most alike different words here: {_q(text[best[1]])} and {_q(hypothesis[best[2]])}, {best[0]:.2f}."


def _value(sims: np.ndarray, links: frozenset[Cell], h_len: int) -> float:
    """The aligner's value of ``links``: the mean over hypothesis words of their best
    link's cosine (0 when unlinked), as :meth:`EmbedAligner.align` computes it."""
    best = np.zeros(h_len)
    for i, j in links:
        best[j] = max(best[j], sims[i, j])
    return float(best.mean()) if h_len else 0.0


def trace_embed(pair: AnalyzedPair, *, result: Result = "links", aligner: EmbedAligner | None = None,
                scorer: EmbedScorer | None = None) -> EmbedTrace:
    """The steps of the ``embed`` aligner (``result="links"``) or scorer (``"score"``) on
    a pair (the shipped settings unless ``aligner`` is given)."""
    if result not in RESULTS:
        raise ValueError(f"result must be one of {', '.join(RESULTS)}, not {result!r}")
    check_size(pair)
    aligner = aligner or EmbedAligner()
    scorer = scorer or EmbedScorer(aligner.embeddings)
    table = aligner.embeddings
    text, hypothesis = pair.text.tokens, pair.hypothesis.tokens
    lower_t, lower_h = pair.text.lower, pair.hypothesis.lower
    t_pieces = tuple(tuple(table.subword_tokens(w)) for w in lower_t)
    h_pieces = tuple(tuple(table.subword_tokens(w)) for w in lower_h)
    shown = min(SHOWN_DIMENSIONS, table.dimensions)
    t_vectors = table.word_vectors(lower_t)[:, :shown]
    h_vectors = table.word_vectors(lower_h)[:, :shown]
    sims = aligner.similarity(pair)
    sentences = np.stack([table.text_vector(lower_t), table.text_vector(lower_h)])[:, :shown]
    steps: list[EmbedStep] = [
        EmbedStep("tokens", _pieces_sentence(lower_t, t_pieces, lower_h, h_pieces), 0.0),
        EmbedStep("vectors", f"Each piece is a row of {table.dimensions} numbers in the model's table, learnt from "
                  f"text so that pieces used alike get alike rows; a word's vector is the mean of its pieces' rows, "
                  f"scaled to length 1. The first {shown} numbers of each are drawn.", 0.0),
    ]
    if result == "score":
        value = scorer.score(pair).value
        steps += [
            EmbedStep("sentence", "A sentence's vector is the mean of the rows of all of its pieces (a word of three "
                      "pieces counts three times), scaled to length 1: one vector for the text, one for the "
                      "hypothesis.", 0.0),
            EmbedStep("score", f"The score is the cosine of the two sentence vectors, the sum of their "
                      f"{table.dimensions} products: {value:.3f}. It says how alike the two sentences are, the same "
                      f"both ways round; a hypothesis that adds a word the text lacks moves its mean only a little.",
                      value),
        ]
        return _trace(pair, "score", t_pieces, h_pieces, t_vectors, h_vectors, sims, sentences, aligner, steps, value)
    steps.append(EmbedStep(
        "matrix", "The cosine of every text word's vector with every hypothesis word's: 1 for the same word, higher "
        "for words used alike, near 0 for unrelated ones." + _best_unlike_pair(sims, text, hypothesis), 0.0))
    usable = np.where(aligner.linkable(pair, sims) >= aligner.min_similarity, aligner.linkable(pair, sims), 0.0)
    least = f"{aligner.min_similarity:g}"
    open_h = frozenset((int(usable[:, j].argmax()), j) for j in range(len(hypothesis)) if usable[:, j].max() > 0)
    open_t = frozenset((i, int(usable[i].argmax())) for i in range(len(text)) if usable[i].max() > 0)
    steps.append(EmbedStep(
        "best_for_hypothesis", f"For each hypothesis word, the text word most like it (circles), among cosines of "
        f"at least {least}, the least a link needs: {len(open_h)} of the {len(hypothesis)} hypothesis words have "
        f"one.", 0.0, open_h))
    steps.append(EmbedStep(
        "best_for_text", f"And for each text word, the hypothesis word most like it (squares): {len(open_t)} of the "
        f"{len(text)} text words have one.", 0.0, open_t))
    rounds = itermax(aligner.linkable(pair, sims), iterations=aligner.iterations, discount=aligner.discount,
                     min_similarity=max(aligner.min_similarity, 1e-9))
    links = frozenset((int(i), int(j)) for i, j in np.argwhere(rounds == 0))
    unlinked = [hypothesis[j] for j in range(len(hypothesis)) if not any(b == j for _, b in links)]
    left = (f" Unlinked hypothesis words: {', '.join(_q(w) for w in unlinked[:4])}"
            f"{' and more' if len(unlinked) > 4 else ''}." if unlinked else " Every hypothesis word is linked.")
    steps.append(EmbedStep(
        "links", f"Two words are linked where they chose each other (a circle and a square on one cell): "
        f"{len(links)} link(s).{left}", _value(sims, links, len(hypothesis)), links, links))
    for round_ in range(1, int(rounds.max(initial=0)) + 1):
        new = frozenset((int(i), int(j)) for i, j in np.argwhere(rounds == round_))
        links = links | new
        steps.append(EmbedStep(
            "round", f"Round {round_} among the words still unlinked (a cell with one linked word counts "
                     f"{aligner.discount:g} x its cosine): {len(new)} more link(s).",
            _value(sims, links, len(hypothesis)), new, links))
    value = aligner.align(pair).value
    last = steps[-1]
    steps[-1] = EmbedStep(last.phase, last.explain + f" The aligner's value, the mean over hypothesis words of their "
                          f"link's cosine (0 when unlinked), is {value:.3f}.", value, last.marked, last.links)
    return _trace(pair, "links", t_pieces, h_pieces, t_vectors, h_vectors, sims, sentences, aligner, steps, value)


def _trace(pair: AnalyzedPair, result: Result, t_pieces: tuple[tuple[str, ...], ...],
           h_pieces: tuple[tuple[str, ...], ...], t_vectors: np.ndarray, h_vectors: np.ndarray, sims: np.ndarray,
           sentences: np.ndarray, aligner: EmbedAligner, steps: list[EmbedStep], value: float) -> EmbedTrace:
    return EmbedTrace("embed", pair.text.tokens, pair.hypothesis.tokens, result, t_pieces, h_pieces, t_vectors,
                      h_vectors, sims, sentences, aligner.min_similarity, aligner.embeddings.dimensions,
                      tuple(steps), value)

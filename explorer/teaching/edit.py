"""pFSM / pPDA step by step: the Viterbi path through the edit lattice, one operation at a
time (jumps included), then the score, which sums over every path. A model that reads the
hypothesis in the text's order (``preorder``) is traced on the hypothesis as read.

Everything is the scorer's own :meth:`~explorer.edit_distance.scoring.EditDistanceScorer.score`
(the compiled forward and Viterbi kernels); the trace lays its Viterbi steps out on the
lattice of (text position, hypothesis position) points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from explorer.edit_distance.model import EditStep
from explorer.edit_distance.scoring import EditDistanceResult, EditDistanceScorer
from explorer.errors import ExplorerError
from explorer.preprocess import AnalyzedPair
from explorer.teaching import PairTrace, check_size, words

__all__ = ["CLASS_WORDS", "KINDS", "KIND_LABELS", "EditTrace", "EditTraceStep", "class_words", "trace_edit"]

KINDS = ("pfsm", "ppda")
#: The machines' display names (the steps and the figure say these, never the keys).
KIND_LABELS: dict[str, str] = {"pfsm": "pFSM", "ppda": "pPDA"}
#: What a substitution's class means, in words a student follows, and whether the machine
#: counts it as a match (the pair's alignment then links the two words as equal, EQ).
CLASS_WORDS: dict[str, tuple[str, bool]] = {
    "S_WORD": ("the same word", True),
    "S_LEMMA": ("two forms of one word (the same lemma)", True),
    "S_PUNC": ("punctuation", True),
    "S_BLOCK": ("a block of words", True),
    "S_PARA": ("a paraphrase (PPDB)", False),
    "S_SYN": ("similar words (WordNet)", False),
    "S_OTHER": ("different words", False),
}


@dataclass(frozen=True)
class EditTraceStep:
    """``phase`` ``start``, ``op`` (one Viterbi operation: the machine moves from
    ``start`` to ``end`` on the lattice), ``return`` (the pPDA resumes after the words it
    jumped over, once it has gone back for the skipped ones: its stack pops, at no weight), ``stop`` (the machine's end transition) or ``score``. ``value`` is the running log
    score of the path (the final score for ``score``)."""

    phase: Literal["start", "op", "return", "stop", "score"]
    start: tuple[int, int]
    end: tuple[int, int]
    explain: str
    value: float
    step: EditStep | None = None
    probability: float = 0.0


@dataclass(frozen=True)
class EditTrace(PairTrace):
    kind: str
    result: EditDistanceResult
    steps: tuple[EditTraceStep, ...]

    @property
    def value(self) -> float:
        """The decoder's score, which the last step reaches."""
        return self.result.value


def class_words(cls: str) -> str:
    """A substitution class in words (``S_LEMMA`` -> ``two forms of one word ...``)."""
    return CLASS_WORDS.get(cls, (cls, False))[0]


def _op_sentence(step: EditStep, p: tuple[str, ...], h: tuple[str, ...], lemmas: tuple[str, ...]) -> str:
    if step.op == "JUMP_F":
        return f"jump forward {step.jump} text word(s), skipping them for now"
    if step.op == "JUMP_B":
        return "jump back to the text words skipped earlier"
    if step.op == "DEL":
        return f"delete {words(p, step.text_span)} from the text"
    if step.op == "INS":
        return f"insert {words(h, step.hyp_span)} from the hypothesis"
    pair = f"{words(p, step.text_span)} with {words(h, step.hyp_span)}"
    if step.op != "SUB":
        return f"match the block {pair}: several words at once, counted as a match"
    kind, is_match = CLASS_WORDS.get(step.cls, (step.cls, False))
    if step.cls == "S_LEMMA" and step.text_span is not None:
        # Why a lemma match is a match: the machine compares dictionary forms, so the
        # pair's links show the two words as equal (EQ) although they are spelt differently.
        return (f"match {pair}: {kind}, “{lemmas[step.text_span[0]]}”. The machine counts a lemma match as "
                f"a match, so the pair's links show the two as equal (EQ) although they are spelt differently")
    if is_match:
        return f"match {pair}: {kind}, a match"
    return f"substitute {pair}: {kind}; the machine weighs it as a substitution, not a match"


def _capital(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def trace_edit(pair: AnalyzedPair, *, kind: str = "ppda") -> EditTrace:
    """The steps of a shipped pFSM or pPDA model on a pair."""
    check_size(pair)
    if kind not in KINDS:
        raise ExplorerError(f"unknown edit-distance model {kind!r}; choose pfsm or ppda")
    scorer = EditDistanceScorer(kind)
    result = scorer.score(pair)
    scale = scorer.model.scale
    p = pair.text.tokens
    h = result.reading(pair.hypothesis.tokens)  # the order the machine reads the hypothesis in
    reorder = ""
    if result.reordered:
        soft = (", or failing that a word of the same lemma, a paraphrase or a synonym,"
                if scorer.model.preorder == 2 else "")
        reorder = (" First the hypothesis is put in the text's order: its words that also occur in the text"
                   f"{soft} move to where they stand there (words found nowhere travel with the word before them), giving "
                   f"'{' '.join(h)}'. Word order therefore costs nothing; the lattice reads the hypothesis in that order.")
    label = KIND_LABELS[kind]
    lemmas = pair.text.lemmas
    steps = [EditTraceStep(
        "start", (0, 0), (0, 0),
        f"The {label} machine starts before the first word of each sentence and must reach the end of both; "
        f"each operation's weight comes from the trained model." + reorder,
        0.0,
    )]
    running = 0.0
    for k, (step, prob) in enumerate(zip(result.steps, result.probabilities, strict=True)):
        start = (step.text_position, step.hyp_position)
        if step.op.startswith("JUMP"):  # where the machine lands: where the next operation starts
            after = result.steps[k + 1] if k + 1 < len(result.steps) else None
            end = (after.text_position, after.hyp_position) if after is not None else (len(p), len(h))
        else:
            end = (step.text_span[1] if step.text_span else start[0], step.hyp_span[1] if step.hyp_span else start[1])
        if steps[-1].end != start and steps[-1].phase == "op":
            steps.append(EditTraceStep(
                "return", steps[-1].end, start,
                f"The skipped words are done: the machine returns to text word {start[0] + 1} (its stack pops; "
                f"no weight).",
                running,
            ))
        running += step.log_weight
        steps.append(EditTraceStep(
            "op", start, end,
            f"{_capital(_op_sentence(step, p, h, lemmas))}. Log weight {step.log_weight:+.2f}, path so far "
            f"{running:.2f}.",
            running, step, prob,
        ))
    end = (len(p), len(h))
    if steps[-1].end != end:
        steps.append(EditTraceStep(
            "return", steps[-1].end, end,
            "The skipped words are done: the machine returns to the end of the text (its stack pops; no weight).",
            running,
        ))
    steps.append(EditTraceStep(
        "stop", end, end,
        f"Stopping at the end of both sentences weighs {result.best_log_score - running:+.2f}: "
        f"the best path's log score is {result.best_log_score:.2f}.",
        result.best_log_score,
    ))
    n_tokens = len(p) + len(h)
    steps.append(EditTraceStep(
        "score", (0, 0), (len(p), len(h)),
        f"The best path scores {result.best_log_score:.2f}, but the score sums over all paths: "
        f"log Z = {result.log_z:.2f}, divided by {n_tokens} tokens"
        + (f", times the model's scale {scale:.3g}," if scale != 1.0 else "")
        + f" plus the model's offset gives {result.value:.3f} (on the 0-5 similarity scale).",
        result.value,
    ))
    return EditTrace("edit", p, h, kind, result, tuple(steps))

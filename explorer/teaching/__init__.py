"""Teaching mode: each method's computation on one small pair, as a list of steps.

Every trace is pure data (frozen records, no UI): one record per step with a one-line
``explain`` sentence and the running ``value`` (the number the step produces), and the
last step's value is the method's own score for the pair, because each trace runs the
method's real code (the same counting, table, chart kernel, compiled annealing walk or
Viterbi decoder), only recording what happens on the way.

The app's Teach page lists the traces, each with its display name, its option and its
figure builder, in one registry of its own.

Teaching pairs are small by design: both sides are limited to
:data:`TEACHING_MAX_TOKENS` tokens of at most :data:`TEACHING_MAX_TOKEN_CHARS` characters,
checked before any work (:func:`check_size`); :func:`size_refusal` says why a pair is past
them without raising, for a picker that marks the pairs a lesson can be built on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from explorer.errors import ExplorerError
from explorer.preprocess import AnalyzedPair

__all__ = ["TEACHING_MAX_TOKEN_CHARS", "TEACHING_MAX_TOKENS", "PairTrace", "SizeRefusal", "TeachingSizeError", "Trace", "TraceStep", "check_size",
           "size_refusal", "words"]

#: The most tokens either side of a teaching pair may have (every chart cell, table row
#: or annealing round is one screen, and the ITG chart grows with the fourth power).
TEACHING_MAX_TOKENS = 30
#: The longest token a teaching pair may have, in characters (code points: a letter with
#: combining marks counts each mark). Every step's sentence and figure labels show the
#: words, and a lesson has up to a few hundred steps: 30 tokens of 600 combining marks
#: made lessons of 5-34 MB per method to send to the browser.
TEACHING_MAX_TOKEN_CHARS = 40


class TeachingSizeError(ExplorerError, ValueError):
    """A pair too long to step through; the message names the limit."""


@dataclass(frozen=True)
class PairTrace:
    """The start of every method's trace: the method's name and the two token sequences
    it stepped through (each method's trace adds its own tables, ``steps`` and ``value``)."""

    method: str
    text: tuple[str, ...]
    hypothesis: tuple[str, ...]


class TraceStep(Protocol):
    """What every trace's step has: its one-line explanation."""

    @property
    def explain(self) -> str: ...


class Trace(Protocol):
    """What every method's trace has (the Teach page steps through ``steps``)."""

    @property
    def steps(self) -> Sequence[TraceStep]: ...


@dataclass(frozen=True)
class SizeRefusal:
    """Why a pair is past the teaching limit: ``message``, the sentence a refusal says, and
    ``mark``, the few words a pair picker shows beside the pair."""

    message: str
    mark: str


def size_refusal(pair: AnalyzedPair, limit: int = TEACHING_MAX_TOKENS) -> SizeRefusal | None:
    """Why a pair cannot be stepped through (more than ``limit`` tokens on a side, an empty
    side, or a token over :data:`TEACHING_MAX_TOKEN_CHARS` characters), or ``None`` when it
    can. Token counts only, no work on the pair: cheap enough to ask of a whole dataset,
    and the one check every trace makes (:func:`check_size`)."""
    for name, side in (("text", pair.text), ("hypothesis", pair.hypothesis)):
        if len(side) > limit:
            return SizeRefusal(
                f"the {name} has {len(side)} tokens; teaching mode steps through pairs of at most "
                f"{limit} tokens per side. Shorten it, or use the Pair page for long pairs.",
                f"too long to teach ({name} of {len(side)} tokens; limit {limit})")
        if len(side) == 0:
            return SizeRefusal(f"the {name} has no tokens; type at least one word", f"the {name} has no tokens")
        tokens = side.tokens
        longest = max(range(len(tokens)), key=lambda k: len(tokens[k]))
        if len(tokens[longest]) > TEACHING_MAX_TOKEN_CHARS:
            return SizeRefusal(
                f"the {name}'s token {longest + 1} has {len(tokens[longest]):,} characters; teaching mode shows "
                f"tokens of at most {TEACHING_MAX_TOKEN_CHARS} characters (every step repeats the words). "
                "Shorten it, or use the Pair page.",
                f"a word too long to teach ({len(tokens[longest]):,} characters; limit {TEACHING_MAX_TOKEN_CHARS})")
    return None


def check_size(pair: AnalyzedPair, limit: int = TEACHING_MAX_TOKENS) -> None:
    """Refuse a pair :func:`size_refusal` refuses, with its message."""
    refusal = size_refusal(pair, limit)
    if refusal is not None:
        raise TeachingSizeError(refusal.message)


def words(tokens: tuple[str, ...], span: tuple[int, int] | None) -> str:
    """The words of a span in quotes (``"the car"``), or ``nothing`` for an empty one."""
    if span is None or span[0] >= span[1]:
        return "nothing"
    return "“" + " ".join(tokens[span[0]:span[1]]) + "”"

"""What a scorer and an aligner are, and what they return.

Results share one contract (:class:`ScoreResult`, :class:`AlignResult`): ``value`` is the
number compared to a cutoff (higher = more entailed), ``to_json()`` gives a JSON-ready dict
and ``format()`` (also ``str(result)``) the one line the command line prints, as
sacreBLEU's ``Score.format()`` does; :class:`ResultMixin` gives a frozen result dataclass
those methods. Reports of whole runs (an evaluation, a classifier's test) keep the same
two methods (:class:`Report`), so every command prints its record as text or JSON through
one renderer. :func:`score_many` is the one loop that scores a batch of pairs.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Overlap(ResultMixin):
...     value: float
...     shared: int
...     def detail(self) -> str:
...         return f"{self.shared} words shared"
>>> result = Overlap(0.5, 2)
>>> print(result)
0.5000  (2 words shared)
>>> result.to_json(), isinstance(result, ScoreResult)
({'value': 0.5, 'shared': 2}, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from explorer.api.rows import Named
from explorer.api.text import fixed, json_safe

if TYPE_CHECKING:
    from explorer.alignment import Alignment
    from explorer.preprocess import AnalyzedPair


@runtime_checkable
class ScoreResult(Protocol):
    """What every scorer returns: ``value`` (the number compared to a cutoff, higher =
    more entailed), ``to_json()`` (JSON-ready, ``value`` among its keys) and ``format()``
    (one line: the value, then what explains it). Each result type is a frozen
    dataclass that carries its breakdown; :class:`ResultMixin` gives the two methods."""

    @property
    def value(self) -> float: ...

    def to_json(self) -> dict[str, object]: ...

    def format(self) -> str: ...


class Scorer(Named, Protocol):
    """``score(pair)`` is the contract. A scorer may also have ``score_many(pairs)``:
    every pair's result in one go (values and breakdown, without what only the Pair page
    draws), raising when any pair is refused; :func:`score_many` uses it when there is
    one, and loops over ``score`` otherwise."""

    def score(self, pair: AnalyzedPair) -> ScoreResult: ...


@dataclass(frozen=True)
class Value:
    """A bare value: what a ``score_many`` that computes no breakdown returns per pair."""

    value: float

    def to_json(self) -> dict[str, object]:
        return {"value": self.value}

    def format(self) -> str:
        return fixed(self.value)


def score_many(scorer: Scorer, pairs: Sequence[AnalyzedPair]) -> list[ScoreResult | Exception]:
    """Every pair's result, or the exception it raised (a refusal past the limits, an
    error of the method): the one loop behind every batch of pairs, with one refusal
    policy (a refused pair never stops the others).

    The scorer's own ``score_many`` is tried first; when it raises, the pairs are scored
    one by one to find which were refused.
    """
    many = getattr(scorer, "score_many", None)
    if many is not None and pairs:
        try:
            return list(many(pairs))
        except Exception:  # noqa: BLE001 - some pair was refused: found below, one by one
            pass
    out: list[ScoreResult | Exception] = []
    for pair in pairs:
        try:
            out.append(scorer.score(pair))
        except Exception as err:  # noqa: BLE001 - the refusal is the pair's result
            out.append(err)
    return out


def breakdown_value(result: object, name: str) -> object:
    """A result's breakdown field ``name``: the attribute, or its ``value`` when the
    attribute is itself a result (BLEU-n's ``hypothesis_candidate``)."""
    got = getattr(result, name, None)
    return getattr(got, "value", got)


@runtime_checkable
class AlignResult(ScoreResult, Protocol):
    """What every aligner returns: a :class:`ScoreResult` with its ``alignment``."""

    @property
    def alignment(self) -> Alignment: ...


class Aligner(Named, Protocol):
    def align(self, pair: AnalyzedPair) -> AlignResult: ...


class Report(Protocol):
    """What a command prints: a record of a whole run (an evaluation, a classifier's
    test, a corpus's statistics) as JSON (``to_json()``) or as text (``format()``,
    lines ending without a newline). :func:`explorer.cli.output.emit` is the one
    renderer."""

    def to_json(self) -> dict[str, object]: ...

    def format(self) -> str: ...


class ResultMixin:
    """``to_json()``, ``format()`` and ``str()`` for frozen result dataclasses.

    A subclass says what explains its value in :meth:`detail`; ``format()`` puts it
    after the value.
    """

    if TYPE_CHECKING:
        @property
        def value(self) -> float: ...

    def to_json(self) -> dict[str, object]:
        """The dataclass fields, plus ``value`` where it is a property (MANLI's), so every
        method's JSON carries the number compared to a cutoff under one name."""
        body: dict[str, object] = asdict(self)  # type: ignore[call-overload]
        if "value" not in body:
            body["value"] = self.value
        return json_safe(body)

    def detail(self) -> str:
        """What explains the value, in a few words (by default the alignment's size)."""
        alignment = getattr(self, "alignment", None)
        return f"{len(alignment.links)} links" if alignment is not None else ""

    def format(self) -> str:
        """``0.4213  (what explains it)``: one line, as the ``score`` command prints it.

        >>> from explorer.metrics.wer import wer_tokens
        >>> wer_tokens(("a", "cat", "sat"), ("a", "dog", "sat")).format()
        '0.6667  (WER 0.3333: 1 substituted, 0 deleted, 0 inserted words)'
        """
        detail = self.detail()
        return fixed(self.value) + (f"  ({detail})" if detail else "")

    def __str__(self) -> str:
        return self.format()

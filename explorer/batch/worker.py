"""What runs on a Dask worker: score one chunk of pairs with every chosen scorer.

Scorers come from :func:`explorer.scorers.get_scorer`, which builds each one once per
process, so a worker loads models and lexical resources (MANLI weights, the Brown
information table, WordNet, the numba kernels) once, not per chunk; :class:`WarmScorers`
does that as the worker starts, so the first chunk is not slower than the rest.

Each pair is analysed (tokenised) once and shared by all scorers. A pair a scorer
refuses (a bounded method's limit, a side too long to tokenise, any error of the method)
gets a null value and the reason; the chunk goes on.

Batch paths: the BLEU family, BLEU-n and WER store values and breakdown fields without
computing what only the Pair page draws (n-gram positions, the WER edit alignment);
the edit-distance scorers use their ``score_many``. Measured in docs/BENCHMARKS.md:
tokenising a pair costs more than any of these scorers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from explorer.batch.schema import BREAKDOWN, breakdown_column, error_column
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair

#: Longest refusal reason kept per pair.
MAX_REASON = 300

Row = tuple[float, dict[str, float | None]]


def _reason(err: BaseException) -> str:
    text = f"{type(err).__name__}: {err}"
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float | np.integer | np.floating):
        v = float(value)
        return v if math.isfinite(v) else None
    return None


def _bleu_path(variant: str) -> Callable[[AnalyzedPair], Row]:
    from explorer.metrics.bleu import brevity_penalty, combine, order_counts

    def score(a: AnalyzedPair) -> Row:
        h, p = a.hypothesis.lower, a.text.lower
        orders = order_counts(h, p, 4)
        bp = brevity_penalty(len(h), len(p))
        fields: dict[str, float | None] = {f"p{o.n}": o.precision for o in orders}
        fields.update(brevity_penalty=bp, hypothesis_length=len(h), text_length=len(p))
        return combine(orders, bp, variant), fields  # type: ignore[arg-type]

    return score


def _bleu_n_path(n: int) -> Callable[[AnalyzedPair], Row]:
    from explorer.metrics.bleu import bleu_both_ways

    def score(a: AnalyzedPair) -> Row:
        r = bleu_both_ways(a.text.lower, a.hypothesis.lower, n, with_matches=False)
        return r.value, {"hypothesis_candidate": r.hypothesis_candidate.value, "text_candidate": r.text_candidate.value}

    return score


def _wer_path(a: AnalyzedPair) -> Row:
    from explorer.metrics.wer import wer_tokens

    r = wer_tokens(a.text.lower, a.hypothesis.lower, with_alignment=False)
    return r.value, {"rate": r.rate, "distance": r.distance, "text_length": r.text_length,
                     "hypothesis_length": r.hypothesis_length}


#: Field names that were renamed: the new name first, then the old one (H1's rename of
#: MANLI's total).
_ALIASES = {"total": ("total", "alignment_score")}


def _generic_path(name: str) -> Callable[[AnalyzedPair], Row]:
    from explorer.scorers import get_scorer

    scorer = get_scorer(name)
    wanted = BREAKDOWN.get(name, ())

    def score(a: AnalyzedPair) -> Row:
        result = scorer.score(a)
        fields: dict[str, float | None] = {}
        for f in wanted:
            value = None
            for attr in _ALIASES.get(f, (f,)):
                if hasattr(result, attr):
                    value = _number(getattr(result, attr))
                    break
            fields[f] = value
        return float(result.value), fields

    return score


def pair_path(name: str) -> Callable[[AnalyzedPair], Row]:
    """How one pair is scored in a batch: a batch path where there is one."""
    if name in ("bleu", "mbleu", "bleu_pa"):
        return _bleu_path(name)
    if name in ("bleu1", "bleu2", "bleu3", "bleu4"):
        return _bleu_n_path(int(name[-1]))
    if name == "wer":
        return _wer_path
    return _generic_path(name)


def _many_path(name: str) -> Callable[[Sequence[AnalyzedPair]], Sequence[float]] | None:
    """A scorer's own values-only batch method, used when it has no breakdown columns
    and no batch path of ours (the edit-distance models)."""
    if name in BREAKDOWN or name in ("bleu", "mbleu", "bleu_pa", "bleu1", "bleu2", "bleu3", "bleu4", "wer"):
        return None
    from explorer.scorers import get_scorer

    return getattr(get_scorer(name), "score_many", None)


def compact_pair(pair: Pair) -> Pair:
    """The part of a pair a worker needs (no label, no gold alignment): less to ship."""
    return Pair(id=pair.id, text=pair.text, hypothesis=pair.hypothesis,
                text_tokens=pair.text_tokens, hypothesis_tokens=pair.hypothesis_tokens)


def score_chunk(pairs: Sequence[Pair], scorers: Sequence[str]) -> dict[str, list[Any]]:
    """Every scorer's columns for one chunk of pairs (see :mod:`explorer.batch.schema`).

    Never raises for a pair: a refusal is a null value with its reason.
    """
    analysed: list[AnalyzedPair | None] = []
    analysis_error: list[str | None] = []
    for pair in pairs:
        try:
            analysed.append(analyze_pair(pair))
            analysis_error.append(None)
        except Exception as err:  # a side the tokenizer refuses: every scorer refuses it
            analysed.append(None)
            analysis_error.append(_reason(err))
    columns: dict[str, list[Any]] = {}
    for name in scorers:
        columns.update(_score_with(name, analysed, analysis_error))
    return columns


def _values_only(name: str) -> Callable[[AnalyzedPair], Row]:
    from explorer.scorers import get_scorer

    scorer = get_scorer(name)

    def score(a: AnalyzedPair) -> Row:
        return float(scorer.score(a).value), {}

    return score


def _score_with(name: str, analysed: Sequence[AnalyzedPair | None],
                analysis_error: Sequence[str | None]) -> dict[str, list[Any]]:
    """One scorer's columns for analysed pairs (None where analysis failed)."""
    n = len(analysed)
    values: list[float | None] = [None] * n
    errors: list[str | None] = list(analysis_error)
    fields: dict[str, list[float | None]] = {f: [None] * n for f in BREAKDOWN.get(name, ())}
    todo = [i for i in range(n) if analysed[i] is not None]
    one: Callable[[AnalyzedPair], Row] | None = None
    try:
        many = _many_path(name)
        if many is None:
            one = pair_path(name)
    except Exception as err:  # the scorer cannot even be built: every pair refused
        reason = _reason(err)
        errors = [e or reason for e in errors]
        many, todo = None, []
    if many is not None and todo:
        try:
            got = many([a for a in analysed if a is not None])
            for i, v in zip(todo, got, strict=True):
                values[i] = float(v)
            todo = []
        except Exception:  # some pair failed the batch: score one by one to find it
            one = _values_only(name)
    for i in todo:
        pair = analysed[i]
        assert pair is not None and one is not None
        try:
            value, extra = one(pair)
        except Exception as err:  # a refusal (bounded method) or a method's error
            errors[i] = _reason(err)
            continue
        values[i] = value
        for f, field_value in extra.items():
            if f in fields:
                fields[f][i] = _number(field_value)
    for i, got_value in enumerate(values):
        if got_value is not None and not math.isfinite(got_value):
            values[i] = None
            errors[i] = errors[i] or f"the value {got_value} is not a finite number"
    out: dict[str, list[Any]] = {name: values, error_column(name): errors}
    for f, column in fields.items():
        out[breakdown_column(name, f)] = column
    return out


#: A short pair every scorer can score: running it once per worker compiles the numba
#: kernels and loads each model before the first chunk.
_PROBE = Pair(id="probe", text="Two small dogs ran across the green park today.",
              hypothesis="Two dogs ran in a park.")


def warm(scorers: Sequence[str]) -> dict[str, str]:
    """Build every scorer and score one probe pair; scorer -> error text for those that
    failed (they will refuse their pairs in the chunks)."""
    failed = {}
    for name in scorers:
        try:
            score_chunk([_PROBE], [name])
        except Exception as err:  # reported, not fatal: chunks record the refusals
            failed[name] = _reason(err)
    return failed


class WarmScorers(WorkerPlugin):
    """A Dask worker plugin that warms the scorers when a worker starts (or joins)."""

    name = "explorer-warm-scorers"

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def setup(self, worker: Any) -> None:
        warm(self.names)

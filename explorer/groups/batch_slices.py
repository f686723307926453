"""Slices over a batch result, in DuckDB: a 500,000-pair result is never loaded.

The slice language's SQL back end (:func:`explorer.groups.language.compile_sql`) turns each
slice into a condition over the result's Parquet chunks; one query then counts, for every
slice and scorer at once (``FILTER`` clauses, one pass over the files), the pairs in the
slice, those the scorer judged and those it got right; one more query per slice lists its
first ids. The names a slice may use are the result's own: the pair fields and, for each
phenomenon column ``ph_NAME`` a batch wrote, ``NAME``.

Verdicts use the cutoff the result's pages use (:meth:`explorer.batch.query.BatchResult.cutoff`'s
precedence, through :func:`explorer.decision.evaluation.scorer_cutoff`: a classifier's own,
else one chosen on a development set, else the result's own), so a slice's accuracy here is
what the batch report says for the same pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from explorer.batch.query import BatchResult
from explorer.batch.schema import PHENOMENON_PREFIX, BatchError, phenomenon_column
from explorer.datasets import Dataset
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.evaluation import check_dev, scorer_cutoff
from explorer.decision.rules import DEFAULT_RULE
from explorer.groups.language import SliceError, compile_sql, parse, sql_literal
from explorer.groups.stats import ScorerSliceResult, SliceResult, check_slices

#: Most ids a slice of a batch result lists (its ``n`` counts them all).
MAX_IDS = 1000
_KINDS = {"BOOLEAN": "bool", "VARCHAR": "text"}


def result_names(result: BatchResult) -> dict[str, str]:
    """Language name -> kind of what ``result`` holds: the pair fields and its phenomena."""
    rows = result.query("DESCRIBE SELECT * FROM {source}").fetchall()
    types = {str(r[0]): str(r[1]).upper() for r in rows}
    names = {"id": "text", "task": "text", "label": "text", "gold": "bool"}
    for column, kind in types.items():
        if column.startswith(PHENOMENON_PREFIX) and len(column) > len(PHENOMENON_PREFIX):
            names[column[len(PHENOMENON_PREFIX):]] = _KINDS.get(kind, "number")
    return names


def result_columns(names: Mapping[str, str], cutoffs: Mapping[str, CutoffChoice]) -> dict[str, str]:
    """Language name (and ``score:S``, ``entails:S``, ``correct:S``) -> SQL over the result.
    Every identifier comes from the result's own columns or registered scorer names, quoted;
    every cutoff is a finite number written by :func:`sql_literal`."""
    def quoted(column: str) -> str:
        return '"' + column.replace('"', '""') + '"'

    columns = {"id": quoted("id"), "task": quoted("task"), "label": quoted("label"), "gold": quoted("entails")}
    columns.update({n: quoted(phenomenon_column(n)) for n in names if n not in columns})
    for scorer, choice in cutoffs.items():
        value = quoted(scorer)
        said = f"({value} > {sql_literal(float(choice.value))})"
        columns.update({f"score:{scorer}": value, f"entails:{scorer}": said,
                        f"correct:{scorer}": f"({said} = {quoted('entails')})"})
    return columns


def batch_cutoffs(result: BatchResult, scorers: Sequence[str], *, dev: Dataset | None = None,
                  rule: str | None = None) -> dict[str, CutoffChoice]:
    """Each scorer's cutoff on ``result``: as :meth:`BatchResult.cutoff` (the result's own
    when it has labels), with a development set scored here as ``evaluate --dev`` scores it.

    Raises:
        BatchError: for a scorer the result does not hold.
    """
    rule = rule or DEFAULT_RULE
    check_dev(dev, rule=rule, graded=result.manifest.kind == "graded")
    missing = [s for s in scorers if s not in result.manifest.scorers]
    if missing:
        raise BatchError(f"scorer {missing[0]!r} is not in this result; it has {', '.join(result.manifest.scorers)}")
    out = {}
    for scorer in scorers:
        own: CutoffChoice | None = None
        if result.manifest.kind in ("binary", "three_way"):
            try:
                own = result.own_cutoff(scorer)
            except BatchError:  # no labelled pair has a value
                own = None
        out[scorer], _ = scorer_cutoff(scorer, own, dev=dev, rule=rule)
    return out


def batch_slice_results(result: BatchResult, scorers: Sequence[str], slices: Mapping[str, str], *,
                        dev: Dataset | None = None, rule: str | None = None,
                        cutoffs: Mapping[str, CutoffChoice] | None = None) -> tuple[list[SliceResult], dict[str, CutoffChoice]]:
    """Every slice of ``result`` with every scorer's accuracy and interval, against the
    whole result; and the cutoffs used. Every slice is parsed before any query runs.

    Raises:
        SliceError: for a slice that does not parse (naming it).
        BatchError: for a scorer the result does not hold.
    """
    check_slices(slices)
    names = result_names(result)
    scorers = list(dict.fromkeys(scorers))
    conditions = {}
    for name, expression in slices.items():
        try:
            conditions[name] = parse(expression, names, scorers=scorers, kinds=names)
        except SliceError as error:
            raise SliceError(f"slice {name!r}: {error}") from None
    chosen = dict(cutoffs) if cutoffs is not None else batch_cutoffs(result, scorers, dev=dev, rule=rule)
    columns = result_columns(names, chosen)
    wheres = {name: compile_sql(node, columns) for name, node in conditions.items()}
    parts = [f"count({columns[f'correct:{s}']})" for s in scorers]
    parts += [f"count_if({columns[f'correct:{s}']})" for s in scorers]
    for where in wheres.values():
        parts.append(f"count(*) FILTER (WHERE {where})")
        parts += [f"count({columns[f'correct:{s}']}) FILTER (WHERE {where})" for s in scorers]
        parts += [f"count_if({columns[f'correct:{s}']}) FILTER (WHERE {where})" for s in scorers]
    row = [int(x or 0) for x in result._aggregate(f"SELECT {', '.join(parts)} FROM {{source}}")]
    k = len(scorers)
    whole = {s: (row[k + i], row[i]) for i, s in enumerate(scorers)}
    out = []
    for index, (name, where) in enumerate(wheres.items()):
        base = 2 * k + index * (1 + 2 * k)
        n = row[base]
        results = tuple(ScorerSliceResult.of(s, row[base + 1 + k + i], row[base + 1 + i], *whole[s])
                        for i, s in enumerate(scorers))
        ids = [str(r[0]) for r in result.query(
            f"SELECT id FROM {{source}} WHERE {where} ORDER BY position LIMIT ?", [MAX_IDS]).fetchall()] if n else []
        out.append(SliceResult(name, slices[name], n, tuple(ids), results))
    return out, chosen


__all__ = ["MAX_IDS", "batch_cutoffs", "batch_slice_results", "result_columns", "result_names"]

"""One row per pair with everything a slice can ask about it: what slices filter.

:func:`group_frame` scores a dataset with the chosen scorers and decides every pair by the
one resolver, exactly as ``evaluate`` does (:func:`explorer.decision.evaluation.scorer_cutoff`:
the scorer's own cutoff for a trained classifier, else one chosen on the development set,
else the best on the data's labelled pairs), so a slice's accuracy for a scorer is
``evaluate``'s on the same pairs. The columns:

* ``id``, ``task``, ``label``, ``text``, ``hypothesis``: the pair as loaded;
* ``gold``: whether it is entailed (nullable: NA for an unlabelled or graded pair);
* ``tags``: the pair's tags (a sorted tuple; empty without any);
* one column per phenomenon (:mod:`explorer.groups.phenomena`), named as the phenomenon;
* per scorer ``S``: ``score:S`` (NaN where the scorer refused the pair), ``entails:S``
  (its verdict, ``score > cutoff``; NA where refused) and ``correct:S`` (the verdict
  against the gold label; NA where either is missing).

Pairs a scorer refuses keep their row (the other scorers judged them) and count in no
accuracy of that scorer; unlabelled pairs count in none. ``evaluate`` leaves both out the
same way (it refuses a run with a refusal, and the command line evaluates the labelled
pairs of a partly labelled file).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explorer.datasets import Dataset
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.evaluation import check_dev, score_pairs, scorer_cutoff
from explorer.decision.resolve import Scored, resolve_cutoff
from explorer.decision.rules import DEFAULT_RULE
from explorer.groups.language import FIELDS, Node, SliceError, parse
from explorer.scorers import SCORERS

#: progress(what, done, total): a scorer's name or "phenomena".
Progress = Callable[[str, int, int], None]

#: The frame's columns that are not language names.
PAIR_TEXT = ("text", "hypothesis", "tags")


def registered_phenomena() -> dict[str, str]:
    """Phenomenon name -> kind (bool, number, text) of the detectors registered in
    :mod:`explorer.groups.phenomena`; empty while that module is absent."""
    try:
        from explorer.groups.phenomena import PHENOMENA
    except ImportError:
        return {}
    return {name: p.kind for name, p in PHENOMENA.items()}


def slice_names() -> dict[str, str]:
    """Every name a slice may use on some frame (the fields and the registered
    phenomena) -> its kind: what a saved slice is checked against."""
    return {**FIELDS, **registered_phenomena()}


@dataclass(frozen=True)
class GroupFrame:
    """A dataset as one row per pair (the module docstring lists the columns).

    Attributes:
        table: the rows, in dataset order.
        cutoffs: scorer -> the cutoff its verdicts use (:func:`resolve_cutoff`'s).
        scorers: the scorers with columns, in the order asked.
        kinds: language name -> ``bool`` / ``number`` / ``text``.
    """

    table: pd.DataFrame
    cutoffs: dict[str, CutoffChoice]
    scorers: tuple[str, ...]
    kinds: dict[str, str] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """The names a slice may use on this frame."""
        return tuple(self.kinds)

    def parse(self, expression: str) -> Node:
        """A slice parsed against this frame's names and scorers.

        Raises:
            SliceError: as :func:`explorer.groups.language.parse`.
        """
        return parse(expression, self.kinds, scorers=self.scorers, kinds=self.kinds)


def _kind_of(column: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(column):
        return "bool"
    if pd.api.types.is_numeric_dtype(column):
        return "number"
    values = column.dropna()
    if len(values) and all(isinstance(v, bool | np.bool_) for v in values):
        return "bool"
    return "text"


def frame_from_table(table: pd.DataFrame, cutoffs: Mapping[str, CutoffChoice], scorers: Sequence[str],
                     phenomena_kinds: Mapping[str, str] | None = None) -> GroupFrame:
    """A :class:`GroupFrame` over a table already built (by :func:`group_frame`, or by hand
    in a test): the kinds of its phenomena are the registry's, else read from the values."""
    known = dict(phenomena_kinds or registered_phenomena())
    kinds = {name: kind for name, kind in FIELDS.items() if name in table.columns}
    for name in table.columns:
        if name in kinds or name in PAIR_TEXT or ":" in str(name):
            continue
        kinds[str(name)] = known.get(str(name)) or _kind_of(table[name])
    return GroupFrame(table, dict(cutoffs), tuple(scorers), kinds)


def _base_table(dataset: Dataset, tags: Mapping[str, set[str]] | None) -> pd.DataFrame:
    pairs = dataset.pairs
    tags = tags or {}
    return pd.DataFrame({
        "id": [p.id for p in pairs],
        "task": [p.task for p in pairs],
        "gold": pd.array([p.entails for p in pairs], dtype="boolean"),
        "label": [p.label for p in pairs],
        "text": [p.text for p in pairs],
        "hypothesis": [p.hypothesis for p in pairs],
        "tags": [tuple(sorted(tags.get(p.id, ()))) for p in pairs],
    })


def _phenomena(dataset: Dataset, names: Sequence[str] | None, progress: Progress | None) -> pd.DataFrame | None:
    """The phenomena columns (all registered ones when ``names`` is None), or None when
    none is asked or the registry is absent."""
    if names is not None and not names:
        return None
    known = registered_phenomena()
    if not known:
        if names:
            raise SliceError(f"no phenomena are registered here, so {names[0]!r} cannot be computed")
        return None
    unknown = [n for n in (names or ()) if n not in known]
    if unknown:
        raise SliceError(f"unknown phenomenon {unknown[0]!r}; known: {', '.join(sorted(known))}")
    from explorer.groups.phenomena import phenomena_table

    report = (lambda i, n: progress("phenomena", i, n)) if progress is not None else None
    return phenomena_table(dataset.pairs, None if names is None else list(names), progress=report)


def group_frame(
    dataset: Dataset, scorers: Sequence[str], *, dev: Dataset | None = None,
    phenomena: Sequence[str] | None = None, tags: Mapping[str, set[str]] | None = None,
    progress: Progress | None = None, rule: str | None = None,
) -> GroupFrame:
    """Score ``dataset`` with ``scorers`` and lay it out one row per pair.

    Args:
        dataset: the pairs (labelled, partly labelled, unlabelled or graded).
        scorers: registered scorer names.
        dev: a labelled development set the cutoffs are chosen on (as ``evaluate --dev``).
        phenomena: which phenomena to compute; None for every registered one, ``[]`` for none.
        tags: pair id -> its tags (the store's), for ``tagged("...")``.
        progress: ``progress(what, done, total)``.
        rule: the cutoff rule on ``dev`` (the default rule when None).

    Raises:
        EvaluationError: for an unknown rule or a development set that cannot choose a
            cutoff (before any scoring).
        UnknownScorerError: for an unknown scorer.
        SliceError: for an unknown phenomenon.
    """
    rule = rule or DEFAULT_RULE
    graded = dataset.kind == "graded"
    check_dev(dev, rule=rule, graded=graded)
    for name in scorers:
        SCORERS.info(name)
    table = _base_table(dataset, tags)
    found = _phenomena(dataset, phenomena, progress)
    if found is not None:
        found = found.drop(columns=[c for c in found.columns if c in table.columns])
        table = pd.concat([table, found.set_axis(table.index)], axis=1)
    labelled = table["gold"].notna().to_numpy()
    gold = table["gold"].fillna(False).to_numpy(dtype=bool)
    choices: dict[str, CutoffChoice] = {}
    columns: dict[str, object] = {}
    for name in dict.fromkeys(scorers):
        report = (lambda i, n, s=name: progress(s, i, n)) if progress is not None else None
        scores = score_pairs(dataset.pairs, name, progress=report, refused_as_nan=True)
        if graded or not labelled.any():
            choice = resolve_cutoff(name, rule=rule)
        else:
            own = Scored.of(dataset.name, scores[labelled], gold[labelled])
            choice, _ = scorer_cutoff(name, own, dev=dev, rule=rule)
        choices[name] = choice
        scored = np.isfinite(scores)
        said = pd.array(np.where(scored, scores > choice.value, False), dtype="boolean")
        said[~scored] = pd.NA
        columns[f"score:{name}"] = scores
        columns[f"entails:{name}"] = said
        columns[f"correct:{name}"] = said == table["gold"].array
    table = pd.concat([table, pd.DataFrame(columns, index=table.index)], axis=1)
    return frame_from_table(table, choices, list(dict.fromkeys(scorers)))


__all__ = ["GroupFrame", "frame_from_table", "group_frame", "registered_phenomena", "slice_names"]

"""MT-evaluation metrics as a named feature vector per pair.

Finch, Hwang & Sumita (2005, §2-3) describe each sentence pair by MT-evaluation scores
and train a classifier on them. The feature groups here are theirs:

========  ===========================================================================
group     features
========  ===========================================================================
wer       ``wer``: word error rate, both directions averaged (:mod:`.wer`)
per       ``per``: position-independent error rate, both directions (:mod:`.per`)
bleu1-4   ``bleuN``: geometric mean of orders 1..N, no brevity penalty (:mod:`.bleu`)
nist1-5   ``nistN``: NIST-N, Brown information weights (:mod:`.nist`)
pos       ``pos+:TAG`` / ``pos-:TAG``: matched / unmatched words per Penn tag, nouns and
          verbs lemmatised (:func:`.per.pos_per`)
pos_syn   the same with WordNet Jiang-Conrath synonym matching (``syn+:TAG`` ...)
========  ===========================================================================

Any registered scorer joins as ``scorer:NAME`` (one feature, its ``value``), so the
alignment scores of other methods (MANLI, ITG, edit distance...) become features as
soon as they are in :data:`explorer.scorers.SCORERS`.

``all`` is every group except ``pos_syn`` (which needs WordNet information content and
is much slower). WER and PER enter as error rates, as in the paper, not as the
scorers' ``1 - rate``. Every metric is computed once per pair: n-gram counts are shared
by the BLEU orders, and one NIST table serves the five NIST orders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.errors import ExplorerError
from explorer.limits import check
from explorer.metrics import nist as nist_module
from explorer.metrics.bleu import OrderStats, combine, order_counts
from explorer.metrics.per import PENN_TAGS, PosPerResult, per_tokens, pos_per
from explorer.metrics.wer import WerResult, error_rate, levenshtein
from explorer.preprocess import AnalyzedPair

__all__ = [
    "ALL_GROUPS", "BLEU_GROUPS", "GROUPS", "NIST_GROUPS", "SCORER_PREFIX", "FeatureError", "FeatureVector",
    "MetricBreakdown", "feature_matrix", "feature_names", "group_feature_names", "metric_breakdown", "pair_features",
    "parse_groups",
]

BLEU_GROUPS = tuple(f"bleu{n}" for n in range(1, 5))
NIST_GROUPS = tuple(f"nist{n}" for n in range(1, 6))
GROUPS: tuple[str, ...] = ("wer", "per", *BLEU_GROUPS, *NIST_GROUPS, "pos", "pos_syn")
ALL_GROUPS: tuple[str, ...] = tuple(g for g in GROUPS if g != "pos_syn")
SCORER_PREFIX = "scorer:"


class FeatureError(ExplorerError, ValueError):
    """An unknown feature group."""


def parse_groups(spec: str) -> tuple[str, ...]:
    """``"per,bleu1"`` or ``"all"`` -> group names, checked, in :data:`GROUPS` order.

    Raises:
        FeatureError: naming the unknown group and the known ones.
    """
    from explorer.scorers import SCORERS

    given = [s.strip() for s in spec.split(",") if s.strip()]
    if not given:
        raise FeatureError(f"no feature group named; choose from: all, {', '.join(GROUPS)}, scorer:NAME")
    names = set(given)
    if "all" in names:
        names = (names - {"all"}) | set(ALL_GROUPS)
    scorers = [g for g in dict.fromkeys(given) if g.startswith(SCORER_PREFIX)]
    for group in scorers:
        if group[len(SCORER_PREFIX):] not in SCORERS:
            raise FeatureError(f"unknown scorer in {group!r}; registered scorers: {', '.join(SCORERS)}")
    unknown = sorted(names - set(GROUPS) - set(scorers))
    if unknown:
        raise FeatureError(f"unknown feature group {unknown[0]!r}; choose from: all, {', '.join(GROUPS)}, scorer:NAME")
    return tuple(g for g in GROUPS if g in names) + tuple(scorers)


def group_feature_names(group: str) -> tuple[str, ...]:
    """The feature names one group contributes."""
    if group == "pos":
        return tuple(f"pos+:{t}" for t in PENN_TAGS) + tuple(f"pos-:{t}" for t in PENN_TAGS)
    if group == "pos_syn":
        return tuple(f"syn+:{t}" for t in PENN_TAGS) + tuple(f"syn-:{t}" for t in PENN_TAGS)
    if group not in GROUPS and not group.startswith(SCORER_PREFIX):
        raise FeatureError(f"unknown feature group {group!r}")
    return (group,)


def _ordered(groups: Sequence[str]) -> list[str]:
    """Built-in groups in :data:`GROUPS` order, then scorer groups as given."""
    wanted = set(groups)
    return [g for g in GROUPS if g in wanted] + [g for g in dict.fromkeys(groups) if g.startswith(SCORER_PREFIX)]


def feature_names(groups: Sequence[str]) -> tuple[str, ...]:
    return tuple(name for g in groups for name in group_feature_names(g))


#: The cost model (:data:`explorer.limits.COST_MODELS`) of each metric group's computation.
_COST_MODEL = {"wer": "wer", "per": "per", **{f"bleu{n}": "bleu" for n in range(1, 5)},
               **{f"nist{n}": "nist" for n in range(1, 6)}, "pos": "pos_per", "pos_syn": "pos_per"}


@dataclass(frozen=True)
class FeatureVector:
    """One pair's features: names and values in the same order."""

    names: tuple[str, ...]
    values: tuple[float, ...]

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.names, self.values))


def _bleu_features(p: Sequence[str], h: Sequence[str], wanted: set[str]) -> dict[str, float]:
    """The wanted ``bleu1``..``bleu4``: BLEU-n without brevity penalty, averaged over both directions."""
    bleu_wanted = [n for n in range(1, 5) if f"bleu{n}" in wanted]
    if not bleu_wanted:
        return {}
    # one count of orders 1..4 per direction serves every BLEU-n (same as bleu_both_ways)
    top = max(bleu_wanted)
    h_orders = order_counts(h, p, top)
    # clipped matches, sum of min(count in h, count in p), are the same both ways:
    # only the number of candidate n-grams changes with the direction
    p_orders = tuple(OrderStats(o.n, o.matched, max(len(p) - o.n + 1, 0)) for o in h_orders)
    return {f"bleu{n}": (combine(h_orders[:n], 1.0, "bleu") + combine(p_orders[:n], 1.0, "bleu")) / 2
            for n in bleu_wanted}


def _nist_features(
    p: Sequence[str], h: Sequence[str], wanted: set[str], weights: nist_module.InformationWeights | None,
) -> dict[str, float]:
    """The wanted ``nist1``..``nist5``: NIST-n averaged over both directions."""
    nist_wanted = [n for n in range(1, 6) if f"nist{n}" in wanted]
    if not nist_wanted:
        return {}
    table = weights if weights is not None else nist_module.default_weights()
    orders = nist_module.nist_orders(p, h, table, max(nist_wanted))
    values = {}
    for n in nist_wanted:
        forward, backward, _, _ = nist_module.combine(orders, len(p), len(h), n)
        values[f"nist{n}"] = (forward + backward) / 2
    return values


def pair_features(
    pair: AnalyzedPair, groups: Sequence[str] = ALL_GROUPS, *,
    weights: nist_module.InformationWeights | None = None,
) -> FeatureVector:
    """The named feature vector of one analysed pair.

    Raises:
        explorer.limits.LimitError: for a pair past the limits of a group's method (a
            ``scorer:`` group's scorer checks its own).
    """
    p, h = pair.text.lower, pair.hypothesis.lower
    values: dict[str, float] = {}
    wanted = set(groups)
    for group in wanted:
        if group in _COST_MODEL:
            check(group, len(p), len(h), model=_COST_MODEL[group])
    if "wer" in wanted:
        distance = levenshtein(p, h)
        values["wer"] = (error_rate(distance, len(h), len(p)) + error_rate(distance, len(p), len(h))) / 2
    if "per" in wanted:
        values["per"] = per_tokens(p, h).rate
    values.update(_bleu_features(p, h, wanted))
    values.update(_nist_features(p, h, wanted, weights))
    if "pos" in wanted:
        values.update(pos_per(pair, stem=True).features())
    if "pos_syn" in wanted:
        from explorer.metrics.jcn import jcn_synonym

        result = pos_per(pair, stem=True, synonym=jcn_synonym)
        values.update({k.replace("pos", "syn", 1): v for k, v in result.features().items()})
    for group in groups:
        if group.startswith(SCORER_PREFIX):
            from explorer.scorers import get_scorer

            values[group] = float(get_scorer(group[len(SCORER_PREFIX):]).score(pair).value)
    names = feature_names(_ordered(groups))
    return FeatureVector(names, tuple(values[n] for n in names))


def feature_matrix(
    pairs: Sequence[AnalyzedPair], groups: Sequence[str] = ALL_GROUPS, *,
    weights: nist_module.InformationWeights | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[tuple[str, ...], np.ndarray]:
    """``(names, X)`` with one row per pair."""
    names = feature_names(_ordered(groups))
    rows = np.zeros((len(pairs), len(names)))
    for i, pair in enumerate(pairs):
        rows[i] = pair_features(pair, groups, weights=weights).values
        if progress is not None:
            progress(i + 1, len(pairs))
    return names, rows


@dataclass(frozen=True)
class MetricBreakdown:
    """Every MT metric of one pair with its breakdown, as the Pair page's MT-metrics tab
    shows it.

    Attributes:
        rows: one dict per metric: ``metric``, ``value``, ``hypothesis as candidate``,
            ``text as candidate`` (None where it does not apply) and ``detail``.
        profile: the pair's value of each profile feature (``wer``, ``per``, ``bleuN``,
            ``nistN``), to place against a reference distribution.
        wer: the WER result (its edit script is drawn).
        pos: the POS-decomposed PER result (its matching is drawn).
    """

    rows: tuple[dict[str, object], ...]
    profile: dict[str, float]
    wer: WerResult
    pos: PosPerResult


def metric_breakdown(pair: AnalyzedPair) -> MetricBreakdown:
    """WER, PER, BLEU1-4 and NIST1-5 both ways, and the POS-PER matched share, of one pair."""
    from explorer.metrics.bleu import bleu_both_ways
    from explorer.metrics.nist import nist_tokens
    from explorer.metrics.wer import wer_tokens

    p, h = pair.text.lower, pair.hypothesis.lower
    wer = wer_tokens(p, h)
    per = per_tokens(p, h)
    rows: list[dict[str, object]] = [
        {"metric": "WER", "value": wer.rate, "hypothesis as candidate": wer.rate_text_reference,
         "text as candidate": wer.rate_hypothesis_reference,
         "detail": f"{wer.distance} edits: {wer.substitutions} SUB, {wer.deletions} DEL, {wer.insertions} INS"},
        {"metric": "PER", "value": per.rate, "hypothesis as candidate": per.rate_text_reference,
         "text as candidate": per.rate_hypothesis_reference,
         "detail": f"unmatched: {per.text_unmatched} text, {per.hypothesis_unmatched} hypothesis words"},
    ]
    profile = {"wer": wer.rate, "per": per.rate}
    for n in range(1, 5):
        bleu = bleu_both_ways(p, h, n, with_matches=False)
        precisions = ", ".join(f"{x:.2f}" for x in bleu.hypothesis_candidate.precisions)
        rows.append({"metric": f"BLEU{n}", "value": bleu.value,
                     "hypothesis as candidate": bleu.hypothesis_candidate.value,
                     "text as candidate": bleu.text_candidate.value,
                     "detail": f"precisions (hypothesis as candidate): {precisions}"})
        profile[f"bleu{n}"] = bleu.value
    for n in range(1, 6):
        nist = nist_tokens(p, h, max_n=n)
        info = ", ".join(f"{o.info:.1f}" for o in nist.orders)
        rows.append({"metric": f"NIST{n}", "value": nist.value,
                     "hypothesis as candidate": nist.hypothesis_candidate,
                     "text as candidate": nist.text_candidate,
                     "detail": f"matched information (bits) per order: {info}; weights: {nist.weights_source}"})
        profile[f"nist{n}"] = nist.value
    pos = pos_per(pair, stem=True)
    rows.append({"metric": "POS-PER matched share", "value": pos.value, "hypothesis as candidate": None,
                 "text as candidate": None, "detail": "nouns and verbs compared by lemma"})
    return MetricBreakdown(tuple(rows), profile, wer, pos)

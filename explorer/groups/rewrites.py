"""What-if rewrites: rewrite every pair of a group the same way and see which verdicts move.

A rule (:class:`RewriteRule`, registered in :data:`REWRITES`) rewrites one pair, or says it
does not apply, and, where the rewrite settles the gold label (an antonym in an entailed
hypothesis makes it no longer follow), says what the label becomes. :func:`rewrite_run`
applies a rule to a dataset's pairs, scores the originals and the rewrites with each
scorer, and decides both with the *same* cutoff, resolved once on the original data as
``evaluate`` resolves it (:func:`explorer.decision.resolve.resolve_cutoff`): a verdict that
flips is the rewrite's doing, never the cutoff's. The rules are deterministic (no
randomness); the word edits they make are :mod:`explorer.groups.edits`.

A rewritten pair keeps its original's id with the rule's name after ``~``
(``12~drop_negation``), its task and source, and a note saying what changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from explorer.api import Registry, UnknownNameError, shown
from explorer.datasets import Dataset
from explorer.decision import cutoffs
from explorer.decision.cutoffs import CutoffChoice
from explorer.errors import ExplorerError
from explorer.groups import detectors, edits
from explorer.lexical.mismatch import numbers
from explorer.pairs import ENTAILMENT, NON_ENTAILMENT, Pair
from explorer.preprocess import AnalyzedPair, analyze_pair

#: Between an original id and the rule's name in a rewritten pair's id.
SEPARATOR = "~"


class UnknownRuleError(UnknownNameError):
    """A rewrite rule name the registry does not have."""


class RewriteError(ExplorerError, ValueError):
    """A rewrite that cannot run: a resource it needs is missing, an id is unknown."""


@dataclass(frozen=True)
class RewriteRule:
    """A what-if rewrite.

    Attributes:
        name: the registry key (``--rule`` on the command line).
        description: one line on what it does to a pair.
        apply: the rewritten pair, or None when the rule does not apply to this pair.
        expected: the rewritten pair's gold entailment when the rule settles it (from the
            original and its rewrite), else None.
        needs: NLTK resources (:data:`explorer.resources.RESOURCES` ids) and aligner names
            it uses.
    """

    name: str
    description: str
    apply: Callable[[Pair], Pair | None]
    expected: Callable[[Pair, Pair], bool | None]
    needs: tuple[str, ...] = ()


def rewritten_id(original_id: str, rule: str) -> str:
    """``12`` rewritten by ``drop_negation``: ``12~drop_negation``."""
    return f"{original_id}{SEPARATOR}{rule}"


def origin(pair_id: str) -> tuple[str, str] | None:
    """The original id and the rule of a rewritten pair's id, None for any other id."""
    original, sep, rule = pair_id.rpartition(SEPARATOR)
    return (original, rule) if sep and original and rule in REWRITES else None


def _rewritten(pair: Pair, rule: str, change: str, *, text: tuple[str, tuple[str, ...]] | None = None,
               hypothesis: tuple[str, tuple[str, ...]] | None = None) -> Pair:
    """The original with a side replaced; a side keeps given tokens only if it had them."""
    out = replace(pair, id=rewritten_id(pair.id, rule), label=None, score=None, gold_alignment=None,
                  note=f"{rule} of pair {pair.id}: {change}")
    if text is not None:
        out = replace(out, text=text[0], text_tokens=text[1] if pair.text_tokens is not None else None)
    if hypothesis is not None:
        out = replace(out, hypothesis=hypothesis[0],
                      hypothesis_tokens=hypothesis[1] if pair.hypothesis_tokens is not None else None)
    return out


def _edited(pair: Pair, analysed: AnalyzedPair, rule: str, side: str, found: edits.SideEdit | None) -> Pair | None:
    if found is None:
        return None
    part = analysed.text if side == "text" else analysed.hypothesis
    new = edits.apply_edit(part.text, part.tokens, found.edit)
    return _rewritten(pair, rule, found.change, **{side: new})


# -- the rules ---------------------------------------------------------------------------

def _drop_negation(pair: Pair) -> Pair | None:
    facts = detectors.PairFacts(pair)  # the pairs of the phenomena negation_only_in_h / _in_t
    if detectors.negation_only_in_h(facts):
        side, part = "hypothesis", facts.hypothesis
    elif detectors.negation_only_in_t(facts):
        side, part = "text", facts.text
    else:
        return None
    return _edited(pair, facts.analysed, "drop_negation", side, edits.drop_negation_edit(part))


def _negation_dropped_from_entailed_hypothesis(original: Pair, rewritten: Pair) -> bool | None:
    # A text that entails "X did not win" does not entail "X did win".
    return False if original.entails and rewritten.hypothesis != original.hypothesis else None


def _change_number(pair: Pair) -> Pair | None:
    analysed = analyze_pair(pair)
    return _edited(pair, analysed, "change_number", "hypothesis",
                   edits.change_number_edit(analysed.hypothesis, analysed.text))


def _number_from_text_changed(original: Pair, rewritten: Pair) -> bool | None:
    analysed = analyze_pair(original)
    found = edits.change_number_edit(analysed.hypothesis, analysed.text)
    if found is None or found.bounded_above or found.value not in numbers(analysed.text.tokens):
        return None
    return False


def _antonym(pair: Pair) -> Pair | None:
    analysed = analyze_pair(pair)
    return _edited(pair, analysed, "antonym", "hypothesis", edits.antonym_edit(analysed.hypothesis))


def _antonym_of_entailed(original: Pair, rewritten: Pair) -> bool | None:
    return False if original.entails else None


def _hypernym(pair: Pair) -> Pair | None:
    analysed = analyze_pair(pair)
    return _edited(pair, analysed, "hypernym", "hypothesis", edits.hypernym_edit(analysed.hypothesis))


def _hypernym_of_entailed(original: Pair, rewritten: Pair) -> bool | None:
    # A more general word still follows, unless a negation or quantifier turns the direction.
    return True if original.entails and edits.upward(analyze_pair(original).hypothesis) else None


def _no_expectation(original: Pair, rewritten: Pair) -> bool | None:
    return None


def _delete_unaligned(aligner: str, rule: str) -> Callable[[Pair], Pair | None]:
    def apply(pair: Pair) -> Pair | None:
        facts = detectors.PairFacts(pair)  # the words of the phenomenon unaligned_h_content_<aligner>
        unaligned = detectors.unaligned_positions(facts, aligner)
        if unaligned is None:
            raise RewriteError(f"{aligner} refused the pair under the current limits")
        return _edited(pair, facts.analysed, rule, "hypothesis",
                       edits.unaligned_edit(facts.hypothesis, unaligned, aligner))

    return apply


def _swap(pair: Pair) -> Pair:
    swapped = replace(pair, text=pair.hypothesis, hypothesis=pair.text,
                      text_tokens=pair.hypothesis_tokens, hypothesis_tokens=pair.text_tokens)
    return _rewritten(swapped, "swap", "text and hypothesis swapped")


_TAGGED_WORDNET = ("averaged_perceptron_tagger_eng", "wordnet")


def _unaligned_rule(aligner: str, name: str) -> RewriteRule:
    return RewriteRule(name, f"delete the hypothesis content words {aligner} leaves unaligned (stopwords and "
                       "punctuation stay; not applied when none or all are unaligned)",
                       _delete_unaligned(aligner, name), _no_expectation, (aligner,))


REWRITES: Registry[RewriteRule] = Registry("rewrite rule", [
    RewriteRule("drop_negation", "drop the negation of the one side that has one (not, n't, never, hardly "
                "deleted, the auxiliary kept: 'did not win' -> 'did win'; no -> some, nobody -> somebody, "
                "without -> with); a side negated by fail, deny, neither or nor is left alone; expected: "
                "not entailed when an entailed hypothesis lost its negation",
                _drop_negation, _negation_dropped_from_entailed_hypothesis),
    RewriteRule("change_number", "raise the hypothesis' first cardinal number to the next whole value the "
                "text does not mention (3 -> 4); expected: not entailed when the original number is in "
                "the text (no expectation after fewer/less/under/at most)",
                _change_number, _number_from_text_changed),
    RewriteRule("antonym", "replace the hypothesis' first content word in its base form that has a WordNet "
                "antonym with it (first sense first); expected: not entailed when the original was",
                _antonym, _antonym_of_entailed, _TAGGED_WORDNET),
    RewriteRule("hypernym", "replace the hypothesis' first singular noun in its base form with the first "
                "hypernym of its first WordNet sense (car -> motor vehicle); expected: still entailed when the "
                "original was and the hypothesis has no negation or quantifier",
                _hypernym, _hypernym_of_entailed, _TAGGED_WORDNET),
    _unaligned_rule("manli", "delete_unaligned"),
    _unaligned_rule("bow", "delete_unaligned_bow"),
    _unaligned_rule("itg", "delete_unaligned_itg"),
    RewriteRule("swap", "swap the text and the hypothesis", _swap, _no_expectation),
], error=UnknownRuleError)


def get_rule(name: str) -> RewriteRule:
    """The rule registered under ``name``.

    Raises:
        UnknownRuleError: naming the known rules.
    """
    return REWRITES.info(name)


def check_needs(rule: RewriteRule) -> None:
    """Refuse a rule whose NLTK resources are missing (before any pair is rewritten).

    Raises:
        RewriteError: naming the missing resource and how to get it.
    """
    from explorer import resources

    known = {r.nltk_id for r in resources.RESOURCES}
    for need in rule.needs:
        if need in known and not resources.is_available(need):
            raise RewriteError(f"the rule {rule.name} needs the NLTK resource {need!r}, which is missing; "
                               "run `python -m explorer resources --download`")


def rewrite_pair(rule: RewriteRule, pair: Pair) -> Pair | None:
    """``rule`` applied to ``pair``, labelled with the expected gold when the rule settles
    it (``entailment`` / ``non-entailment``), unlabelled otherwise."""
    rewritten = rule.apply(pair)
    if rewritten is None:
        return None
    expected = rule.expected(pair, rewritten)
    return replace(rewritten, label=None if expected is None else (ENTAILMENT if expected else NON_ENTAILMENT))




# -- a rule over a dataset ---------------------------------------------------------------

Progress = Callable[[str, int, int], None]


def _verdict(score: float | None, cutoff: float) -> bool | None:
    return None if score is None else score > cutoff


@dataclass(frozen=True)
class RewriteRow:
    """One rewritten pair: its original, each scorer's score and verdict before and after
    (None where the scorer refused the pair), and the expected gold when the rule settles it."""

    original: Pair
    rewritten: Pair
    expected: bool | None
    before: dict[str, float | None]
    after: dict[str, float | None]
    entails_before: dict[str, bool | None]
    entails_after: dict[str, bool | None]

    @property
    def id(self) -> str:
        return self.rewritten.id

    def flipped(self, scorer: str) -> bool:
        """Both verdicts given, and different."""
        a, b = self.entails_before[scorer], self.entails_after[scorer]
        return a is not None and b is not None and a != b

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "original_id": self.original.id, "change": self.rewritten.note,
                "text": self.rewritten.text, "hypothesis": self.rewritten.hypothesis,
                "gold_before": self.original.entails, "expected": self.expected,
                "scores": {s: {"before": self.before[s], "after": self.after[s],
                               "entails_before": self.entails_before[s], "entails_after": self.entails_after[s]}
                           for s in self.before}}


@dataclass(frozen=True)
class ScorerRewriteResult:
    """One scorer over the rewritten pairs.

    Attributes:
        cutoff: the one cutoff both the originals and the rewrites were decided with.
        flipped: rewritten pairs whose verdict changed (both verdicts given).
        n_expected: pairs whose expected label the rule settles and whose original is labelled;
            the accuracies are over them (a refused pair counts as wrong), None when there are none.
        refused_before, refused_after: originals and rewrites the scorer refused.
    """

    scorer: str
    cutoff: CutoffChoice
    flipped: int
    n_expected: int
    accuracy_before: float | None
    accuracy_after: float | None
    refused_before: int
    refused_after: int

    def to_json(self) -> dict[str, object]:
        return {"scorer": self.scorer, "flipped": self.flipped, "accuracy_before": self.accuracy_before,
                "accuracy_after": self.accuracy_after, "n_expected": self.n_expected,
                "cutoff": self.cutoff.value, "cutoff_source": self.cutoff.source,
                "refused_before": self.refused_before, "refused_after": self.refused_after}


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


@dataclass(frozen=True)
class RewriteReport:
    """What a rule did to a dataset's pairs, and how each scorer's verdicts moved.

    Attributes:
        rule: the rule.
        data: the dataset's name.
        n_pairs: the pairs the rule was tried on.
        rows: one per rewritten pair, in dataset order.
        results: one per scorer, in the order asked.
        refused: pair id -> why the rule could not rewrite it (a limit, an edit it could not place).
        dev: the development set's name, if the cutoffs were chosen on one.
    """

    rule: RewriteRule
    data: str
    n_pairs: int
    rows: tuple[RewriteRow, ...]
    results: tuple[ScorerRewriteResult, ...]
    refused: dict[str, str] = field(default_factory=dict)
    dev: str | None = None

    @property
    def n_rewritten(self) -> int:
        return len(self.rows)

    def counterfactuals(self) -> list[tuple[str, Pair]]:
        """``(original id, rewritten pair)`` per row: what
        :meth:`explorer.store.Store.add_counterfactuals` keeps."""
        return [(row.original.id, row.rewritten) for row in self.rows]

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule.name, "n_rewritten": self.n_rewritten, "n_pairs": self.n_pairs,
                "data": self.data, "dev": self.dev, "results": [r.to_json() for r in self.results],
                "refused": self.refused, "pairs": [row.to_json() for row in self.rows]}

    def format(self) -> str:
        """A line on the run, one per scorer (flips, accuracies, cutoff), then a few rewrites."""
        where = f"; cutoffs chosen on {shown(self.dev)}" if self.dev else ""
        lines = [f"{self.rule.name} on {shown(self.data)}: {self.n_rewritten} of {self.n_pairs} pairs "
                 f"rewritten{where}", f"  {self.rule.description}"]
        if self.refused:
            lines.append(f"  {len(self.refused)} pairs could not be rewritten (first: "
                         f"{shown(next(iter(self.refused)))}: {shown(next(iter(self.refused.values())))})")
        for r in self.results:
            accuracy = (f"accuracy {_percent(r.accuracy_before)} -> {_percent(r.accuracy_after)} (n={r.n_expected})"
                        if r.n_expected else "no expected label")
            refused = f"  refused {r.refused_before}/{r.refused_after}" if r.refused_before or r.refused_after else ""
            lines.append(f"  {r.scorer:<10} flipped {r.flipped:>4} of {self.n_rewritten:<4} {accuracy}  "
                         f"cutoff {r.cutoff.value:.4f} ({r.cutoff.source}){refused}")
        lines += [f"  {shown(row.rewritten.note or row.id)}" for row in self.rows[:5]]
        return "\n".join(lines)


def _scores(pairs: Sequence[Pair], scorer: str, progress: Progress | None, what: str) -> list[float | None]:
    from explorer.decision.evaluation import score_pairs

    report = (lambda i, n: progress(what, i, n)) if progress else None
    values = score_pairs(pairs, scorer, progress=report, refused_as_nan=True)
    return [float(v) if math.isfinite(v) else None for v in values]


def _own_scores(labelled: Sequence[Pair], scorer: str, progress: Progress | None, name: str) -> list[float | None]:
    """The labelled pairs' scores: those the app's cutoff job keeps on disk for these pairs
    (:mod:`explorer.decision.pair_scores`), else scored here and kept there the same way.
    Under other limits than the defaults the disk is left alone (its refusals are the
    default limits')."""
    from explorer import limits
    from explorer.decision import pair_scores

    fp = cutoffs.fingerprint(labelled)
    default_limits = limits.current() == limits.DEFAULT_LIMITS
    kept = pair_scores.load(fp, scorer, cutoffs.DATASET) if default_limits else None
    if kept is not None and len(kept) == len(labelled):
        return [float(v) if math.isfinite(v) else None for v in kept]
    values = _scores(labelled, scorer, progress, f"{scorer} on {name}")
    if default_limits and pair_scores.storable(len(labelled)):
        pair_scores.save(fp, scorer, cutoffs.DATASET, np.array([math.nan if v is None else v for v in values]))
    return values


def _cutoff(scorer: str, data: Dataset, dev: Dataset | None, rule: str, scored: dict[str, float | None],
            progress: Progress | None) -> CutoffChoice:
    """``scorer``'s cutoff as ``evaluate`` resolves it on ``data``'s labelled pairs (and
    ``dev``), by evaluate's own :func:`~explorer.decision.evaluation.scorer_cutoff`; the
    data's own scores are computed only when the precedence reaches them (no model cutoff,
    no development set), and kept in ``scored`` (pair id -> score) for the originals."""
    from explorer.decision.evaluation import gold_of, scorer_cutoff
    from explorer.decision.resolve import Scored

    choice, _ = scorer_cutoff(scorer, None, dev=dev, rule=rule)
    labelled = cutoffs.labelled(data.pairs)
    if choice.source in (cutoffs.MODEL, cutoffs.DEV) or not labelled:
        return choice
    scored.update(zip([p.id for p in labelled], _own_scores(labelled, scorer, progress, data.name), strict=True))
    own = [math.nan if (value := scored[p.id]) is None else value for p in labelled]
    return scorer_cutoff(scorer, Scored.of(data.name, own, gold_of(labelled)), dev=dev, rule=rule)[0]


def _chosen(data: Dataset, ids: Collection[str] | None) -> list[Pair]:
    if ids is None:
        return list(data.pairs)
    wanted = set(ids)
    unknown = wanted - {p.id for p in data.pairs}
    if unknown:
        raise RewriteError(f"{data.name} has no pair {sorted(unknown)[0]!r}"
                           + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    return [p for p in data.pairs if p.id in wanted]


def _rewrite_all(rule: RewriteRule, pairs: Sequence[Pair],
                 progress: Progress | None) -> tuple[list[tuple[Pair, Pair]], dict[str, str]]:
    done: list[tuple[Pair, Pair]] = []
    refused: dict[str, str] = {}
    for i, pair in enumerate(pairs, 1):
        try:
            rewritten = rewrite_pair(rule, pair)
        except ExplorerError as error:  # a limit or an edit that cannot be placed: this pair's result
            refused[pair.id] = str(error)
            rewritten = None
        if rewritten is not None:
            done.append((pair, rewritten))
        if progress is not None:
            progress(f"rewriting ({rule.name})", i, len(pairs))
    return done, refused


def _result(scorer: str, cutoff: CutoffChoice, rows: Sequence[RewriteRow]) -> ScorerRewriteResult:
    settled = [r for r in rows if r.expected is not None and r.original.entails is not None]
    before = [r.entails_before[scorer] == r.original.entails for r in settled]
    after = [r.entails_after[scorer] == r.expected for r in settled]
    return ScorerRewriteResult(
        scorer, cutoff, flipped=sum(r.flipped(scorer) for r in rows), n_expected=len(settled),
        accuracy_before=float(np.mean(before)) if settled else None,
        accuracy_after=float(np.mean(after)) if settled else None,
        refused_before=sum(r.before[scorer] is None for r in rows),
        refused_after=sum(r.after[scorer] is None for r in rows))


def rewrite_run(dataset: Dataset, rule: str, scorers: Sequence[str], *, dev: Dataset | None = None,
                ids: Collection[str] | None = None, progress: Progress | None = None,
                cutoff_rule: str | None = None) -> RewriteReport:
    """Rewrite every pair of ``dataset`` (or those of ``ids``) by ``rule``, score the
    originals and the rewrites with each scorer, and decide both with one cutoff per
    scorer, resolved once on the original data as ``evaluate`` resolves it (its labelled
    pairs, ``dev`` chosen by ``cutoff_rule``, the scorer's own, ...). A pair the rule or a
    scorer refuses is that pair's result, never the run's end.

    Raises:
        UnknownRuleError, UnknownScorerError: naming the known ones.
        RewriteError: a resource the rule needs is missing, or an id is not in the data.
        EvaluationError: an unknown cutoff rule, or a development set with unlabelled pairs.
    """
    from explorer.decision.evaluation import check_dev
    from explorer.decision.rules import DEFAULT_RULE
    from explorer.scorers import SCORERS

    found = get_rule(rule)
    for name in scorers:
        SCORERS.info(name)
    cutoff_rule = cutoff_rule or DEFAULT_RULE
    check_dev(dev, rule=cutoff_rule, graded=dataset.kind == "graded")  # refused before any work
    check_needs(found)
    tried = _chosen(dataset, ids)
    done, refused = _rewrite_all(found, tried, progress)
    originals = [o for o, _ in done]
    rewrites = [r for _, r in done]
    before: dict[str, dict[str, float | None]] = {}
    after: dict[str, list[float | None]] = {}
    chosen: dict[str, CutoffChoice] = {}
    for name in scorers:
        scored: dict[str, float | None] = {}
        chosen[name] = _cutoff(name, dataset, dev, cutoff_rule, scored, progress)
        missing = [p for p in originals if p.id not in scored]
        scored.update(zip([p.id for p in missing], _scores(missing, name, progress, f"{name} originals"),
                          strict=True))
        before[name] = scored
        after[name] = _scores(rewrites, name, progress, f"{name} rewrites")
    rows = tuple(
        RewriteRow(o, r, r.entails,
                   {s: before[s][o.id] for s in scorers}, {s: after[s][i] for s in scorers},
                   {s: _verdict(before[s][o.id], chosen[s].value) for s in scorers},
                   {s: _verdict(after[s][i], chosen[s].value) for s in scorers})
        for i, (o, r) in enumerate(done))
    return RewriteReport(found, dataset.name, len(tried), rows,
                         tuple(_result(s, chosen[s], rows) for s in scorers), refused,
                         dev.name if dev is not None else None)


__all__ = ["REWRITES", "SEPARATOR", "Progress", "RewriteError", "RewriteReport", "RewriteRow", "RewriteRule",
           "ScorerRewriteResult", "UnknownRuleError", "check_needs", "get_rule", "origin", "rewrite_pair",
           "rewrite_run", "rewritten_id"]

"""What-if rewrites: each rule on a pair that has its phenomenon and on one that does not,
the word edits they place in the string, and a run's one cutoff and counts."""

from __future__ import annotations

import math

import pytest

from explorer.datasets import Dataset
from explorer.decision.evaluation import evaluate
from explorer.groups import edits
from explorer.groups.phenomena import phenomenon_values
from explorer.groups.rewrites import (
    REWRITES,
    RewriteError,
    UnknownRuleError,
    get_rule,
    origin,
    rewrite_pair,
    rewrite_run,
)
from explorer.pairs import ENTAILMENT, NON_ENTAILMENT, Pair
from explorer.preprocess import analyze, tokenize


def _pair(text: str, hypothesis: str, label: str | None = ENTAILMENT, pair_id: str = "7") -> Pair:
    return Pair(pair_id, text, hypothesis, label=label, task="IE", source="written.xml")


def _rewrite(rule: str, pair: Pair) -> Pair | None:
    return rewrite_pair(REWRITES[rule], pair)


# -- the edits placed in the string -------------------------------------------------------

@pytest.mark.parametrize(("text", "edit", "expected"), [
    ("Tom didn't call.", {2: ""}, "Tom did call."),                       # joined to its neighbour
    ("Not one guest came.", {0: ""}, "One guest came."),                  # the capital moves on
    ("She said \"no\" twice.", {3: "yes"}, "She said \"yes\" twice."),    # quotes written as `` ''
    ("Lena won't sing.", {1: "will", 2: ""}, "Lena will sing."),
    ("A big  dog barked.", {1: ""}, "A  dog barked."),                  # one run of space goes
], ids=["contraction", "first-word", "quotes", "wo-n't", "spacing"])
def test_apply_edit_changes_only_the_edited_words(text: str, edit: dict[int, str], expected: str) -> None:
    tokens = tokenize(text)
    out, kept = edits.apply_edit(text, tokens, edit)
    assert out == expected
    assert len(kept) == len(tokens) - sum(1 for w in edit.values() if not w)


def test_a_token_missing_from_its_string_is_an_edit_error() -> None:
    with pytest.raises(edits.EditError, match="not where it was read"):
        edits.token_spans("Tom called.", ("Tom", "phoned", "."))


# -- each rule: applies where its phenomenon is, None where it is not -----------------------

def test_drop_negation_drops_the_one_negated_side() -> None:
    pair = _pair("Ravi finished the report on Monday.", "Ravi didn't finish the report.")
    out = _rewrite("drop_negation", pair)
    assert out is not None
    assert (out.id, out.text, out.hypothesis) == ("7~drop_negation", pair.text, "Ravi did finish the report.")
    assert out.label == NON_ENTAILMENT  # an entailed hypothesis that lost its negation no longer follows
    assert "n't" in (out.note or "") and out.task == "IE"
    in_text = _rewrite("drop_negation", _pair("The shop cannot open and never closes early.", "The shop opens.",
                                              label=NON_ENTAILMENT))
    assert in_text is not None and in_text.text == "The shop can open and closes early."
    assert in_text.label is None  # the text's negation: no label settled
    replaced = _rewrite("drop_negation", _pair("Nobody left without a coat.", "Guests stayed."))
    assert replaced is not None and replaced.text == "Somebody left with a coat."


@pytest.mark.parametrize(("text", "hypothesis"), [
    ("Ravi finished the report.", "Ravi finished it."),               # no negation
    ("Ravi did not finish.", "Ravi never finished."),                  # both sides negated
    ("Ravi finished.", "Ravi failed to finish."),                      # a negation it cannot drop
], ids=["none", "both-sides", "fail"])
def test_drop_negation_does_not_apply(text: str, hypothesis: str) -> None:
    assert _rewrite("drop_negation", _pair(text, hypothesis)) is None


def test_drop_negation_applies_to_the_negation_phenomena_pairs() -> None:
    pairs = [_pair("Ravi won.", "Ravi did not win."), _pair("Ravi never lost.", "Ravi won."),
             _pair("Ravi won.", "Ravi won."), _pair("Ravi did not lose.", "Ravi did not win.")]
    for pair in pairs:
        found = phenomenon_values(pair, ["negation_only_in_h", "negation_only_in_t"])
        assert (_rewrite("drop_negation", pair) is not None) == any(found.values())


def test_change_number_moves_to_a_number_the_text_lacks() -> None:
    out = _rewrite("change_number", _pair("Three trucks and 4 vans crossed in 2004.", "Three trucks crossed."))
    assert out is not None and out.hypothesis == "Five trucks crossed."  # four is in the text
    assert out.label == NON_ENTAILMENT
    grouped = _rewrite("change_number", _pair("The bridge cost 2,400 euros.", "It cost 2,400 euros."))
    assert grouped is not None and grouped.hypothesis == "It cost 2,401 euros."
    not_in_text = _rewrite("change_number", _pair("The bridge was expensive.", "It cost 12 euros."))
    assert not_in_text is not None and not_in_text.label is None
    bounded = _rewrite("change_number", _pair("At most 6 rooms are free.", "At most 6 rooms are free."))
    assert bounded is not None and bounded.label is None  # "at most 7" still follows
    assert _rewrite("change_number", _pair("The bridge cost 2,400 euros.", "The bridge was costly.")) is None


def test_antonym_replaces_a_word_and_unsettles_an_entailment() -> None:
    out = _rewrite("antonym", _pair("The lake is deep and cold.", "The lake is deep."))
    assert out is not None and out.hypothesis == "The lake is shallow."
    assert out.label == NON_ENTAILMENT
    unlabelled = _rewrite("antonym", _pair("The lake is deep and cold.", "The lake is deep.", label=NON_ENTAILMENT))
    assert unlabelled is not None and unlabelled.label is None
    assert _rewrite("antonym", _pair("Mira met Jon.", "Jon met Mira.")) is None  # no word with an antonym


def test_hypernym_generalises_a_noun_and_keeps_an_upward_entailment() -> None:
    out = _rewrite("hypernym", _pair("Ana bought a car yesterday.", "Ana bought a car."))
    assert out is not None and out.hypothesis == "Ana bought a motor vehicle."
    assert out.label == ENTAILMENT
    quantified = _rewrite("hypernym", _pair("Every car here is red.", "Every car is red."))
    assert quantified is not None and quantified.label is None  # "every vehicle" need not follow
    assert _rewrite("hypernym", _pair("Ana left early.", "Ana left.")) is None  # no common noun


def test_delete_unaligned_deletes_what_the_aligner_left() -> None:
    pair = _pair("Maria owns a red car.", "Maria owns a blue bicycle.")
    out = _rewrite("delete_unaligned_bow", pair)
    assert out is not None and out.hypothesis == "Maria owns a bicycle."  # bow links car to bicycle, not blue
    # the words of the phenomenon a slice filters on, no other
    assert phenomenon_values(pair, ["unaligned_h_content_bow"]) == {"unaligned_h_content_bow": 1.0}
    assert out.label is None and out.id == "7~delete_unaligned_bow"
    assert _rewrite("delete_unaligned_bow", _pair("Paula sold her piano.", "Paula sold her piano.")) is None
    assert get_rule("delete_unaligned").needs == ("manli",)


def test_unaligned_edit_takes_an_orphaned_article_with_it() -> None:
    hypothesis = analyze("Paula sold a purple kayak.")
    found = edits.unaligned_edit(hypothesis, unaligned=[3, 4], aligner="test")
    assert found is not None
    assert edits.apply_edit(hypothesis.text, hypothesis.tokens, found.edit)[0] == "Paula sold."
    assert edits.unaligned_edit(hypothesis, unaligned=[0, 1, 3, 4], aligner="test") is None  # nothing would be left
    assert edits.unaligned_edit(hypothesis, unaligned=[], aligner="test") is None


def test_swap_swaps_the_sides_and_their_tokens() -> None:
    pair = Pair("q1", "Owls hunt at night.", "Owls hunt.", label=ENTAILMENT,
                text_tokens=("Owls", "hunt", "at", "night", "."), hypothesis_tokens=("Owls", "hunt", "."))
    out = _rewrite("swap", pair)
    assert out is not None and (out.text, out.hypothesis) == ("Owls hunt.", "Owls hunt at night.")
    assert out.text_tokens == ("Owls", "hunt", ".") and out.label is None
    assert origin(out.id) == ("q1", "swap")
    assert origin("q1") is None and origin("q1~unknown") is None


def test_given_tokens_are_edited_with_the_string() -> None:
    pair = Pair("t", "Kim sang.", "Kim did not sing .", label=ENTAILMENT,
                text_tokens=("Kim", "sang", "."), hypothesis_tokens=("Kim", "did", "not", "sing", "."))
    out = _rewrite("drop_negation", pair)
    assert out is not None and out.hypothesis_tokens == ("Kim", "did", "sing", ".")


def test_unknown_rule_names_the_known_ones() -> None:
    with pytest.raises(UnknownRuleError, match="drop_negation.*swap"):
        get_rule("shuffle")


# -- a run ------------------------------------------------------------------------------

def _data() -> Dataset:
    pairs = (
        _pair("Ravi finished the report on Monday.", "Ravi finished the report.", pair_id="a"),
        _pair("Ravi finished the report on Monday.", "Ravi did not finish the report.", NON_ENTAILMENT, "b"),
        _pair("The museum opened in 1990 with 40 rooms.", "The museum has 40 rooms.", pair_id="c"),
        _pair("The museum opened with many rooms.", "The museum never opened.", NON_ENTAILMENT, "d"),
        _pair("Lina did not win the race.", "Lina lost the race.", pair_id="e"),
        _pair("The painter sold a portrait.", "A painter was not paid.", NON_ENTAILMENT, "f"),
    )
    return Dataset("written.xml", "rte", pairs)


def test_run_decides_both_with_the_cutoff_evaluate_uses() -> None:
    data = _data()
    report = rewrite_run(data, "drop_negation", ["bleu", "per"])
    assert [row.original.id for row in report.rows] == ["b", "d", "e", "f"]
    assert report.n_pairs == 6 and report.n_rewritten == 4
    for result, evaluated in zip(report.results, evaluate(data, ["bleu", "per"]), strict=True):
        assert result.cutoff.value == pytest.approx(evaluated.report.cutoff)
        scores = dict(zip([p.id for p in data.pairs], evaluated.scores, strict=True))
        for row in report.rows:
            assert row.before[result.scorer] == pytest.approx(scores[row.original.id])
            after = row.after[result.scorer]
            assert after is not None and row.entails_after[result.scorer] == (after > result.cutoff.value)
        assert result.flipped == sum(row.flipped(result.scorer) for row in report.rows)
        assert result.n_expected == 0 and result.accuracy_before is None and result.accuracy_after is None
    payload = report.to_json()
    assert payload["rule"] == "drop_negation" and payload["n_rewritten"] == 4
    assert {"scorer", "flipped", "accuracy_before", "accuracy_after"} <= set(payload["results"][0])
    assert "drop_negation on written.xml: 4 of 6 pairs rewritten" in report.format()


def test_run_counts_accuracy_where_the_rule_settles_the_label() -> None:
    data = _data()
    report = rewrite_run(data, "change_number", ["bleu"], ids=["c", "d"])
    (row,) = report.rows
    assert row.original.id == "c" and row.expected is False and row.rewritten.hypothesis == "The museum has 41 rooms."
    (result,) = report.results
    assert result.n_expected == 1
    assert result.accuracy_before == float(row.entails_before["bleu"] is True)
    assert result.accuracy_after == float(row.entails_after["bleu"] is False)
    assert result.flipped == int(row.flipped("bleu"))


def test_run_with_a_development_set_takes_its_cutoff() -> None:
    data = _data()
    dev = Dataset("dev.xml", "rte", data.pairs[:4])
    report = rewrite_run(data, "swap", ["per"], dev=dev)
    (evaluated,) = evaluate(data, ["per"], dev=dev)
    assert report.results[0].cutoff.source == "dev"
    assert report.results[0].cutoff.value == pytest.approx(evaluated.report.cutoff)
    assert report.dev == "dev.xml" and report.n_rewritten == 6


def test_a_refused_pair_is_that_pairs_result() -> None:
    from explorer import limits

    data = _data()
    with limits.using(limits.current().replace(max_tokens=6)):
        report = rewrite_run(data, "swap", ["bleu"])
    (result,) = report.results
    assert report.n_rewritten == 6
    assert 0 < result.refused_before < 6 and result.refused_after == result.refused_before
    refused = [row for row in report.rows if row.before["bleu"] is None]
    assert all(row.entails_before["bleu"] is None and not row.flipped("bleu") for row in refused)
    assert not math.isnan(result.cutoff.value)


def test_run_refuses_before_any_work() -> None:
    with pytest.raises(RewriteError, match="no pair 'zz'"):
        rewrite_run(_data(), "swap", ["bleu"], ids=["a", "zz"])
    with pytest.raises(UnknownRuleError):
        rewrite_run(_data(), "scramble", ["bleu"])
    with pytest.raises(KeyError, match="unknown scorer"):
        rewrite_run(_data(), "swap", ["blue"])


def test_the_datas_own_scores_kept_on_disk_are_read_and_written() -> None:
    import numpy as np

    from explorer.decision import cutoffs, pair_scores

    data = Dataset("kept.xml", "rte", (
        _pair("Oslo hosted the fair in May.", "Oslo hosted the fair.", pair_id="k1"),
        _pair("Oslo hosted the fair in May.", "Bergen hosted the fair.", NON_ENTAILMENT, "k2"),
        _pair("The fair had stalls.", "The fair had no stalls.", NON_ENTAILMENT, "k3"),
    ))
    fp = cutoffs.fingerprint(cutoffs.labelled(data.pairs))
    pair_scores.save(fp, "bleu", cutoffs.DATASET, np.array([0.25, 0.5, np.nan]))  # as the app's job keeps them
    report = rewrite_run(data, "swap", ["bleu", "per"])
    assert [row.before["bleu"] for row in report.rows] == [0.25, 0.5, None]  # not scored again
    assert pair_scores.has(fp, "per", cutoffs.DATASET)  # scored here, kept for the next run and the Pair page

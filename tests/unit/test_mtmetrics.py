"""MT-evaluation metrics as paraphrase features (Finch, Hwang & Sumita 2005)."""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import numpy as np
import pytest

from explorer.alignment import EditKind
from explorer.metrics.bleu import bleu_both_ways, bleu_tokens
from explorer.metrics.features import (
    ALL_GROUPS,
    FeatureError,
    feature_names,
    pair_features,
    parse_groups,
)
from explorer.metrics.nist import InformationWeights, brevity_penalty, nist_tokens
from explorer.metrics.per import PENN_TAGS, per_tokens, pos_per, unmatched_count
from explorer.metrics.wer import edit_script, levenshtein, wer_tokens
from explorer.mtclassify import (
    ClassifyError,
    binary_scores,
    corpus_statistics,
    cross_validate,
    length_difference_ratio,
    mean_interval,
    train_test,
)
from explorer.pairs import Pair
from explorer.preprocess import Analysis, AnalyzedPair, analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer

T = tuple


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# -- WER ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "p, h, distance, forward, backward",
    [
        pytest.param("a b c", "a b c", 0, 0.0, 0.0, id="identical"),
        pytest.param("", "", 0, 0.0, 0.0, id="both-empty"),
        pytest.param("", "a b", 2, 1.0, 1.0, id="empty-text"),
        pytest.param("a b", "", 2, 1.0, 1.0, id="empty-hypothesis"),
        pytest.param("the cat sat", "the cat sat down", 1, 1 / 3, 1 / 4, id="one-insertion"),
        pytest.param("a b c d", "a x c", 2, 2 / 4, 2 / 3, id="sub-and-del"),
        pytest.param("a b c", "c b a", 2, 2 / 3, 2 / 3, id="reordered"),
    ],
)
def test_wer_hand_computed(p, h, distance, forward, backward):
    result = wer_tokens(words(p), words(h))
    assert result.distance == distance == levenshtein(words(p), words(h))
    assert result.rate_text_reference == pytest.approx(forward)
    assert result.rate_hypothesis_reference == pytest.approx(backward)
    assert result.rate == pytest.approx((forward + backward) / 2)
    assert result.value == pytest.approx(1 - result.rate)
    assert result.substitutions + result.deletions + result.insertions == distance


def test_wer_edit_script_is_a_valid_alignment():
    edits = edit_script(words("a b c d"), words("a x c"))
    assert [e.kind for e in edits] == [EditKind.EQ, EditKind.SUB, EditKind.EQ, EditKind.DEL]
    result = wer_tokens(words("a b c d"), words("a x c"))
    assert result.alignment.sure == {(0, 0), (1, 1), (2, 2)}
    assert wer_tokens((), ()).alignment.sure == frozenset()


# -- PER ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "p, h, unmatched, forward, backward",
    [
        pytest.param("a b c", "a b c", 0, 0.0, 0.0, id="identical"),
        pytest.param("a b c", "c b a", 0, 0.0, 0.0, id="order-ignored"),
        pytest.param("", "", 0, 0.0, 0.0, id="both-empty"),
        pytest.param("", "a", 1, 1.0, 1.0, id="empty-text"),
        # diff(p, h) = 2 (a, b), diff(h, p) = 1 (x): the max is 2
        pytest.param("a b c d", "d c x", 2, 2 / 4, 2 / 3, id="max-of-diffs"),
        # multisets: one "the" and one "cat" match on each side
        pytest.param("the the cat", "the cat cat", 1, 1 / 3, 1 / 3, id="repeated-words"),
    ],
)
def test_per_hand_computed(p, h, unmatched, forward, backward):
    result = per_tokens(words(p), words(h))
    assert result.unmatched == unmatched
    assert result.rate_text_reference == pytest.approx(forward)
    assert result.rate_hypothesis_reference == pytest.approx(backward)
    assert result.value == pytest.approx(1 - (forward + backward) / 2)


def test_unmatched_count_is_asymmetric():
    assert unmatched_count(words("a b c d"), words("d c x")) == 2
    assert unmatched_count(words("d c x"), words("a b c d")) == 1


def analysed(tokens: str, tags: str, lemmas: str) -> Analysis:
    """An Analysis with fixed tags and lemmas, so the test does not depend on the tagger."""
    analysis = Analysis(text=tokens, tokens=words(tokens))
    object.__setattr__(analysis, "pos", words(tags))  # cached_property lives in __dict__
    object.__setattr__(analysis, "lemmas", words(lemmas))
    return analysis


def fixed_pair(p: Analysis, h: Analysis) -> AnalyzedPair:
    return AnalyzedPair(Pair(id="x", text=p.text, hypothesis=h.text), p, h)


def test_pos_per_stems_nouns_and_verbs():
    p = analysed("dogs bark loudly", "NNS VBP RB", "dog bark loudly")
    h = analysed("the dog barked", "DT NN VBD", "the dog bark")
    result = pos_per(fixed_pair(p, h), stem=True)
    got = {k: v for k, v in result.features().items() if v}
    assert got == pytest.approx({
        "pos+:NNS": 1 / 6, "pos+:VBP": 1 / 6, "pos+:NN": 1 / 6, "pos+:VBD": 1 / 6,
        "pos-:RB": 1 / 6, "pos-:DT": 1 / 6,
    })
    assert result.value == pytest.approx(4 / 6)
    assert result.text_partner == (1, 2, None)
    # without stemming nothing matches
    assert pos_per(fixed_pair(p, h), stem=False).value == 0.0


def test_pos_per_adjectives_are_not_stemmed():
    p = analysed("bigger", "JJR", "big")
    h = analysed("big", "JJ", "big")
    assert pos_per(fixed_pair(p, h), stem=True).value == 0.0


def test_pos_per_synonym_matching():
    p = analysed("the car", "DT NN", "the car")
    h = analysed("an automobile", "DT NN", "an automobile")

    def synonym(a: str, b: str, word_class: str) -> bool:
        return {a, b} == {"car", "automobile"} and word_class == "n"

    plain = pos_per(fixed_pair(p, h))
    with_synonyms = pos_per(fixed_pair(p, h), synonym=synonym)
    assert plain.value == 0.0
    assert with_synonyms.value == pytest.approx(0.5)
    assert with_synonyms.synonym_links == {(1, 1)}


def test_pos_per_empty_and_identical():
    empty = analysed("", "", "")
    result = pos_per(fixed_pair(empty, empty))
    assert result.value == 0.0 and sum(result.unmatched) == 0.0
    same = analysed("birds sing", "NNS VBP", "bird sing")
    result = pos_per(fixed_pair(same, same))
    assert result.value == pytest.approx(1.0)
    assert len(result.matched) == len(PENN_TAGS)


# -- BLEU-n (no brevity penalty, both ways) ------------------------------------------------

def test_bleu_n_has_no_brevity_penalty_and_averages_directions():
    p, h = words("a b c d"), words("a b")
    result = bleu_both_ways(p, h, 2)
    # h as candidate: unigrams 2/2, bigrams 1/1 -> 1 (a BP would have cut it)
    assert result.hypothesis_candidate.value == pytest.approx(1.0)
    assert result.hypothesis_candidate.brevity_penalty == 1.0
    # p as candidate: unigrams 2/4, bigrams 1/3 -> sqrt(1/6)
    assert result.text_candidate.value == pytest.approx(math.sqrt(1 / 6))
    assert result.value == pytest.approx((1 + math.sqrt(1 / 6)) / 2)
    assert get_scorer("bleu2").score(analyze_pair(make_pair("a b c d", "a b"))).value == pytest.approx(result.value)


def test_bleu4_zero_when_no_four_gram_matches():
    assert bleu_both_ways(words("a b c"), words("a b c"), 4).value == 0.0
    assert bleu_both_ways(words("a b c"), words("a b c"), 3).value == pytest.approx(1.0)


# -- NIST -----------------------------------------------------------------------------

def test_nist_brevity_penalty():
    assert brevity_penalty(2, 3) == pytest.approx(0.5)
    assert brevity_penalty(3, 3) == 1.0
    assert brevity_penalty(4, 3) == 1.0
    assert brevity_penalty(0, 3) == 0.0
    assert 0.5 < brevity_penalty(5, 6) < 1.0


def test_nist_hand_computed():
    # corpus counts: a 2, b 1, c 1, (a b) 1, (a c) 1; 4 words
    weights = InformationWeights.from_sentences([words("a b"), words("a c")], max_n=2)
    assert weights.info(("a",)) == pytest.approx(1.0)  # log2(4/2)
    assert weights.info(("b",)) == pytest.approx(2.0)  # log2(4/1)
    assert weights.info(("a", "b")) == pytest.approx(1.0)  # log2(2/1)
    p, h = words("a b"), words("a b c")
    two = nist_tokens(p, h, max_n=2, weights=weights)
    # hypothesis as candidate: (1 + 2) / 3 + 1 / 2, no penalty (longer)
    assert two.hypothesis_candidate == pytest.approx(1.5)
    # text as candidate: (1 + 2) / 2 + 1 / 1, penalty 0.5 at ratio 2/3
    assert two.text_candidate == pytest.approx(1.25)
    assert two.value == pytest.approx(1.375)
    one = nist_tokens(p, h, max_n=1, weights=weights)
    assert one.value == pytest.approx((1.0 + 0.75) / 2)


def test_nist_empty_and_identical():
    weights = InformationWeights.from_sentences([words("x y z")])
    assert nist_tokens((), (), weights=weights).value == 0.0
    assert nist_tokens((), words("x"), weights=weights).value == 0.0
    same = nist_tokens(words("x y"), words("x y"), max_n=2, weights=weights)
    assert same.hypothesis_candidate == pytest.approx(same.text_candidate)
    assert same.value > 0


def test_nist_rejects_bad_order():
    with pytest.raises(ValueError, match="max_n"):
        nist_tokens(words("a"), words("a"), max_n=6, weights=InformationWeights.uniform_weights())


# Hand-written pairs for the comparison with nltk.translate (candidate, reference).
AGREEMENT = [
    ("the new bridge over the river opened to traffic on monday morning",
     "on monday morning the new bridge over the river was opened"),
    ("three firms bid for the contract and two of them withdrew",
     "two of the three firms that bid for the contract withdrew their offers"),
    ("rain is expected across the north of the region tonight",
     "tonight rain is expected in the north of the region and the coast"),
    ("the museum will stay closed until the roof is repaired",
     "until the roof is repaired the museum will stay closed to visitors"),
]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_nist_agrees_with_nltk(n):
    from nltk.translate.nist_score import sentence_nist

    for candidate, reference in AGREEMENT:
        c, r = words(candidate), words(reference)
        ours = nist_tokens(r, c, max_n=n, weights=InformationWeights.from_sentences([r], max_n=n))
        assert ours.hypothesis_candidate == pytest.approx(sentence_nist([list(r)], list(c), n), abs=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_bleu_agrees_with_nltk(n):
    from nltk.translate.bleu_score import sentence_bleu

    for candidate, reference in AGREEMENT:
        c, r = words(candidate), words(reference)
        theirs = sentence_bleu([list(r)], list(c), weights=(1 / n,) * n)
        ours = bleu_tokens(c, r, max_n=n, with_matches=False)  # with the brevity penalty, as NLTK
        assert ours.value == pytest.approx(theirs, abs=1e-6)
        # no brevity penalty: NLTK's value divided by its penalty
        bp = math.exp(min(0.0, 1 - len(r) / len(c)))
        nobp = bleu_tokens(c, r, max_n=n, with_matches=False, brevity=False)
        assert nobp.value == pytest.approx(theirs / bp, abs=1e-6)


# -- scorers and features -----------------------------------------------------------------

MT_SCORERS = ["wer", "per", "pos_per", "bleu1", "bleu2", "bleu3", "bleu4",
              "nist1", "nist2", "nist3", "nist4", "nist5"]


@pytest.mark.parametrize("name", MT_SCORERS)
def test_registered_scorers_identical_beats_unrelated(name, uniform_nist):
    scorer = SCORERS[name].factory()
    same = analyze_pair(make_pair("Ships left the harbour at dawn.", "Ships left the harbour at dawn."))
    other = analyze_pair(make_pair("Ships left the harbour at dawn.", "Prices of copper fell sharply."))
    high, low = scorer.score(same), scorer.score(other)
    assert high.value > low.value
    with pytest.raises(dataclasses.FrozenInstanceError):
        high.value = 0.0  # type: ignore[misc]  # frozen


def test_parse_groups():
    assert parse_groups("all") == ALL_GROUPS
    assert parse_groups("per, bleu1") == ("per", "bleu1")
    with pytest.raises(FeatureError, match="unknown feature group 'bleu9'"):
        parse_groups("bleu9")
    with pytest.raises(FeatureError):
        parse_groups(" , ")


def test_pair_features_named_and_consistent(uniform_nist):
    pair = analyze_pair(make_pair("The council approved the plan on Monday.", "On Monday the plan was approved."))
    vector = pair_features(pair, ("wer", "per", "bleu1", "nist2"))
    assert vector.names == ("wer", "per", "bleu1", "nist2")
    values = vector.as_dict()
    assert values["wer"] == pytest.approx(get_scorer("wer").score(pair).rate)
    assert values["per"] == pytest.approx(get_scorer("per").score(pair).rate)
    assert values["bleu1"] == pytest.approx(get_scorer("bleu1").score(pair).value)
    assert len(feature_names(("pos",))) == 2 * len(PENN_TAGS)


# -- classifier -------------------------------------------------------------------------


def test_cross_validate_tiny_fixture(classifier_pairs):
    report = cross_validate(list(classifier_pairs), ("wer", "per", "bleu1"), folds=5)
    assert report.overall.n == 50
    assert report.overall.accuracy >= 0.9
    assert len(report.fold_accuracies) == 5
    low, high = report.interval
    assert low <= np.mean(report.fold_accuracies) <= high
    assert set(report.by_task) == {"A", "B"}


def test_train_test_tiny_fixture_with_ldr_split(classifier_pairs):
    pairs = list(classifier_pairs)
    report = train_test(pairs[:25], pairs[25:], ("per", "bleu2"), ldr_split=True)
    assert report.overall.n == 25
    assert report.overall.accuracy >= 0.9
    assert set(report.by_ldr) == {"low", "high"}
    assert report.by_ldr["low"].n + report.by_ldr["high"].n == 25


def test_classifier_refuses_unusable_data(classifier_pairs):
    unlabelled = [Pair(id=str(i), text="a b", hypothesis="a") for i in range(4)]
    with pytest.raises(ClassifyError, match="no labelled pairs"):
        cross_validate(unlabelled, ("wer",), folds=2)
    one_class = [Pair(id=str(i), text="a b", hypothesis="a", label="entailment") for i in range(4)]
    with pytest.raises(ClassifyError, match="single class"):
        train_test(one_class, one_class, ("wer",))
    with pytest.raises(ClassifyError, match="10 folds"):
        cross_validate(list(classifier_pairs)[:12], ("wer",), folds=10)


def test_binary_scores_and_interval():
    scores = binary_scores([True, True, False, False], [True, False, True, False])
    assert (scores.accuracy, scores.precision, scores.recall, scores.f1) == (0.5, 0.5, 0.5, 0.5)
    low, high = mean_interval([0.7, 0.8, 0.9])
    assert low < 0.8 < high
    assert mean_interval([0.5]) == (0.5, 0.5)


def test_corpus_statistics():
    pairs = [Pair(id="1", text="a b c d", hypothesis="a b", label="entailment", task="X"),
             Pair(id="2", text="a b", hypothesis="a b", label="non-entailment", task="Y")]
    rows = {r.group: r for r in corpus_statistics(pairs)}
    assert rows["all"].mean_text_length == 3.0
    assert rows["X"].mean_ldr == pytest.approx(0.5)
    assert rows["X"].mean_edit_distance == 2.0
    assert rows["Y"].mean_edit_distance == 0.0
    assert rows["all"].positive_share == 0.5
    assert length_difference_ratio(0, 0) == 0.0


def test_cli_classify_and_stats(tmp_path, capsys, classifier_pairs):
    from explorer.cli import main

    data = tmp_path / "pairs.jsonl"
    data.write_text("\n".join(json.dumps({"id": p.id, "text": p.text, "hypothesis": p.hypothesis,
                                          "label": p.label, "task": p.task}) for p in classifier_pairs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["classify", str(data), "--features", "wer,bleu1", "--each", "--folds", "5", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload["results"]) == {"wer", "bleu1", "wer+bleu1"}
    assert payload["results"]["wer+bleu1"]["overall"]["accuracy"] >= 0.9
    assert main(["classify", str(data), "--features", "nope", "--folds", "5"]) == 2
    assert "unknown feature group" in capsys.readouterr().err
    assert main(["classify", str(data)]) == 2
    assert "--folds" in capsys.readouterr().err
    assert main(["corpus-stats", str(data)]) == 0
    assert "LDR" in capsys.readouterr().out


# -- figures (no Streamlit) ------------------------------------------------------------------

def test_figures_build_without_streamlit():
    from components.figures.mtmetrics import bag_matching, edit_sequence, metric_profile, pos_bars

    p = analysed("dogs bark loudly", "NNS VBP RB", "dog bark loudly")
    h = analysed("the dog barked", "DT NN VBD", "the dog bark")
    wer = wer_tokens(p.lower, h.lower)
    figure = edit_sequence(wer, p.tokens, h.tokens)
    assert [trace.name for trace in figure.data] == ["SUB"]  # dogs/the, bark/dog, loudly/barked
    assert sum(len(t.x) for t in figure.data) == 2 * len(wer.alignment.edits)
    assert f"distance {wer.distance}" in figure.layout.title.text

    pos = pos_per(fixed_pair(p, h))
    bars = pos_bars(pos)
    matched, unmatched = bars.data
    assert list(matched.x) == ["DT", "NN", "NNS", "RB", "VBD", "VBP"]  # tags present, PENN_TAGS order
    assert sum(matched.y) == pytest.approx(pos.value)
    assert sum(unmatched.y) == pytest.approx(-sum(pos.unmatched))

    words_figure = bag_matching(pos, p.tokens, h.tokens)
    assert list(words_figure.data[0].textfont.color) == ["#2e7d32", "#2e7d32", "#c62828"]

    profile = metric_profile({"wer": 0.4, "bleu1": 0.6}, {
        "wer": {"positive": {"q05": 0.1, "q25": 0.2, "q50": 0.3, "q75": 0.4, "q95": 0.6},
                "negative": [0.5, 0.6, 0.7]},
    })
    boxes = [t for t in profile.data if t.type == "box"]
    markers = [t for t in profile.data if t.type == "scatter"]
    assert len(boxes) == 2 and len(markers) == 2
    assert [m.y[0] for m in markers] == [0.4, 0.6]
    with pytest.raises(ValueError):
        metric_profile({})
    with pytest.raises(ValueError, match="lengths"):
        edit_sequence(wer, p.tokens[:1], h.tokens)


def test_registered_scorers_join_as_features(uniform_nist):
    assert parse_groups("per,scorer:mbleu") == ("per", "scorer:mbleu")
    with pytest.raises(FeatureError, match="unknown scorer"):
        parse_groups("scorer:nope")
    pair = analyze_pair(make_pair("The council approved the plan.", "The plan was approved."))
    vector = pair_features(pair, ("scorer:mbleu", "per"))
    assert vector.names == ("per", "scorer:mbleu")
    assert vector.as_dict()["scorer:mbleu"] == pytest.approx(get_scorer("mbleu").score(pair).value)


def test_feature_bleu_matches_bleu_both_ways(uniform_nist):
    pair = analyze_pair(make_pair("A storm closed the coastal road for two days.",
                                  "The coastal road was closed for two days by a storm."))
    values = pair_features(pair, ("bleu1", "bleu2", "bleu3", "bleu4")).as_dict()
    for n in range(1, 5):
        expected = bleu_both_ways(pair.text.lower, pair.hypothesis.lower, n).value
        assert values[f"bleu{n}"] == pytest.approx(expected)
    assert values["bleu3"] > 0


def test_bit_parallel_levenshtein_matches_the_table():
    import random

    rng = random.Random(7)
    for _ in range(500):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 15))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 15))]
        table = sum(e.kind is not EditKind.EQ for e in edit_script(a, b))
        assert levenshtein(a, b) == table == levenshtein(b, a)
    long_a, long_b = [str(i % 7) for i in range(90)], [str(i % 5) for i in range(70)]
    assert levenshtein(long_a, long_b) == sum(e.kind is not EditKind.EQ for e in edit_script(long_a, long_b))


def test_comparison_rows_put_the_paper_beside_ours(classifier_pairs):
    from explorer.mtclassify import PAPER_MSRP_ACCURACY, comparison_rows

    pairs = list(classifier_pairs)
    k_fold = cross_validate(pairs, ("per",), folds=5)
    split = train_test(pairs[:25], pairs[25:], ("bleu1",))
    rows = comparison_rows([("per", k_fold), ("bleu1", split), ("wer", split)])
    assert [r["paper accuracy % (MSRP)"] for r in rows] == [PAPER_MSRP_ACCURACY["per"], PAPER_MSRP_ACCURACY["bleu1"], None]
    assert rows[0]["accuracy %"] == pytest.approx(100 * k_fold.overall.accuracy, abs=0.01)
    assert rows[0]["95% interval"] and not rows[1]["95% interval"]


def test_cli_ablation_and_per_task(tmp_path, capsys, classifier_pairs):
    from explorer.cli import main

    data = tmp_path / "pairs.jsonl"
    data.write_text("\n".join(json.dumps({"id": p.id, "text": p.text, "hypothesis": p.hypothesis,
                                          "label": p.label, "task": p.task}) for p in classifier_pairs))
    assert main(["classify", str(data), "--features", "wer,per", "--ablate", "--per-task", "--folds", "5", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert set(results) == {"without wer", "without per", "wer+per", "without wer [A only]", "without wer [B only]",
                            "without per [A only]", "without per [B only]", "wer+per [A only]", "wer+per [B only]"}
    assert results["without wer"]["n_features"] == 1
    assert results["wer+per [A only]"]["overall"]["n"] == 25


def test_score_json_carries_the_breakdowns(capsys, uniform_nist):
    from explorer.cli import main

    assert main(["score", "--text", "Ships left at dawn.", "--hypothesis", "At dawn ships left.",
                 "--scorer", "wer,per,pos_per,bleu2,nist3", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)["scores"]
    # four edits; of the scripts that long, the JSON carries the one the Pair page draws
    # (here "ships left" and the full stop kept, "at dawn" deleted and inserted)
    script = edit_script(words("ships left at dawn ."), words("at dawn ships left ."))
    assert scores["wer"]["distance"] == 4 == sum(e.kind is not EditKind.EQ for e in script)
    assert scores["wer"]["alignment"]["sure"] == sorted([list(link) for e in script for link in e.links()])
    assert scores["nist3"]["max_n"] == 3 and len(scores["nist3"]["orders"]) == 3
    assert scores["pos_per"]["synonym_links"] == []



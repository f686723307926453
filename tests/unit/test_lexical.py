"""Lexical similarity on hand-picked word pairs, component by component."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from explorer import cache, resources
from explorer.lexical import (
    COMPONENTS,
    OPT_IN,
    LexicalConfig,
    LexicalSimilarity,
    compute_information_content,
    levenshtein,
    levenshtein_similarity,
    name_similarity,
    number_value,
    phrase_date,
    phrase_number,
    wordnet_class,
)
from explorer.preprocess import analyze

needs_wordnet = pytest.mark.skipif(not resources.is_available("wordnet"), reason="shared WordNet not present")
needs_ppdb = pytest.mark.skipif(not resources.is_available("mwa_ppdb"), reason="shared mwa_ppdb not present")


@pytest.fixture(scope="module")
def no_ic() -> LexicalSimilarity:
    # The Brown information content takes ~25 s to build; tests of the other
    # components leave it out, and the IC test below uses a tiny table.
    return LexicalSimilarity(LexicalConfig.without("ic_measure"))


# -- configuration ---------------------------------------------------------------------

def test_without_turns_off_only_the_named_components() -> None:
    config = LexicalConfig.without("wordnet_synonyms", "ppdb")
    assert not config.wordnet_synonyms and not config.ppdb
    assert set(config.enabled) == set(COMPONENTS) - {"wordnet_synonyms", "ppdb", *OPT_IN}


def test_only_and_disable() -> None:
    assert LexicalConfig.only("levenshtein").enabled == ("levenshtein",)
    assert "names" not in LexicalConfig().disable("names").enabled


def test_unknown_component_is_refused_with_the_known_names() -> None:
    with pytest.raises(ValueError, match="wordnet_synonyms"):
        LexicalConfig.without("wordnet")


# -- string, number, date and name helpers -----------------------------------------------

@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("kitten", "sitting", 3), ("", "abc", 3), ("flaw", "lawn", 2), ("same", "same", 0)],
    ids=["classic", "empty", "shift", "equal"],
)
def test_levenshtein(a: str, b: str, distance: int) -> None:
    assert levenshtein(a, b) == distance == levenshtein(b, a)


def test_levenshtein_similarity_is_normalised_by_the_longer_word() -> None:
    assert levenshtein_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert levenshtein_similarity("", "") == 1.0


@pytest.mark.parametrize(
    ("token", "value"),
    [("5", 5), ("1,000", 1000), ("2.5", 2.5), ("five", 5), ("Twelve", 12), ("forty-two", 42),
     ("3rd", 3), ("third", 3), ("cat", None), ("1,00", None)],
)
def test_number_value(token: str, value: float | None) -> None:
    assert number_value(token) == value


@pytest.mark.parametrize(
    ("tokens", "value"),
    [(["2.5", "million"], 2_500_000), (["two", "hundred", "thousand"], 200_000),
     (["twenty", "five"], 25), (["3", "billion"], 3e9), (["five", "cats"], None)],
)
def test_phrase_number(tokens: list[str], value: float | None) -> None:
    result = phrase_number(tokens)
    assert result == value if value is None else math.isclose(result or 0, value)


@pytest.mark.parametrize(
    ("tokens", "date"),
    [(["March", "3", ",", "1999"], (1999, 3, 3)), (["3", "Mar.", "1999"], (1999, 3, 3)),
     (["3/3/99"], (1999, 3, 3)), (["June", "2004"], (2004, 6, None)), (["June", "cats"], None),
     (["42"], None)],
)
def test_phrase_date(tokens: list[str], date: tuple[int | None, ...] | None) -> None:
    assert phrase_date(tokens) == date


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (["Ringo", "Starr"], ["Starr"], 0.9),
        (["Acme", "Corp."], ["Acme"], 0.9),
        (["Ringo", "Starr"], ["Ringo"], 0.8),
        (["World", "Health", "Organization"], ["WHO"], 0.9),
        (["Mr.", "Starr"], ["Starr"], 0.9),
        (["Ringo", "Starr"], ["Paul", "McCartney"], 0.0),
        (["the", "drummer"], ["drummer"], 0.0),
    ],
    ids=["surname", "company-suffix", "first-name", "acronym", "title", "different", "not-a-name"],
)
def test_name_similarity(a: list[str], b: list[str], expected: float) -> None:
    assert name_similarity(a, b) == pytest.approx(expected)
    assert name_similarity(b, a) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("tag", "cls"), [("NNS", "n"), ("NNP", "n"), ("VBD", "v"), ("JJR", "a"), ("RB", "r"), ("IN", ""), ("DT", ""), ("s", "a"), (None, None)]
)
def test_wordnet_class(tag: str | None, cls: str | None) -> None:
    assert wordnet_class(tag) == cls


# -- word similarity by component --------------------------------------------------------

@needs_wordnet
@pytest.mark.parametrize(
    ("a", "a_pos", "b", "b_pos", "component", "low", "high"),
    [
        ("car", "NN", "automobile", "NN", "wordnet_synonyms", 0.9, 0.9),
        ("dog", "NN", "canine", "NN", "hypernyms", 0.85, 0.85),  # one step up
        ("dog", "NN", "carnivore", "NN", "hypernyms", 0.7, 0.7),  # two steps
        ("invade", "VB", "invasion", "NN", "derivation", 0.8, 0.8),
        ("seven", "CD", "7", "CD", "numbers", 1.0, 1.0),
        ("sept.", "NNP", "september", "NNP", "numbers", 1.0, 1.0),
        ("colour", "NN", "color", "NN", "levenshtein", 0.8, 0.9),
    ],
    ids=["synonym", "hypernym-1", "hypernym-2", "derivation", "number-word", "month", "spelling"],
)
def test_component_scores(
    no_ic: LexicalSimilarity, a: str, a_pos: str, b: str, b_pos: str, component: str, low: float, high: float
) -> None:
    breakdown = no_ic.breakdown(a, a_pos, b, b_pos)
    assert low - 1e-9 <= breakdown[component] <= high + 1e-9
    assert no_ic.word(a, a_pos, b, b_pos) == pytest.approx(max(breakdown.values()))
    assert no_ic.word(b, b_pos, a, a_pos) == pytest.approx(no_ic.word(a, a_pos, b, b_pos))


@needs_wordnet
def test_switching_a_component_off_removes_its_evidence() -> None:
    full = LexicalSimilarity(LexicalConfig.without("ic_measure", "ppdb"))
    ablated = LexicalSimilarity(LexicalConfig.without("ic_measure", "ppdb", "wordnet_synonyms"))
    assert full.word("car", "NN", "automobile", "NN") == pytest.approx(0.9)
    assert ablated.word("car", "NN", "automobile", "NN") < 0.5


def test_identity_scores_one_with_everything_off() -> None:
    nothing = LexicalSimilarity(LexicalConfig.only())
    assert nothing.word("table", "NN", "table", "NN") == 1.0
    assert nothing.word("table", "NN", "chair", "NN") == 0.0


@needs_wordnet
def test_function_words_get_no_wordnet_senses(no_ic: LexicalSimilarity) -> None:
    # "in" has noun senses (inch, Indiana); as a preposition it must not match them.
    assert no_ic.breakdown("in", "IN", "inch", "NN").get("wordnet_synonyms", 0.0) == 0.0


@needs_wordnet
def test_unrelated_words_stay_low(no_ic: LexicalSimilarity) -> None:
    assert no_ic.word("banana", "NN", "democracy", "NN") < 0.3


@needs_ppdb
def test_ppdb_pair(no_ic: LexicalSimilarity) -> None:
    assert no_ic.breakdown("buy", "VB", "purchase", "VB")["ppdb"] == pytest.approx(0.85)


@needs_wordnet
@pytest.mark.parametrize(
    ("a", "a_pos", "b", "b_pos", "expected"),
    [("hot", "JJ", "cold", "JJ", True), ("win", "VB", "lose", "VB", True),
     ("hot", "JJ", "warm", "JJ", False), ("big", "JJ", "table", "NN", False)],
)
def test_antonyms_are_a_separate_feature(
    no_ic: LexicalSimilarity, a: str, a_pos: str, b: str, b_pos: str, expected: bool
) -> None:
    assert no_ic.antonym(a, a_pos, b, b_pos) is expected
    assert LexicalSimilarity(LexicalConfig.without("antonyms", "ic_measure")).antonym(a, a_pos, b, b_pos) is False
    if expected:
        assert no_ic.word(a, a_pos, b, b_pos) < 0.5


@needs_wordnet
def test_lin_matches_nltk_on_a_tiny_information_content_table() -> None:
    from nltk.corpus import wordnet as wn

    words = ["dog", "cat", "animal", "animal", "car", "idea", "wolf"]
    ic = compute_information_content(words, smoothing=0.0)

    class Corpus:
        @staticmethod
        def words() -> list[str]:
            return words

    nltk_ic = wn.ic(Corpus(), False, 0.0)
    lexical = LexicalSimilarity(LexicalConfig.only("ic_measure"), ic=ic)
    dog, cat = wn.synset("dog.n.01"), wn.synset("cat.n.01")
    expected = dog.lin_similarity(cat, nltk_ic)
    assert ic["n"][0] == pytest.approx(nltk_ic["n"][0])
    assert lexical._lin_synsets(dog, cat) == pytest.approx(expected)
    score = lexical.breakdown("dog", "NN", "cat", "NN")["ic_measure"]
    assert 0.0 < score <= 0.8


# -- phrases and matrices --------------------------------------------------------------------

@needs_wordnet
@pytest.mark.parametrize(
    ("a", "b", "low"),
    [
        (["Ringo", "Starr"], ["Starr"], 0.9),
        (["2.5", "million"], ["2,500,000"], 1.0),
        (["March", "3", ",", "1999"], ["3/3/99"], 1.0),
        (["United", "States"], ["US"], 0.9),
        (["the", "large", "car"], ["big", "automobile"], 0.85),
    ],
    ids=["name", "number", "date", "multiword-lemma", "compositional"],
)
def test_phrase(no_ic: LexicalSimilarity, a: list[str], b: list[str], low: float) -> None:
    assert no_ic.phrase(a, b) >= low - 1e-9
    assert no_ic.phrase(a, b) <= 1.0


@needs_wordnet
def test_unrelated_phrases_stay_low(no_ic: LexicalSimilarity) -> None:
    assert no_ic.phrase(["green", "banana"], ["tax", "reform"]) < 0.4


@needs_wordnet
def test_matrix_agrees_with_word(no_ic: LexicalSimilarity) -> None:
    text = analyze("The car was bought by seven lawyers in Paris.")
    hypothesis = analyze("Lawyers purchased an automobile.")
    matrix = no_ic.matrix(text, hypothesis)
    assert matrix.shape == (len(text), len(hypothesis))
    assert np.all((matrix >= 0) & (matrix <= 1))
    for i in range(len(text)):
        for j in range(len(hypothesis)):
            expected = no_ic.word(text.lemmas[i], text.pos[i], hypothesis.lemmas[j], hypothesis.pos[j])
            assert matrix[i, j] == pytest.approx(expected)
    assert matrix[text.lower.index("car"), hypothesis.lower.index("automobile")] >= 0.9


def test_matrix_of_empty_sides() -> None:
    sim = LexicalSimilarity(LexicalConfig.only("levenshtein"))
    assert sim.matrix(analyze(""), analyze("word")).shape == (0, 1)


# -- the on-disk cache -----------------------------------------------------------------------

def test_cache_round_trip_outside_the_repository(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "c"))
    calls: list[int] = []

    def compute() -> dict[str, list[int]]:
        calls.append(1)
        return {"x": [1, 2]}

    assert cache.cached_json("t.json", compute) == {"x": [1, 2]}
    assert cache.cached_json("t.json", compute) == {"x": [1, 2]}
    assert len(calls) == 1
    (tmp_path / "c" / "t.json").write_text("{not json")
    assert cache.cached_json("t.json", compute) == {"x": [1, 2]}
    assert len(calls) == 2


def test_default_cache_dir_is_the_user_cache(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("EXPLORER_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/tmp/xdg-test")
    assert str(cache.cache_dir()) == "/tmp/xdg-test/entailment-explorer"


def test_missing_ic_table_defaults_are_safe() -> None:
    # An IC table without an entry for a synset gives infinite IC, which Lin treats as 0.
    sim = LexicalSimilarity(LexicalConfig.only("ic_measure"), ic={"n": defaultdict(float, {0: 1.0}), "v": {0: 1.0}})
    if resources.is_available("wordnet"):
        assert sim.breakdown("dog", "NN", "cat", "NN")["ic_measure"] == 0.0


def test_matrix_matches_identical_tokens_whatever_their_tags() -> None:
    from explorer.preprocess import Analysis

    sim = LexicalSimilarity(LexicalConfig.only())
    text = Analysis("they sat", ("they", "sat"))
    hypothesis = Analysis("sat", ("sat",))
    # Force a tagging disagreement: the same word with two different lemmas.
    object.__setattr__(text, "lemmas", ("they", "sit"))
    object.__setattr__(text, "pos", ("PRP", "VBD"))
    object.__setattr__(hypothesis, "lemmas", ("sat",))
    object.__setattr__(hypothesis, "pos", ("NN",))
    assert sim.matrix(text, hypothesis).tolist() == [[0.0], [1.0]]


def _dp_levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def test_bit_vector_levenshtein_agrees_with_the_textbook_dp() -> None:
    import random

    rng = random.Random(7)
    for _ in range(3000):
        a = "".join(rng.choice("abc") for _ in range(rng.randrange(0, 9)))
        b = "".join(rng.choice("abc") for _ in range(rng.randrange(0, 9)))
        assert levenshtein(a, b) == _dp_levenshtein(a, b), (a, b)
    long_a, long_b = "x" * 70 + "abc", "x" * 69 + "abd"  # longer than a machine word
    assert levenshtein(long_a, long_b) == _dp_levenshtein(long_a, long_b)


def test_missing_resources_turn_their_components_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer import lexical

    monkeypatch.setattr(resources, "is_available", lambda nltk_id: nltk_id not in ("wordnet", "mwa_ppdb"))
    assert lexical.unavailable_components() == {
        "wordnet_synonyms": "wordnet", "hypernyms": "wordnet", "derivation": "wordnet",
        "ic_measure": "wordnet", "antonyms": "wordnet", "ppdb": "mwa_ppdb",
    }
    sim = LexicalSimilarity()
    assert set(sim.effective.enabled) == {"levenshtein", "names", "numbers"}
    assert sim.word("car", "NN", "automobile", "NN") < 0.5  # no synonymy without WordNet
    assert sim.word("7", "CD", "seven", "CD") == 1.0
    assert sim.antonym("hot", "JJ", "cold", "JJ") is False


@needs_wordnet
@pytest.mark.parametrize(("a", "a_pos", "b", "b_pos"), [("be", "VBZ", "cost", "VB"), ("have", "VBP", "own", "VB"), ("'s", "POS", "of", "IN")])
def test_light_words_get_no_semantic_matches(no_ic: LexicalSimilarity, a: str, a_pos: str, b: str, b_pos: str) -> None:
    breakdown = no_ic.breakdown(a, a_pos, b, b_pos)
    assert not any(breakdown.get(c, 0.0) for c in ("wordnet_synonyms", "hypernyms", "ppdb", "derivation"))
    assert no_ic.word(a, a_pos, b, b_pos) < 0.5


@needs_wordnet
@pytest.mark.parametrize(
    ("a", "b", "steps"),
    [("dog", "canine", 1), ("canine", "dog", -1), ("dog", "carnivore", 2), ("dog", "democracy", 0), ("dog", "dog", 0)],
    ids=["up-1", "down-1", "up-2", "unrelated", "same"],
)
def test_hypernym_steps_are_directed(no_ic: LexicalSimilarity, a: str, b: str, steps: int) -> None:
    assert no_ic.hypernym_steps(a, "NN", b, "NN") == steps

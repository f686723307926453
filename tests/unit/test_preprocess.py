import pytest

from explorer import resources
from explorer.preprocess import (
    MAX_CHARS,
    InputError,
    analyze,
    clean_text,
    make_pair,
    split_sentences,
    tokenize,
)


@pytest.mark.parametrize(
    "text, tokens",
    [
        pytest.param("They didn't stop.", ("They", "did", "n't", "stop", "."), id="contraction"),
        pytest.param("Mr. Lee arrived. He sat.", ("Mr.", "Lee", "arrived", ".", "He", "sat", "."), id="abbreviation"),
        pytest.param("George W. Bush spoke.", ("George", "W.", "Bush", "spoke", "."), id="initial"),
        pytest.param("It cost $3.50, not 4.", ("It", "cost", "$", "3.50", ",", "not", "4", "."), id="money"),
        pytest.param("Zoë's café\u00a0opened", ("Zoë", "'s", "café", "opened"), id="unicode"),
    ],
)
def test_tokenize(text, tokens):
    assert tokenize(text) == tokens


def test_clean_text_normalises():
    assert clean_text("  a\u0301b\x00c \n d ") == "áb c d"


def test_sentence_split_keeps_abbreviations():
    assert split_sentences("Dr. No left. Gen. X came! Then rain.") == ["Dr. No left.", "Gen. X came!", "Then rain."]


def test_analysis_is_lazy_and_consistent():
    a = analyze("Two geese were flying south.")
    assert a.lower[0] == "two"
    assert len(a.pos) == len(a.tokens) == len(a.lemmas) == len(a.stop)
    if resources.is_available("wordnet") and resources.is_available("averaged_perceptron_tagger_eng"):
        assert a.lemmas[1] == "goose" and a.lemmas[3] == "fly"
    assert a.stop[2] and not a.stop[1]


def test_given_tokens_are_kept():
    a = analyze("New York-based", ("New", "York-based"))
    assert a.tokens == ("New", "York-based")


@pytest.mark.parametrize(
    "text, hypothesis, message",
    [
        pytest.param("", "x", "text is empty", id="empty-text"),
        pytest.param("x", " \t\n", "hypothesis is empty", id="blank-hypothesis"),
        pytest.param("x" * (MAX_CHARS + 1), "x", "limit is", id="huge"),
    ],
)
def test_make_pair_rejects_bad_input(text, hypothesis, message):
    with pytest.raises(InputError, match=message):
        make_pair(text, hypothesis)


def test_tokenize_rejects_huge_text():
    with pytest.raises(InputError, match="longer than"):
        tokenize("word " * MAX_CHARS)


def test_clean_text_fast_paths_give_the_general_result() -> None:
    import random
    import unicodedata

    def general(text: str) -> str:  # the rule in full, without the fast paths
        text = unicodedata.normalize("NFC", text)
        text = "".join(ch if not unicodedata.category(ch).startswith("C") or ch in "\t\n" else " " for ch in text)
        return " ".join(text.split())

    alphabet = list(" ab\t\n\x00\x1f\x7f\x85\xa0é\u0301e\u2028\u3000\u200b\ufeffΩ\u1680\x1c") + ["  "]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert clean_text(text) == general(text), repr(text)

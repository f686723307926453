import pytest

from explorer.pairs import CONTRADICTION, ENTAILMENT, NEUTRAL, NON_ENTAILMENT, LabelError, Pair, normalize_label


@pytest.mark.parametrize(
    "raw, label",
    [("YES", ENTAILMENT), ("TRUE", ENTAILMENT), (" 1 ", ENTAILMENT), ("NO", NON_ENTAILMENT),
     ("false", NON_ENTAILMENT), ("UNKNOWN", NEUTRAL), ("Neutral", NEUTRAL), ("CONTRADICTION", CONTRADICTION)],
)
def test_normalize_label(raw, label):
    assert normalize_label(raw) == label


def test_unknown_label():
    with pytest.raises(LabelError, match="unknown label 'maybe'"):
        normalize_label("maybe")
    with pytest.raises(LabelError):
        Pair("1", "t", "h", label="YES")


def test_entails():
    assert Pair("1", "t", "h", label=ENTAILMENT).entails is True
    assert Pair("1", "t", "h", label=NEUTRAL).entails is False
    assert Pair("1", "t", "h").entails is None

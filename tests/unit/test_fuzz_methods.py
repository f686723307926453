"""Property test: every registered scorer and aligner, on random short pairs (odd
Unicode, punctuation only, very long tokens, near-empty sides), returns a result or
raises one of the project's own errors -- never a foreign exception.

Bounded: a fixed number of examples, each run through every method (about 20-30 s).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.aligners import ALIGNERS, get_aligner
from explorer.errors import ExplorerError
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer

# Pieces a sentence is built from: ordinary words, punctuation runs, very long tokens,
# digits in other scripts, combining marks, right-to-left and zero-width characters,
# symbols outside the Basic Multilingual Plane and control characters.
PIECES = st.one_of(
    st.sampled_from(["the", "cat", "sat", "Mr.", "U.S.", "isn't", "e-mail", "3.5", "1,000,000%"]),
    st.sampled_from(["...", "!!!", "?!", "--", "(", ")", '"', "''", "``", "#", "$", "@@"]),
    st.sampled_from(["a" * 300, "x" * 2000, "ab" * 150 + "!"]),
    st.sampled_from(["٣٤", "१२", "ｘｙ", "é", "e\u0301", "\u200b", "\u200f", "שלום", "مرحبا", "😀", "𝔘𝔫𝔦", "\x00", "\x1b[0m"]),
    st.text(min_size=1, max_size=12),
)
SIDE = st.lists(PIECES, min_size=0, max_size=8).map(" ".join)
TOKENS = st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=8).map(tuple)


def _own_error(err: BaseException) -> bool:
    """One of the project's errors (:class:`explorer.errors.ExplorerError`)."""
    return isinstance(err, ExplorerError)


def _run_every_method(pair: Pair) -> None:
    try:
        analysed = analyze_pair(pair)
    except Exception as err:  # noqa: BLE001 - the property is about which exceptions
        assert _own_error(err), f"analysis raised {type(err).__name__}: {err}"
        return
    calls = [(f"scorer {name}", lambda n=name: get_scorer(n).score(analysed)) for name in SCORERS]
    calls += [(f"aligner {name}", lambda n=name: get_aligner(n).align(analysed)) for name in ALIGNERS]
    for label, call in calls:
        try:
            result = call()
        except Exception as err:  # noqa: BLE001
            assert _own_error(err), f"{label} raised {type(err).__name__}: {err}"
            continue
        value = getattr(result, "value", getattr(result, "score", None))
        assert isinstance(value, float) and not math.isnan(value), f"{label} gave {value!r}"


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=SIDE, hypothesis=SIDE)
def test_every_method_on_typed_pairs(text: str, hypothesis: str) -> None:
    try:
        pair = make_pair(text, hypothesis)
    except Exception as err:  # noqa: BLE001
        assert _own_error(err), f"make_pair raised {type(err).__name__}: {err}"
        return
    _run_every_method(pair)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=TOKENS, hypothesis=TOKENS)
def test_every_method_on_dataset_tokens(text: tuple[str, ...], hypothesis: tuple[str, ...]) -> None:
    # Datasets may give their own tokens, kept as given: empty strings, spaces, controls.
    _run_every_method(Pair("fuzz", " ".join(text), " ".join(hypothesis), text_tokens=text,
                           hypothesis_tokens=hypothesis))


@pytest.mark.parametrize("name", sorted(SCORERS))
def test_scorers_give_a_clean_error_for_a_side_without_tokens(name: str) -> None:
    pair = Pair("empty", "", "a b", text_tokens=(), hypothesis_tokens=("a", "b"))
    try:
        result = get_scorer(name).score(analyze_pair(pair))
    except Exception as err:  # noqa: BLE001
        assert _own_error(err), f"{type(err).__name__}: {err}"
    else:
        assert not math.isnan(result.value)

"""The combined classifier's cost: derived from the scorers it runs, checked before any of
them starts, and the worker pool's CPU estimate theirs added up."""

from __future__ import annotations

import pytest

from explorer import combined
from explorer.limits import LimitError, Limits, check, cost_model
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer


def _pair(p_len: int, h_len: int, *, distinct: bool = True):  # type: ignore[no-untyped-def]
    word = (lambda i: f"w{i}") if distinct else (lambda i: "w")
    return analyze_pair(make_pair(" ".join(word(i) for i in range(p_len)), " ".join(word(i) for i in range(h_len))))


def _no_work(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every component scorer the combined classifier would start."""
    started: list[str] = []

    def refuse(pair: object, names: object = ()) -> None:
        started.append("features")
        raise AssertionError("the combined classifier started work on a pair past its limits")

    monkeypatch.setattr(combined, "pair_features", refuse)
    return started


def test_the_row_names_what_the_shipped_model_runs() -> None:
    assert SCORERS["combined"].runs == combined.scorers_run(combined.default_model().features)
    assert set(SCORERS["combined"].runs) == {"bow", "nist3", "manli", "bleu1", "embed"}


@pytest.mark.parametrize(("features", "runs"), [
    (("scorer:bleu", "scorer:wer"), ("bleu", "wer")),
    (("len:ldr",), ("manli",)),
    (("scorer:itg", "scorer:bow", "lex:negation_mismatch"), ("manli", "itg", "bow")),
    (("itg:inversions", "scorer:manli"), ("manli", "itg")),
])
def test_the_scorers_a_feature_set_runs(features: tuple[str, ...], runs: tuple[str, ...]) -> None:
    """MANLI runs for every feature that is not a scorer's value (the alignment features
    decode it first), the ITG for its value or inversions, and every other scorer named."""
    assert combined.scorers_run(features) == runs


def test_a_pair_past_a_components_limit_is_refused_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """400 x 300 tokens is past MANLI's token-pair limit (100,000): the combined
    classifier refuses it in its own name, naming the limit, before any scorer starts."""
    started = _no_work(monkeypatch)
    with pytest.raises(LimitError) as refused:
        get_scorer("combined").score(_pair(400, 300))
    assert started == []
    assert refused.value.method == "combined" and refused.value.limit == "max_token_pairs"
    assert "max_token_pairs" in str(refused.value) and "--max-token-pairs" in str(refused.value)


@pytest.mark.parametrize(("limits", "limit"), [(Limits(max_tokens=25), "max_tokens"),
                                                (Limits(max_word_pairs=500), "max_word_pairs")])
def test_limits_given_to_the_combined_scorer_bound_it(monkeypatch: pytest.MonkeyPatch, limits: Limits,
                                                      limit: str) -> None:
    """30 x 20 distinct words: past 25 tokens a side, and 600 distinct word pairs for
    the lexical similarity bag-of-words and MANLI look up."""
    started = _no_work(monkeypatch)
    with pytest.raises(LimitError) as refused:
        get_scorer("combined").score(_pair(30, 20), limits=limits)  # type: ignore[call-arg]
    assert started == [] and refused.value.limit == limit


_LOOSE = {"max_tokens": 10**6, "max_token_pairs": 10**12, "max_word_pairs": 10**12, "max_candidates": 10**15,
          "max_memory_mb": 10**9}
#: The defaults, then each limit alone binding at a few values.
_LIMITS = [Limits()] + [Limits(**{**_LOOSE, name: value}) for name, values in (
    ("max_tokens", (300, 1_000)), ("max_token_pairs", (5_000, 60_000)), ("max_word_pairs", (800, 20_000)),
    ("max_candidates", (20_000, 400_000)), ("max_memory_mb", (2, 20, 120))) for value in values]


@pytest.mark.parametrize("limits", _LIMITS, ids=lambda lim: ",".join(
    f"{k}={v}" for k, v in vars(lim).items() if v != _LOOSE[k]) or "loose")
def test_it_refuses_exactly_the_pairs_one_of_its_scorers_refuses(limits: Limits) -> None:
    """The derived cost model changes no decision: a pair passes it exactly when it passes
    the cost model of each scorer the combined classifier runs (so every pair within the
    limits scores as before), and a refusal names a limit one of them would have named."""
    lexical = {"bow", "manli", "itg_lex", "pfsm", "ppda"}  # their own checks count distinct word pairs

    def refuses(method: str, p_len: int, h_len: int, words: tuple[int, int] | None) -> str | None:
        try:
            check(method, p_len, h_len, limits=limits, words=words)
        except LimitError as err:
            return err.limit
        return None

    own = cost_model("combined")
    seen = set()
    for p_len in (1, 8, 30, 90, 200, 400, 900, 2_100):
        for h_len in (1, 5, 25, 60, 150, 320):
            for words in ((p_len, h_len), (min(p_len, 3), min(h_len, 2))):
                parts = [refuses(name, p_len, h_len, words if name in lexical else None)
                         for name in SCORERS["combined"].runs]
                mine = refuses("combined", p_len, h_len, words if own.word_pairs else None)
                assert (mine is None) == all(part is None for part in parts), (p_len, h_len, words, parts, mine)
                assert mine is None or mine in parts
                seen.add(mine is None)
    assert seen == {True, False}, "the sizes should reach both sides of the limits"


def test_the_pools_estimate_is_the_sum_of_what_it_runs() -> None:
    from runtime.pool.cost import seconds

    runs = SCORERS["combined"].runs
    assert seconds("combined") == pytest.approx((sum(seconds(n)[0] for n in runs), sum(seconds(n)[1] for n in runs)))


def test_it_needs_what_the_scorers_it_runs_need() -> None:
    row = SCORERS["combined"]
    needed = set().union(*(SCORERS[name].capabilities.needs for name in row.runs))
    assert needed <= row.capabilities.needs, needed - row.capabilities.needs
    assert not row.capabilities.interactive

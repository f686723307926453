"""Cost bounds (explorer/limits.py): every method refuses a pair past its limits before
it does any work, with the project's error naming the limit; within the limits, long
pairs score (the edit lattices in log space) and MANLI's features stay linear."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import limits
from explorer.aligners import ALIGNERS, get_aligner
from explorer.aligners.manli import context
from explorer.aligners.manli.evidence import SurfaceSimilarity
from explorer.aligners.manli.features import FeatureConfig, extract
from explorer.aligners.manli.names import ANCHOR_WINDOW
from explorer.edit_distance import automaton as fsa
from explorer.edit_distance import states
from explorer.edit_distance.states import build_automaton
from explorer.limits import LimitError, Limits, check, estimate, manli_candidates
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer

from .test_edit_distance import kernel_args, random_tables

# -- the limits themselves ------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), True, "5"])
def test_limits_must_be_positive_finite_numbers(bad: object) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        Limits(max_tokens=bad)  # type: ignore[arg-type]


def test_refusal_names_the_limit_the_size_and_how_to_raise_it() -> None:
    with pytest.raises(LimitError) as info:
        check("pfsm", 400, 300, limits=Limits(max_token_pairs=1_000))
    err = info.value
    assert (err.method, err.limit, err.value, err.maximum) == ("pfsm", "max_token_pairs", 120_000, 1_000)
    message = str(err)
    for part in ("pfsm", "400 x 300 tokens", "120,000", "1,000", "max_token_pairs", "--max-token-pairs"):
        assert part in message
    assert isinstance(err, ValueError)


def test_tokens_per_side_apply_to_every_method_even_linear_ones() -> None:
    check("per", 2_000, 2_000)
    with pytest.raises(LimitError, match="max_tokens"):
        check("per", 2_001, 5)


def test_memory_estimate_is_checked() -> None:
    cost = estimate("ppda", 300, 300)
    assert cost.memory_mb > 10
    with pytest.raises(LimitError, match="max_memory_mb"):
        check("ppda", 300, 300, limits=Limits(max_memory_mb=cost.memory_mb / 2))


def test_word_pairs_apply_only_when_given() -> None:
    check("itg", 300, 300, words=None)
    with pytest.raises(LimitError, match="max_word_pairs"):
        check("itg", 300, 300, words=(300, 300))


def test_manli_candidate_bound_is_exact_when_every_word_pair_is_similar() -> None:
    pair = analyze_pair(make_pair("h " * 9, "h " * 7))
    feats = extract(pair, SurfaceSimilarity(), config=FeatureConfig(contextual=False))
    assert len(feats) == manli_candidates(9, 7) == manli_candidates(9, 7, 6)
    assert manli_candidates(3, 2, 6) == 6 * 3  # phrases are capped by the sentence length


def test_using_sets_limits_for_a_block_and_restores_them() -> None:
    before = limits.current()
    with limits.using(max_tokens=3) as inner:
        assert limits.current() is inner and inner.max_tokens == 3
        with pytest.raises(LimitError):
            check("bleu", 4, 1)
    assert limits.current() is before


# -- every registered method --------------------------------------------------------------

SMALL = Limits(max_tokens=5)


@pytest.fixture(scope="module")
def huge_pair():  # type: ignore[no-untyped-def]
    return analyze_pair(make_pair("h " * 10_000, "h " * 10_000))


@pytest.mark.parametrize("name", list(SCORERS))
def test_every_scorer_refuses_10k_tokens_before_any_work(name: str, huge_pair) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LimitError, match="max_tokens"):
        get_scorer(name).score(huge_pair)
    # Refused before the pair was even tagged: the tags are computed on first use.
    assert "pos" not in vars(huge_pair.text)


@pytest.mark.parametrize("name", list(ALIGNERS))
def test_every_aligner_refuses_10k_tokens_before_any_work(name: str, huge_pair) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(LimitError, match="max_tokens"):
        get_aligner(name).align(huge_pair)
    assert "pos" not in vars(huge_pair.text)


@pytest.mark.parametrize("name", ["bleu", "wer", "nist2", "itg", "pos_per"])
def test_limits_are_overridable_per_call_and_per_block(name: str) -> None:
    pair = analyze_pair(make_pair("one two three four five six", "one two"))
    scorer = get_scorer(name)
    with pytest.raises(LimitError, match="max_tokens"):
        scorer.score(pair, limits=SMALL)  # type: ignore[call-arg]
    with limits.using(SMALL), pytest.raises(LimitError):
        scorer.score(pair)
    assert np.isfinite(scorer.score(pair).value)
    assert scorer.score(pair, limits=Limits(max_tokens=6)).value == scorer.score(pair).value  # type: ignore[call-arg]


def test_manli_refuses_300_by_300_up_front_and_scores_within_limits() -> None:
    aligner = get_aligner("manli")
    big = analyze_pair(make_pair("buffalo " * 300, "buffalo " * 300))
    with pytest.raises(LimitError, match="max_candidates"):
        aligner.align(big)
    assert "pos" not in vars(big.text)
    small = analyze_pair(make_pair("buffalo " * 12, "buffalo " * 10))
    assert aligner.align(small).alignment.links


# -- edit lattices in log space ------------------------------------------------------------

def _log(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(x)


@pytest.mark.parametrize(("kind", "max_jump", "n", "m", "seed"),
                         [("pfsm", 0, 4, 3, 0), ("ppda", 2, 3, 4, 1), ("ppda", 3, 5, 4, 2)])
def test_log_space_kernels_agree_with_the_linear_ones(kind: str, max_jump: int, n: int, m: int, seed: int) -> None:
    a = build_automaton(kind, max_jump)
    emis, cls = random_tables(n, m, seed)
    jump_w, trans = kernel_args(a, seed)
    args = (a.last, a.order, a.rank_ptr, a.next_state, a.text_move)
    alpha = np.zeros((m + 1, n + 1, a.n_states))
    z = fsa.forward(n, m, emis, cls, jump_w, trans, *args, a.start, a.final, a.ops, alpha)
    log_alpha = np.zeros_like(alpha)
    log_z = fsa.forward_log(n, m, _log(emis), cls, _log(jump_w), _log(trans), *args, a.start, a.final, a.ops, log_alpha)
    assert log_z == pytest.approx(np.log(z), rel=1e-12)

    def counts() -> list[np.ndarray]:
        return [np.zeros(n * m) for _ in range(4)] + [
            np.zeros(m), np.zeros(n), np.zeros(max(max_jump, 1)), np.zeros((states.N_LAST, states.N_CLASSES))]

    linear, logged = counts(), counts()
    fsa.backward_counts(n, m, emis, cls, jump_w, trans, *args, a.final, a.ops, alpha, np.zeros_like(alpha), z, *linear)
    start = fsa.backward_counts_log(n, m, _log(emis), cls, _log(jump_w), _log(trans), *args, a.final, a.ops,
                                    log_alpha, np.zeros_like(alpha), log_z, *logged)
    assert start == pytest.approx(log_z, rel=1e-12)
    for x, y in zip(linear, logged):
        np.testing.assert_allclose(y, x, rtol=1e-9, atol=1e-12)

    steps, best = fsa.viterbi(n, m, emis, cls, jump_w, trans, *args, a.start, a.final, a.ops)
    log_steps, log_best = fsa.viterbi_log(n, m, _log(emis), cls, _log(jump_w), _log(trans), *args, a.start,
                                          a.final, a.ops)
    assert log_best == pytest.approx(np.log(best), rel=1e-12)
    np.testing.assert_array_equal(log_steps[:, :4], steps[:, :4])
    np.testing.assert_allclose(log_steps[:, 4], np.log(steps[:, 4]), rtol=1e-12)


@pytest.mark.slow
def test_long_text_against_short_hypothesis_scores_in_log_space() -> None:
    # ~150 tokens against 12 made the linear lattice underflow before the log-space rerun.
    words = "the committee approved a wooden bridge near the station after the storm .".split()
    text = " ".join(words[i % len(words)] for i in range(150))
    pair = analyze_pair(make_pair(text, "the committee approved a new bridge after the storm last year ."))
    for kind in ("pfsm", "ppda"):
        result = get_scorer(kind).score(pair)
        assert np.isfinite(result.value) and np.isfinite(result.log_z)
        assert result.best_log_score <= result.log_z + 1e-9
        assert result.alignment.links
        assert all(0.0 <= p <= 1.0 + 1e-9 for step, p in zip(result.steps, result.probabilities)
                   if not step.op.startswith("JUMP"))


# -- MANLI's anchors: a linear look-up, the same answer as the all-pairs comparison ----------

def test_anchor_lookup_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    anchors = rng.random((9, 7)) < 0.2
    p_start = rng.integers(0, 9, 200)
    h_start = rng.integers(0, 7, 200)
    p_end = np.minimum(p_start + rng.integers(1, 4, 200), 9)
    h_end = np.minimum(h_start + rng.integers(1, 4, 200), 7)
    ap, ah = np.nonzero(anchors)

    def brute(gap_p: np.ndarray, gap_h: np.ndarray) -> np.ndarray:
        w = ANCHOR_WINDOW
        ok = (gap_p >= 1) & (gap_h >= 1) & (gap_p <= w) & (gap_h <= w) & (np.abs(gap_p - gap_h) <= 1)
        return ok.any(axis=0)

    left = brute(p_start[None, :] - ap[:, None], h_start[None, :] - ah[:, None])
    right = brute(ap[:, None] - (p_end[None, :] - 1), ah[:, None] - (h_end[None, :] - 1))
    np.testing.assert_array_equal(context.anchored(anchors, p_start, h_start, -1), left)
    np.testing.assert_array_equal(context.anchored(anchors, p_end - 1, h_end - 1, +1), right)


# -- the command line ------------------------------------------------------------------------

def test_cli_limit_options_refuse_in_one_line_and_raise(capsys: pytest.CaptureFixture[str]) -> None:
    from explorer.cli import main

    args = ["score", "--text", "one two three four five six", "--hypothesis", "one two", "--scorer", "wer"]
    assert main([*args, "--max-tokens", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: wer:") and "max_tokens" in err and "--max-tokens" in err
    assert "\n" not in err and "Traceback" not in err
    assert main([*args, "--max-tokens", "6"]) == 0
    assert main([*args, "--max-memory-mb", "inf"]) == 2
    assert "positive finite" in capsys.readouterr().err

"""MANLI: representation (the paper's Figure 1), features, decoder and perceptron."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from explorer.aligners.manli import (
    HYPOTHESIS_SCORE_WEIGHT,
    CandidateSpans,
    DecoderConfig,
    ManliAligner,
    ManliModel,
    ManliModelError,
    ManliScorer,
    anneal,
    decode,
    default_model,
)
from explorer.aligners.manli.evidence import SurfaceSimilarity, chunk_boundaries
from explorer.aligners.manli.features import FeatureConfig, PairFeatures, extract
from explorer.aligners.manli.learn import Problem, TrainConfig, TrainingError, gold_blocks, train
from explorer.aligners.manli.names import FEATURES, INDEX, N_FEATURES
from explorer.alignment import Alignment, Edit, EditKind
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair, make_pair

# MacCartney, Galley & Manning (2008), Figure 1: an RTE2 dev problem whose hypothesis
# says women are poorly represented in parliament, and whose text says that in most
# Pacific countries there are very few women in parliament. Tokens typed by hand.
FIG1_TEXT = ("In", "most", "Pacific", "countries", "there", "are", "very", "few", "women", "in", "parliament", ".")
FIG1_HYP = ("Women", "are", "poorly", "represented", "in", "parliament", ".")
# The figure's alignment: five DEL edits, EQ are/are, SUB "very few" / "poorly
# represented", EQ women, in, parliament and the full stop.
FIG1_EDITS = (
    *(Edit(EditKind.DEL, (i, i + 1), None) for i in range(5)),
    Edit(EditKind.EQ, (5, 6), (1, 2)),
    Edit(EditKind.SUB, (6, 8), (2, 4)),
    Edit(EditKind.EQ, (8, 9), (0, 1)),
    Edit(EditKind.EQ, (9, 10), (4, 5)),
    Edit(EditKind.EQ, (10, 11), (5, 6)),
    Edit(EditKind.EQ, (11, 12), (6, 7)),
)
FIG1_LINKS = {(5, 1), (6, 2), (6, 3), (7, 2), (7, 3), (8, 0), (9, 4), (10, 5), (11, 6)}


def fig1_pair() -> Pair:
    return Pair(
        "fig1", " ".join(FIG1_TEXT), " ".join(FIG1_HYP),
        text_tokens=FIG1_TEXT, hypothesis_tokens=FIG1_HYP,
        gold_alignment=Alignment.from_links(len(FIG1_TEXT), len(FIG1_HYP), FIG1_LINKS),
    )


def test_figure1_edits_give_the_token_links() -> None:
    alignment = Alignment.from_edits(len(FIG1_TEXT), len(FIG1_HYP), FIG1_EDITS)
    assert alignment.sure == FIG1_LINKS
    # "very few" / "poorly represented" is one phrase edit: four token links.
    assert {link for link in alignment.sure if link[0] in (6, 7)} == {(6, 2), (6, 3), (7, 2), (7, 3)}


def test_figure1_links_convert_back_to_the_phrase_edits() -> None:
    gold = fig1_pair().gold_alignment
    assert gold is not None
    edits, unreachable = gold.to_phrase_edits()
    assert unreachable == frozenset()
    aligned = {(e.p_span, e.h_span) for e in edits if e.is_aligned}
    assert aligned == {(e.p_span, e.h_span) for e in FIG1_EDITS if e.is_aligned}
    assert sorted(e.p_span for e in edits if e.kind is EditKind.DEL) == [(i, i + 1) for i in range(5)]
    blocks, lost, sure = gold_blocks(fig1_pair())
    assert (lost, sure) == (0, len(FIG1_LINKS)) and ((6, 8), (2, 4)) in blocks


def test_figure1_features_and_alignment_scores_add_up() -> None:
    analysed = analyze_pair(fig1_pair())
    feats = extract(analysed, SurfaceSimilarity(), extra=(((6, 8), (2, 4)),))
    weights = default_model().weights
    chosen = np.array([feats.find(e.p_span, e.h_span) for e in FIG1_EDITS if e.is_aligned])
    assert (chosen >= 0).all()
    edits = feats.edits(chosen, weights)
    alignment = Alignment.from_edits(len(FIG1_TEXT), len(FIG1_HYP), edits)
    assert alignment.sure == FIG1_LINKS
    kinds = {(e.p_span, e.h_span): e.kind for e in edits}
    assert kinds[((5, 6), (1, 2))] is EditKind.EQ and kinds[((8, 9), (0, 1))] is EditKind.EQ  # women / Women
    assert kinds[((6, 8), (2, 4))] is EditKind.SUB
    total = float(feats.vector(chosen) @ weights)
    assert sum(e.score for e in edits) == pytest.approx(total)
    # Each edit's named features reproduce its score.
    for e in edits:
        assert sum(weights[INDEX[name]] * value for name, value in e.features) == pytest.approx(e.score, abs=1e-9)
    # The gain view agrees with the direct sum.
    base, gain = feats.gains(weights)
    assert base + gain[chosen].sum() == pytest.approx(total)


def test_shipped_model_aligns_figure1_content_words() -> None:
    result = ManliAligner(similarity=SurfaceSimilarity()).align(analyze_pair(fig1_pair()))
    assert {(8, 0), (9, 4), (10, 5)} <= result.alignment.sure
    assert sum(e.score for e in result.edits) == pytest.approx(result.total)
    assert result.normalized == pytest.approx(result.total / (len(FIG1_TEXT) + len(FIG1_HYP)))


def test_chunk_boundaries_mark_noun_phrases() -> None:
    bounds = chunk_boundaries(("DT", "JJ", "NN", "VBD", "IN", "NNP"))
    assert bounds == (True, False, False, True, True, True, True)


# -- decoder ------------------------------------------------------------------------------

def _blocks(p_len: int, h_len: int, size: int) -> list[tuple[int, int, int, int]]:
    return [
        (a, a + m, b, b + n)
        for m in range(1, size + 1) for n in range(1, size + 1)
        for a in range(p_len - m + 1) for b in range(h_len - n + 1)
    ]


def _brute_force(blocks: list[tuple[int, int, int, int]], gain: np.ndarray) -> float:
    best = 0.0
    order = [i for i in range(len(blocks)) if gain[i] > 0]

    def search(k: int, used_p: frozenset[int], used_h: frozenset[int], total: float) -> None:
        nonlocal best
        best = max(best, total)
        for j in range(k, len(order)):
            a, b, c, d = blocks[order[j]]
            ps, hs = frozenset(range(a, b)), frozenset(range(c, d))
            if not (ps & used_p) and not (hs & used_h):
                search(j + 1, used_p | ps, used_h | hs, total + gain[order[j]])

    search(0, frozenset(), frozenset(), 0.0)
    return best


@pytest.mark.parametrize("seed", range(12), ids=lambda s: f"problem{s}")
def test_decoder_finds_the_brute_force_optimum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p_len, h_len = int(rng.integers(2, 6)), int(rng.integers(2, 5))
    blocks = _blocks(p_len, h_len, 2)
    gain = rng.normal(0.0, 1.0, len(blocks))
    arr = np.array(blocks, dtype=np.int64).T
    chosen = anneal(gain, CandidateSpans(*arr, p_len, h_len))
    used_p = [i for c in chosen for i in range(arr[0][c], arr[1][c])]
    used_h = [j for c in chosen for j in range(arr[2][c], arr[3][c])]
    assert len(used_p) == len(set(used_p)) and len(used_h) == len(set(used_h)), "edits overlap"
    assert gain[chosen].sum() == pytest.approx(_brute_force(blocks, gain))


def test_decoder_is_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(7)
    blocks = _blocks(8, 6, 3)
    gain = rng.normal(0.2, 1.0, len(blocks))
    arr = np.array(blocks, dtype=np.int64).T
    runs = [anneal(gain, CandidateSpans(*arr, 8, 6), config=DecoderConfig(seed=3)).tolist() for _ in range(2)]
    assert runs[0] == runs[1]


def test_decoder_with_no_positive_gain_returns_the_empty_alignment() -> None:
    arr = np.array(_blocks(3, 3, 1), dtype=np.int64).T
    assert anneal(-np.ones(arr.shape[1]), CandidateSpans(*arr, 3, 3)).size == 0


# -- perceptron -------------------------------------------------------------------------------

def _toy_problem(rng: np.random.Generator, size: int) -> Problem:
    """1 x 1 candidates; the gold is a random permutation, marked by ``sub:eq``; every
    candidate has a noise feature; DEL and INS have their biases."""
    p = np.repeat(np.arange(size), size)
    h = np.tile(np.arange(size), size)
    perm = rng.permutation(size)
    gold_mask = perm[p] == h
    aligned = np.zeros((p.size, N_FEATURES), dtype=np.float32)
    aligned[:, INDEX["sub:bias"]] = 1.0
    aligned[:, INDEX["sub:eq"]] = gold_mask
    aligned[:, INDEX["sub:sim_cover_h"]] = rng.random(p.size)
    deleted = np.zeros((size, N_FEATURES), dtype=np.float32)
    deleted[:, INDEX["del:bias"]] = 1.0
    inserted = np.zeros((size, N_FEATURES), dtype=np.float32)
    inserted[:, INDEX["ins:bias"]] = 1.0
    feats = PairFeatures(size, size, p, p + 1, h, h + 1, gold_mask, aligned, deleted, inserted, np.zeros(p.size, bool))
    gold = np.flatnonzero(gold_mask)
    return Problem("toy", feats, gold, 0, size, feats.vector(gold))


def test_perceptron_learns_a_separable_toy_problem() -> None:
    rng = np.random.default_rng(0)
    problems = [_toy_problem(rng, int(rng.integers(2, 6))) for _ in range(30)]
    weights = train(problems, config=TrainConfig(epochs=6, burn_in=2))
    assert np.linalg.norm(weights) == pytest.approx(1.0)
    assert weights[INDEX["sub:eq"]] > 0
    held_out = [_toy_problem(rng, 5) for _ in range(10)]
    for problem in held_out:
        chosen, _ = decode(problem.features, weights)
        assert sorted(chosen.tolist()) == sorted(problem.gold.tolist())


def test_training_mask_holds_features_at_zero_and_problem_weights_scale_updates() -> None:
    rng = np.random.default_rng(2)
    problems = [_toy_problem(rng, int(rng.integers(2, 6))) for _ in range(12)]
    config = TrainConfig(epochs=3, burn_in=1)
    plain = train(problems, config=config)
    assert np.array_equal(train(problems, config=config, mask=np.ones(N_FEATURES)), plain)
    assert np.array_equal(train(problems, config=config, problem_weights=[1.0] * len(problems)), plain)
    mask = np.ones(N_FEATURES)
    mask[INDEX["sub:eq"]] = 0.0
    masked = train(problems, config=config, mask=mask)
    assert plain[INDEX["sub:eq"]] != 0 and masked[INDEX["sub:eq"]] == 0
    assert np.linalg.norm(masked) == pytest.approx(1.0)
    # A problem weighted 0 never moves the weights: the same as training without it, in the
    # same shuffled order (one problem alone, so the order cannot differ).
    zeroed = train(problems[:1], config=config, problem_weights=[0.0])
    assert not zeroed.any()
    with pytest.raises(TrainingError, match="mask"):
        train(problems, config=config, mask=np.ones(3))
    with pytest.raises(TrainingError, match="problem weights"):
        train(problems, config=config, problem_weights=[1.0])


def test_training_orders_average_the_runs_of_successive_seeds() -> None:
    rng = np.random.default_rng(1)
    problems = [_toy_problem(rng, int(rng.integers(2, 6))) for _ in range(12)]
    config = TrainConfig(epochs=3, burn_in=1, seed=4)
    runs = [train(problems, config=TrainConfig(epochs=3, burn_in=1, seed=s)) for s in (4, 5)]
    mean = np.mean(runs, axis=0)
    averaged = train(problems, config=TrainConfig(epochs=3, burn_in=1, seed=4, orders=2))
    assert np.allclose(averaged, mean / np.linalg.norm(mean))
    assert np.array_equal(train(problems, config=config), runs[0])  # orders=1 is one run
    with pytest.raises(ValueError, match="orders"):
        TrainConfig(orders=0)


# -- model files, scorer, registry, CLI --------------------------------------------------------

def test_model_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = ManliModel(np.linspace(-1, 1, N_FEATURES), FeatureConfig(max_phrase=3, contextual=False), {"ppdb": False})
    path = tmp_path / "m.json"
    model.save(path)
    loaded = ManliModel.load(path)
    assert np.allclose(loaded.weights, model.weights, atol=1e-6)
    assert loaded.features == model.features and loaded.lexical == {"ppdb": False}


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"model": "itg"}, "not a MANLI"),
        ({"model": "manli", "weights": [1, 2]}, "must map"),
        ({"model": "manli", "weights": {"nonsense": 1}}, "unknown features"),
    ],
    ids=["wrong-model", "weights-list", "unknown-feature"],
)
def test_bad_model_files_are_refused(tmp_path, payload, message) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ManliModelError, match=message):
        ManliModel.load(path)


def test_shipped_model_is_small_and_complete(repo_root: Path) -> None:
    path = repo_root / "explorer" / "models" / "manli_rte2dev.json"
    assert path.stat().st_size < 20_000
    payload = json.loads(path.read_text())
    assert set(payload["weights"]) == set(FEATURES)
    assert payload["info"]["trained_on"] == 800


def test_scorer_value_is_content_coverage_plus_hypothesis_side() -> None:
    scorer = ManliScorer(ManliAligner(similarity=SurfaceSimilarity()))
    pair = analyze_pair(fig1_pair())
    result = scorer.score(pair)
    assert result.n_tokens == len(FIG1_TEXT) + len(FIG1_HYP)
    assert result.problem_normalized == pytest.approx(result.total / result.n_tokens)
    decoded = scorer.aligner.align(pair)
    hyp = pair.hypothesis
    content = [j for j in range(len(hyp)) if not (hyp.stop[j] or hyp.is_punct[j])]
    linked = {h for _, h in decoded.alignment.links}
    assert result.content_coverage == pytest.approx(sum(j in linked for j in content) / len(content))
    assert result.unaligned_content == tuple(j for j in content if j not in linked)
    deleted = sum(e.score for e in decoded.edits if e.kind.value == "DEL")
    assert result.hypothesis_score == pytest.approx((decoded.total - deleted) / len(hyp))
    assert result.value == pytest.approx(result.content_coverage + HYPOTHESIS_SCORE_WEIGHT * result.hypothesis_score)
    assert decoded.value == pytest.approx(result.value)  # the aligner's value is the scorer's


def test_scorer_value_falls_when_a_content_word_is_unaligned() -> None:
    scorer = ManliScorer(ManliAligner(similarity=SurfaceSimilarity()))
    same = scorer.score(analyze_pair(make_pair("The cat sat on the mat.", "The cat sat.")))
    other = scorer.score(analyze_pair(make_pair("The cat sat on the mat.", "The dog sat.")))
    assert same.content_coverage == 1.0 and other.content_coverage < 1.0
    assert other.value < same.value


def test_registries_know_manli() -> None:
    from explorer.aligners import ALIGNERS
    from explorer.scorers import SCORERS
    from explorer.training import TRAINERS

    assert "manli" in ALIGNERS and "manli" in SCORERS and "manli" in TRAINERS


@pytest.fixture
def tiny_gold(tmp_path):  # type: ignore[no-untyped-def]
    gold = tmp_path / "tiny.align.txt"
    # Two hand-written problems in the MSR format (1-based text positions).
    gold.write_text(
        "# sentence pair 1\n"
        "the cat sat on a mat .\n"
        "NULL ({ / / }) a ({ 1 / / }) cat ({ 2 / / }) sat ({ 3 / / }) . ({ 7 / / }) \n"
        "# sentence pair 2\n"
        "rain fell all day in the hills .\n"
        "NULL ({ / / }) it ({ / / }) rained ({ 1 2 / / }) in ({ 5 / / }) the ({ 6 / / }) hills ({ 7 / / }) \n",
        encoding="utf-8",
    )
    return gold


def _train(capsys, *args: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    from explorer.cli import main

    code = main(["train", *args])
    return code, capsys.readouterr().err


def test_train_command_writes_a_model(tiny_gold, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "model.json"
    code, err = _train(capsys, "manli", str(tiny_gold), "--out", str(out), "--option", "epochs=3", "--option", "without=wordnet,ppdb")
    assert code == 0, err
    assert "epoch 3/3" in err
    model = ManliModel.load(out)
    assert model.info["trained_on"] == 2 and model.lexical["ppdb"] is False and model.lexical["hypernyms"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("manli", "--option", "colour=blue"), "unknown manli option"),
        (("manli", "--option", "epochs"), "not KEY=VALUE"),
        (("manli", "--option", "without=thesaurus"), "unknown lexical component"),
        (("manli", "--option", "orders=0"), "training orders"),
        (("nosuchmethod",), "unknown trainer"),
    ],
    ids=["unknown-option", "malformed-option", "unknown-component", "bad-orders", "unknown-trainer"],
)
def test_train_command_rejects_bad_requests(tiny_gold, tmp_path, capsys, args, message) -> None:  # type: ignore[no-untyped-def]
    name, *rest = args
    code, err = _train(capsys, name, str(tiny_gold), "--out", str(tmp_path / "x.json"), *rest)
    assert code == 2 and message in err
    assert not (tmp_path / "x.json").exists()


def test_all_candidates_of_every_size_are_enumerated() -> None:
    analysed = analyze_pair(fig1_pair())
    feats = extract(analysed, SurfaceSimilarity(), config=FeatureConfig(max_phrase=2))
    spans = set(zip(feats.p_start.tolist(), feats.p_end.tolist(), feats.h_start.tolist(), feats.h_end.tolist()))
    # Every 1 x 1 and 1 x 2 / 2 x 1 block is a candidate (small blocks are always kept).
    for a, b in itertools.product(range(len(FIG1_TEXT)), range(len(FIG1_HYP))):
        assert (a, a + 1, b, b + 1) in spans
    assert max(e - s for s, e in zip(feats.p_start, feats.p_end)) == 2


def test_a_decoded_alignment_rescores_to_its_own_total() -> None:
    aligner = ManliAligner(similarity=SurfaceSimilarity())
    pair = analyze_pair(fig1_pair())
    decoded = aligner.align(pair)
    rescored, dropped = aligner.score_alignment(pair, Alignment.from_links(
        decoded.alignment.p_len, decoded.alignment.h_len, decoded.alignment.sure))
    assert dropped == 0
    assert rescored.total == pytest.approx(decoded.total)
    assert rescored.alignment.sure == decoded.alignment.sure


def test_removing_a_good_link_lowers_the_edited_alignments_score() -> None:
    aligner = ManliAligner(similarity=SurfaceSimilarity())
    pair = analyze_pair(fig1_pair())
    decoded = aligner.align(pair)
    eq_links = [link for e in decoded.edits if e.kind is EditKind.EQ and e.score > 0 for link in e.links()]
    assert eq_links, "the shipped model should find some EQ edits on Figure 1"
    fewer = Alignment.from_links(decoded.alignment.p_len, decoded.alignment.h_len,
                                 decoded.alignment.sure - {eq_links[0]})
    assert aligner.score_alignment(pair, fewer)[0].total < decoded.total
    with pytest.raises(ValueError, match="tokens"):
        aligner.score_alignment(pair, Alignment(1, 1))


def test_result_names_value_is_per_token_total_is_the_sum() -> None:
    """One result contract: ``value`` is what a cutoff compares (per token, as the
    scorer's value), ``total`` the alignment's sum; each quantity under one name."""
    from explorer.aligners.manli import ManliResult, ManliScore

    alignment = Alignment(2, 1)
    result = ManliResult(alignment, total=-1.5, normalized=-0.5, n_candidates=3)
    assert result.value == -0.5 and result.total == -1.5 and not hasattr(result, "score")
    score = ManliScore(value=-0.5, total=-1.5, n_tokens=3, aligned_links="")
    body = score.to_json()
    assert body["value"] == -0.5 and body["total"] == -1.5 and "alignment_score" not in body
    assert result.format().startswith("-0.5000  (") and str(result) == result.format()

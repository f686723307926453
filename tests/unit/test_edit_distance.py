"""Tests for the probabilistic edit distance (explorer/edit_distance, Wang & Cer 2012)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from explorer.edit_distance import automaton as fsa
from explorer.edit_distance import states
from explorer.edit_distance.features import FeatureIndex, PairFeatures, pair_features
from explorer.edit_distance.model import Batch, EditDistanceModel, ModelError, fit, objective
from explorer.edit_distance.scoring import EditDistanceScorer, steps_to_alignment
from explorer.edit_distance.states import (
    C_OTHER,
    C_WORD,
    DEL,
    INS,
    JUMP_B,
    JUMP_F,
    MODE_BACK_FRESH,
    MODE_LANDED,
    SUB,
    build_automaton,
)
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair

# -- helpers ------------------------------------------------------------------------------


def random_tables(n: int, m: int, seed: int, *, classes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sub_w = rng.uniform(0.2, 2.0, n * m)
    sub_cls = classes if classes is not None else rng.choice([C_WORD, C_OTHER], n * m)
    blocks = [np.where(rng.random(n * m) < 0.3, rng.uniform(0.2, 2.0, n * m), 0.0) for _ in range(3)]
    return fsa.tables(n, m, sub_w, sub_cls, *blocks, rng.uniform(0.2, 2.0, m), rng.uniform(0.2, 2.0, n))


def kernel_args(a: states.Automaton, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + 100)
    return rng.uniform(0.3, 1.5, max(a.max_jump, 1)), rng.uniform(0.5, 1.5, (states.N_LAST, states.N_CLASSES))


def enumerate_paths(a: states.Automaton, n: int, m: int, emis: np.ndarray, cls: np.ndarray,
                    jump_w: np.ndarray, trans: np.ndarray) -> list[tuple[float, list[tuple[int, int, int, int, int]]]]:
    """Every complete edit sequence by plain recursion: (weight, [(op, i, j, q, next q)])."""
    out: list[tuple[float, list[tuple[int, int, int, int, int]]]] = []
    dj_of = (1, 0, 1, 2, 1, 2)

    def rec(i: int, j: int, q: int, w: float, path: list[tuple[int, int, int, int, int]]) -> None:
        if i == n and j == m and a.final[q]:
            out.append((w * trans[a.last[q], states.C_END], path))
        for k in range(a.ops[q, 0]):
            op = int(a.ops[q, k + 1])
            if op < 6:
                weight, c, dj = emis[op, i, j], int(cls[op, i, j]), dj_of[op]
            elif op == JUMP_B:
                weight, c, dj = 1.0, states.C_JUMP_B, 0
            else:
                if i + op - 6 >= n:
                    continue
                weight, c, dj = jump_w[op - 7], states.C_JUMP_F, 0
            if weight == 0.0:
                continue
            tq = int(a.next_state[q, op, int(states.is_match(c))])
            ti = i + int(a.text_move[q, op])
            if tq < 0 or not 0 <= ti <= n:
                continue
            rec(ti, j + dj, tq, w * weight * trans[a.last[q], c], [*path, (op, i, j, q, tq)])

    rec(0, 0, a.start, 1.0, [])
    return out


def run_forward(a: states.Automaton, n: int, m: int, emis: np.ndarray, cls: np.ndarray,
                jump_w: np.ndarray, trans: np.ndarray) -> tuple[float, np.ndarray]:
    alpha = np.zeros((m + 1, n + 1, a.n_states))
    z = fsa.forward(n, m, emis, cls, jump_w, trans, a.last, a.order, a.rank_ptr, a.next_state,
                    a.text_move, a.start, a.final, a.ops, alpha)
    return z, alpha


PFSM = build_automaton("pfsm", 0)
PPDA2 = build_automaton("ppda", 2)
PPDA3 = build_automaton("ppda", 3)


# -- automata -----------------------------------------------------------------------------

def test_pfsm_has_one_mode_and_no_jumps() -> None:
    assert PFSM.n_states == 5  # START, INS, DEL, MATCH, SUB
    assert PFSM.n_ops == JUMP_F
    assert build_automaton("ppda", 5).n_states == 37


def test_ppda_rejects_negative_jump() -> None:
    with pytest.raises(ValueError):
        build_automaton("ppda", -1)


# -- forward on hand-computed cases --------------------------------------------------------

def test_forward_one_by_one_by_hand() -> None:
    # One text and one hypothesis token: SUB, INS+DEL or DEL+INS.
    s, x, y = 0.7, 0.3, 0.4
    emis, cls = fsa.tables(1, 1, np.array([s]), np.array([C_OTHER]), np.zeros(1), np.zeros(1), np.zeros(1),
                           np.array([x]), np.array([y]))
    trans = np.ones((states.N_LAST, states.N_CLASSES))
    z, _ = run_forward(PFSM, 1, 1, emis, cls, np.ones(1), trans)
    assert z == pytest.approx(s + 2 * x * y)
    # A transition weight on INS -> DEL only touches the INS-then-DEL sequence.
    trans[states.L_INS, states.C_DEL] = 3.0
    z, _ = run_forward(PFSM, 1, 1, emis, cls, np.ones(1), trans)
    assert z == pytest.approx(s + x * y + 3.0 * x * y)


@pytest.mark.parametrize(
    ("automaton", "n", "m", "seed"),
    [(PFSM, 2, 3, 0), (PFSM, 3, 3, 1), (PPDA2, 3, 2, 2), (PPDA2, 3, 3, 3), (PPDA3, 4, 3, 4)],
    ids=["pfsm-2x3", "pfsm-3x3", "ppda2-3x2", "ppda2-3x3", "ppda3-4x3"],
)
def test_forward_equals_brute_force(automaton: states.Automaton, n: int, m: int, seed: int) -> None:
    emis, cls = random_tables(n, m, seed)
    jump_w, trans = kernel_args(automaton, seed)
    paths = enumerate_paths(automaton, n, m, emis, cls, jump_w, trans)
    z, _ = run_forward(automaton, n, m, emis, cls, jump_w, trans)
    assert z == pytest.approx(sum(w for w, _ in paths), rel=1e-10)


@pytest.mark.parametrize(("automaton", "n", "m"), [(PFSM, 3, 4), (PPDA3, 4, 4)], ids=["pfsm", "ppda"])
def test_posteriors_sum_to_one_per_token(automaton: states.Automaton, n: int, m: int) -> None:
    emis, cls = random_tables(n, m, 7)
    jump_w, trans = kernel_args(automaton, 7)
    z, alpha = run_forward(automaton, n, m, emis, cls, jump_w, trans)
    beta = np.zeros_like(alpha)
    counts = [np.zeros(n * m) for _ in range(4)]
    c_ins, c_del = np.zeros(m), np.zeros(n)
    c_jump, c_trans = np.zeros(max(automaton.max_jump, 1)), np.zeros((states.N_LAST, states.N_CLASSES))
    z_back = fsa.backward_counts(n, m, emis, cls, jump_w, trans, automaton.last, automaton.order,
                                 automaton.rank_ptr, automaton.next_state, automaton.text_move,
                                 automaton.final, automaton.ops, alpha, beta, z, *counts, c_ins, c_del,
                                 c_jump, c_trans)
    assert z_back == pytest.approx(z)
    sub, b12, b21, b22 = (c.reshape(n, m) for c in counts)
    # Every text token is consumed by exactly one operation in every sequence.
    # (a two-token block at i covers tokens i and i + 1).
    text_mass = c_del + sub.sum(1) + b12.sum(1) + b21.sum(1) + b22.sum(1)
    text_mass[1:] += b21.sum(1)[:-1] + b22.sum(1)[:-1]
    hyp_mass = c_ins + sub.sum(0) + b12.sum(0) + b21.sum(0) + b22.sum(0)
    hyp_mass[1:] += b12.sum(0)[:-1] + b22.sum(0)[:-1]
    np.testing.assert_allclose(text_mass, 1.0, rtol=1e-9)
    np.testing.assert_allclose(hyp_mass, 1.0, rtol=1e-9)
    assert c_trans[:, states.C_END].sum() == pytest.approx(1.0)
    # Forward and backward jumps pair up in the pPDA.
    assert c_trans[:, states.C_JUMP_F].sum() == pytest.approx(c_trans[:, states.C_JUMP_B].sum())
    assert c_jump.sum() == pytest.approx(c_trans[:, states.C_JUMP_F].sum())


# -- the jumps of the pPDA -----------------------------------------------------------------

def _swap_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Text ``x0 x1 ...``, hypothesis with x0 and x1 swapped: matches strong, rest weak."""
    order = [1, 0, *range(2, n)]
    sub_w = np.full(n * n, 1e-3)
    classes = np.full(n * n, C_OTHER)
    for j, i in enumerate(order):
        sub_w[i * n + j] = 5.0
        classes[i * n + j] = C_WORD
    z = np.zeros(n * n)
    return fsa.tables(n, n, sub_w, classes, z, z, z, np.full(n, 0.05), np.full(n, 0.05))


def test_ppda_expresses_a_swap_pfsm_cannot() -> None:
    emis, cls = _swap_tables(2)
    trans = np.ones((states.N_LAST, states.N_CLASSES))

    def linked_both(a: states.Automaton) -> bool:
        paths = enumerate_paths(a, 2, 2, emis, cls, np.ones(max(a.max_jump, 1)), trans)
        return any({(i, j) for op, i, j, *_ in path if op == SUB} == {(0, 1), (1, 0)} for _, path in paths)

    assert not linked_both(PFSM)
    assert linked_both(PPDA2)
    for a in (PFSM, PPDA2):
        steps, _ = fsa.viterbi(2, 2, emis, cls, np.ones(max(a.max_jump, 1)), trans, a.last, a.order,
                               a.rank_ptr, a.next_state, a.text_move, a.start, a.final, a.ops)
        ops = [int(s[0]) for s in steps]
        if a is PPDA2:
            assert ops == [JUMP_F, SUB, JUMP_B, SUB]
            assert {(int(s[1]), int(s[2])) for s in steps if int(s[0]) == SUB} == {(1, 0), (0, 1)}
        else:
            assert JUMP_F not in ops and ops.count(SUB) <= 1


def test_ppda_jump_constraints_hold_on_every_path() -> None:
    emis, cls = random_tables(4, 3, 11)
    jump_w, trans = kernel_args(PPDA3, 11)
    paths = enumerate_paths(PPDA3, 4, 3, emis, cls, jump_w, trans)
    jumped = 0
    for _, path in paths:
        for (op, *_rest, tq), nxt in zip(path, [*path[1:], None]):
            mode_after = PPDA3.states[tq][0]
            if op >= JUMP_F:
                jumped += 1
                assert mode_after == MODE_LANDED
                assert nxt is not None and nxt[0] in (SUB, states.B12, states.B21, states.B22)
            if op == JUMP_B:
                # No deletion until a substitution after jumping back.
                rest = [p[0] for p in path[path.index((op, *_rest, tq)) + 1 :]]
                first_text = next(o for o in rest if o != INS)
                assert first_text != DEL
                assert mode_after == MODE_BACK_FRESH
        # Jumps come in forward/backward pairs.
        assert sum(p[0] >= JUMP_F for p in path) == sum(p[0] == JUMP_B for p in path)
    assert jumped > 0


def test_max_jump_limits_the_distance() -> None:
    # Hypothesis x2 x0 x1: jump over two tokens, substitute x2, jump back three.
    sub_w = np.full(9, 1e-3)
    classes = np.full(9, C_OTHER)
    for j, i in enumerate([2, 0, 1]):
        sub_w[i * 3 + j] = 5.0
        classes[i * 3 + j] = C_WORD
    z = np.zeros(9)
    emis, cls = fsa.tables(3, 3, sub_w, classes, z, z, z, np.full(3, 0.05), np.full(3, 0.05))
    trans = np.ones((states.N_LAST, states.N_CLASSES))
    for max_jump, expected in ((2, False), (3, True)):
        a = build_automaton("ppda", max_jump)
        paths = enumerate_paths(a, 3, 3, emis, cls, np.ones(max_jump), trans)
        subs = [{(i, j) for op, i, j, *_ in path if op == SUB} for _, path in paths]
        assert any(s == {(2, 0), (0, 1), (1, 2)} for s in subs) is expected


# -- the model: gradient, training, files --------------------------------------------------

TOY = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.6),
    ("A man is playing a guitar.", "A woman is slicing an onion.", 0.4),
    ("The cat sat on the mat.", "The cat is sitting on the mat.", 4.4),
    ("The cat sat on the mat.", "A dog ran across the field.", 0.8),
    ("Two children are running in a park.", "Children run in the park.", 4.0),
    ("Two children are running in a park.", "The stock market fell sharply today.", 0.0),
    ("She bought fresh bread at the bakery.", "At the bakery she bought fresh bread.", 4.8),
    ("She bought fresh bread at the bakery.", "He sold old shoes online.", 0.6),
    ("The committee approved the new budget.", "The new budget was approved by the committee.", 4.5),
    ("The committee approved the new budget.", "The budget was rejected.", 1.6),
]


@pytest.fixture(scope="module", autouse=True)
def _without_ppdb():  # type: ignore[no-untyped-def]
    """The toy pairs need no paraphrase table; loading PPDB would take seconds."""
    from explorer.edit_distance import features

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(features, "load_ppdb", dict)
        yield


@pytest.fixture(scope="module")
def toy() -> tuple[list, np.ndarray]:
    pairs = [analyze_pair(Pair(id=str(k), text=t, hypothesis=h, score=s)) for k, (t, h, s) in enumerate(TOY)]
    encoded = []
    for p in pairs:
        n, m = len(p.text), len(p.hypothesis)
        # A fixed similarity keeps the test independent of WordNet's coverage.
        sim = np.array([[0.9 if a == b else 0.0 for b in p.hypothesis.lemmas] for a in p.text.lemmas]).reshape(n, m)
        encoded.append(pair_features(p, similarity=sim))
    return encoded, np.array([s for *_, s in TOY])


@pytest.mark.parametrize("kind", ["pfsm", "ppda"])
def test_gradient_matches_finite_differences(toy: tuple[list, np.ndarray], kind: str) -> None:
    encoded, gold = toy
    index = FeatureIndex.fit(encoded[:4], min_count=1)
    model = EditDistanceModel.zero(kind, index, max_jump=2)
    batch = Batch.build(encoded[:4], index)
    rng = np.random.default_rng(3)
    theta = rng.normal(0, 0.2, len(model.theta()))
    loss, grad, _ = objective(model, batch, gold[:4], theta, lam=5.0)
    eps = 1e-6
    nonzero = np.flatnonzero(np.abs(grad) > 1e-6)
    for k in [*nonzero[:6], *nonzero[-4:], len(theta) - 1]:
        step = np.zeros_like(theta)
        step[k] = eps
        numeric = (objective(model, batch, gold[:4], theta + step, lam=5.0)[0]
                   - objective(model, batch, gold[:4], theta - step, lam=5.0)[0]) / (2 * eps)
        assert grad[k] == pytest.approx(numeric, rel=1e-4, abs=1e-5), f"coordinate {k}"


@pytest.mark.parametrize("kind", ["pfsm", "ppda"])
def test_training_improves_fit(toy: tuple[list, np.ndarray], kind: str) -> None:
    encoded, gold = toy
    index = FeatureIndex.fit(encoded, min_count=2)
    zero = EditDistanceModel.zero(kind, index, max_jump=3)
    batch = Batch.build(encoded, index)
    trained = fit(zero, batch, gold, lam=0.1, max_iter=40, progress=None)
    start_theta = zero.theta()
    start_theta[-1] = float(np.mean(gold - zero.log_z(batch)[0] / (batch.n + batch.m)))
    start_loss = objective(zero, batch, gold, start_theta, lam=0.1)[0]
    assert trained.info["loss"] < 0.5 * start_loss
    pred = trained.predict_batch(batch)
    assert np.corrcoef(pred, gold)[0, 1] > 0.9
    # Identical-word substitutions end up worth more than unrelated ones.
    weights = dict(zip(trained.names, trained.weights))
    assert weights["sub:S_WORD"] > weights.get("sub:S_OTHER", 0.0)


def test_model_json_round_trip(toy: tuple[list, np.ndarray], tmp_path) -> None:  # type: ignore[no-untyped-def]
    encoded, gold = toy
    index = FeatureIndex.fit(encoded, min_count=1)
    model = EditDistanceModel.zero("ppda", index, max_jump=2)
    rng = np.random.default_rng(1)
    model = model.with_theta(rng.normal(0, 0.1, len(model.theta())))
    path = tmp_path / "m.json"
    model.save(path)
    again = EditDistanceModel.load(path)
    batch = Batch.build(encoded, again.index)
    np.testing.assert_allclose(again.predict_batch(batch), model.predict_batch(Batch.build(encoded, index)), rtol=1e-4)
    path.write_text('{"format": "something else"}')
    with pytest.raises(ModelError, match="not an edit-distance model"):
        EditDistanceModel.load(path)


@pytest.fixture(scope="module")
def toy_ppda(toy: tuple[list, np.ndarray]) -> tuple[EditDistanceModel, FeatureIndex]:
    """A pPDA trained briefly on the toy pairs, and its feature index."""
    encoded, gold = toy
    index = FeatureIndex.fit(encoded, min_count=1)
    model = fit(EditDistanceModel.zero("ppda", index, max_jump=3), Batch.build(encoded, index), gold,
                lam=0.5, max_iter=10, progress=None)
    return model, index


def test_viterbi_sequence_is_a_valid_alignment(toy: tuple[list, np.ndarray],
                                               toy_ppda: tuple[EditDistanceModel, FeatureIndex]) -> None:
    encoded, _ = toy
    model, index = toy_ppda
    pair = analyze_pair(Pair(id="x", text=TOY[6][0], hypothesis=TOY[6][1], score=4.8))
    scorer = EditDistanceScorer("ppda", model=model)
    steps, best = model.best_sequence(pair, features=encoded[6])
    alignment = steps_to_alignment(steps, len(pair.text), len(pair.hypothesis))
    assert alignment.p_len == len(pair.text)
    log_z = model.log_z(Batch.build([encoded[6]], index))[0][0]
    assert best <= log_z + 1e-9
    # The sequence's steps carry the same score up to the final END transition.
    end = best - sum(s.log_weight for s in steps)
    assert any(math.isclose(end, w, abs_tol=1e-6) for w in model.trans[:, -1])
    eq_links = {link for e in alignment.edits or () if e.kind.value == "EQ" for link in e.links()}
    assert eq_links <= alignment.sure
    assert scorer.name == "ppda"


# -- the figure ----------------------------------------------------------------------------

def test_edit_sequence_figure(toy_ppda: tuple[EditDistanceModel, FeatureIndex]) -> None:
    from components.figures.edit_sequence import edit_sequence_figure, step_label

    model, _ = toy_ppda
    pair = analyze_pair(Pair(id="x", text=TOY[0][0], hypothesis=TOY[0][1], score=4.6))
    result = EditDistanceScorer("ppda", model=model).score(pair)
    assert len(result.probabilities) == len(result.steps)
    assert all(0.0 <= p <= 1.0 + 1e-9 for p, s in zip(result.probabilities, result.steps) if not s.op.startswith("JUMP"))
    figure = edit_sequence_figure(result.steps, result.probabilities, pair.text.tokens, pair.hypothesis.tokens)
    shown = [y for trace in figure.data for y in trace.y]
    assert len(shown) == len(result.steps)
    assert any("man" in y for y in shown)
    # That the builder needs no Streamlit is checked for every figure module in test_layering.py.
    with pytest.raises(ValueError, match="probabilities"):
        edit_sequence_figure(result.steps, result.probabilities[:-1], pair.text.tokens, pair.hypothesis.tokens)
    first = result.steps[0]
    assert step_label(first, pair.text.tokens, pair.hypothesis.tokens)


def test_method_panel_registered() -> None:
    from components.panels import PANELS

    assert PANELS["edit"].module == "components.panels.edit_distance"


# -- the train command ----------------------------------------------------------------------

def test_train_command_writes_a_loadable_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from explorer.cli import main

    data = tmp_path / "toy.tsv"
    data.write_text("".join(f"{s:.1f}\t{t}\t{h}\n" for t, h, s in TOY), encoding="utf-8")
    out = tmp_path / "pfsm.json"
    code = main(["train", "pfsm", str(data), "--out", str(out), "--option", "max_iter=5",
                 "--option", "min_count=1", "--option", "cv=2"])
    assert code == 0
    model = EditDistanceModel.load(out)
    assert model.kind == "pfsm" and model.info["pairs"] == len(TOY)
    assert main(["train", "ppda", str(data), "--out", str(out), "--option", "cv=1"]) == 2
    ranked = tmp_path / "rank.json"
    assert main(["train", "pfsm", str(data), "--out", str(ranked), "--option", "max_iter=5", "--option", "min_count=1",
                 "--option", "target=rank", "--option", "lam_per=4"]) == 0
    model = EditDistanceModel.load(ranked)
    assert model.info["target"] == "rank" and model.info["lam_per"] == 4 and model.scale > 0
    assert model.info["lam"] == pytest.approx(5.0 * len(TOY) / 4)  # lam per 4 pairs
    assert main(["train", "pfsm", str(data), "--out", str(out), "--option", "target=huber"]) == 2
    assert main(["train", "ppda", str(data), "--out", str(out), "--option", "speed=fast"]) == 2


# -- training settings compared across files (explorer/edit_distance/training.py) ----------

@pytest.mark.parametrize("target", ["norm", "affine", "plain", "mean", "rank"])
def test_target_objective_gradient_with_per_file_offsets(toy: tuple[list, np.ndarray], target: str) -> None:
    from explorer.edit_distance.training import _target_objective

    encoded, gold = toy
    index = FeatureIndex.fit(encoded[:6], min_count=1)
    model = EditDistanceModel.zero("pfsm", index)
    batch = Batch.build(encoded[:6], index)
    group = np.array([0, 0, 1, 1, 1, 0])
    weight = np.array([1.0, 2.0, 0.5, 1.0, 1.0, 1.5])
    rng = np.random.default_rng(5)
    theta = np.concatenate([rng.normal(0, 0.2, len(model.theta())), [0.3, -0.2], [1.2, 0.7]])
    base = rng.normal(5.0, 1.0, 6) if target == "mean" else None

    def loss(t: np.ndarray) -> float:
        return _target_objective(model, batch, gold[:6], t, lam=2.0, target=target, weight=weight, group=group,
                                 groups=2, base=base)[0]

    _, grad = _target_objective(model, batch, gold[:6], theta, lam=2.0, target=target, weight=weight, group=group,
                                groups=2, base=base)
    eps = 1e-6
    nonzero = np.flatnonzero(np.abs(grad) > 1e-6)
    for k in [*nonzero[:5], *range(len(theta) - 4, len(theta))]:
        step = np.zeros_like(theta)
        step[k] = eps
        assert grad[k] == pytest.approx((loss(theta + step) - loss(theta - step)) / (2 * eps), rel=1e-4, abs=1e-5)
    if target in ("norm", "mean", "rank"):
        assert grad[-1] == grad[-2] == 0.0  # scales are fixed at 1


def test_rank_loss_sees_only_the_order_inside_each_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.edit_distance import training
    from explorer.edit_distance.training import rank_loss

    rng = np.random.default_rng(3)
    gold = rng.uniform(0, 5, 40)
    group = np.repeat([0, 1], 20)
    weight = np.ones(40)
    u = rng.normal(0, 1, 40)
    loss, grad = rank_loss(u, gold, group, weight)
    # a shift of one file's predictions changes nothing (the files are ranked apart)
    shifted, _ = rank_loss(u + 3.0 * group, gold, group, weight)
    assert shifted == pytest.approx(loss)
    # predictions in gold order cost less than in reversed order
    assert rank_loss(gold, gold, group, weight)[0] < rank_loss(-gold, gold, group, weight)[0]
    # the gradient is the finite difference, and chunking the couples changes nothing
    eps = 1e-6
    for k in (0, 7, 25):
        step = np.zeros(40)
        step[k] = eps
        fd = (rank_loss(u + step, gold, group, weight)[0] - rank_loss(u - step, gold, group, weight)[0]) / (2 * eps)
        assert grad[k] == pytest.approx(fd, rel=1e-5, abs=1e-7)
    monkeypatch.setattr(training, "_RANK_CHUNK", 3)
    chunked, chunked_grad = rank_loss(u, gold, group, weight)
    assert chunked == pytest.approx(loss) and np.allclose(chunked_grad, grad)


def test_rank_target_fits_an_offset_and_scale_and_lam_per_pairs(toy: tuple[list, np.ndarray]) -> None:
    from explorer.edit_distance.training import TransferSettings, score_values, train_settings

    encoded, gold = toy
    settings = TransferSettings.parse({"kind": "pfsm", "lam": "0.5", "max_iter": "15", "min_count": "1",
                                       "target": "rank", "per_file": "1", "lam_per": "4"})
    assert settings.effective_lam(8) == pytest.approx(1.0) and settings.effective_lam(2) == pytest.approx(0.25)
    model, scale = train_settings(settings, encoded, gold, ["a"] * len(gold))
    pred = score_values(model, encoded, "rank", scale)
    assert scale == 1.0 and model.scale > 0  # the model carries its own scale
    # least-squares level and scale: the training predictions average the gold mean ...
    assert pred.mean() == pytest.approx(gold.mean(), abs=1e-6)
    assert np.corrcoef(pred, gold)[0, 1] > 0
    # ... and the model predicts them itself, also after a round trip through JSON
    assert np.allclose(model.predict_batch(Batch.build(encoded, model.index)), pred)
    again = EditDistanceModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again.scale == pytest.approx(model.scale, rel=1e-5)
    assert np.allclose(again.predict_batch(Batch.build(encoded, again.index)), pred, atol=1e-4)
    with pytest.raises(ModelError, match="scale"):
        EditDistanceModel.from_json({**model.to_json(), "scale": -1})
    with pytest.raises(ValueError, match="lam_per"):
        TransferSettings.parse({"lam_per": "-1"})


def test_target_objective_norm_is_the_papers_objective(toy: tuple[list, np.ndarray]) -> None:
    from explorer.edit_distance.training import _target_objective

    encoded, gold = toy
    index = FeatureIndex.fit(encoded, min_count=1)
    model = EditDistanceModel.zero("ppda", index, max_jump=2)
    batch = Batch.build(encoded, index)
    theta = np.random.default_rng(2).normal(0, 0.2, len(model.theta()))
    paper, _, _ = objective(model, batch, gold, theta, lam=0.5)
    ours, _ = _target_objective(model, batch, gold, np.concatenate([theta, [theta[-1]], [1.0]]), lam=0.5,
                                target="norm", weight=np.ones(len(gold)), group=np.zeros(len(gold), dtype=np.int64),
                                groups=1)
    assert ours == pytest.approx(paper, rel=1e-9)


def test_balanced_weights_and_preprocessing() -> None:
    from explorer.edit_distance.training import prepare_pair, sample_weights

    w = sample_weights(["a", "a", "a", "b"], balance=True)
    assert w[:3].sum() == pytest.approx(w[3]) and w.sum() == pytest.approx(4.0)
    assert np.all(sample_weights(["a", "b"], balance=False) == 1.0)
    pair = Pair(id="p", text="The Cat sat, quietly.", hypothesis="A cat sat!")
    asis = prepare_pair(pair, "asis")
    assert "," in asis.text.tokens and "Cat" in asis.text.tokens
    both = prepare_pair(pair, "lower_nopunct")
    assert both.text.tokens == ("the", "cat", "sat", "quietly") and both.hypothesis.tokens == ("a", "cat", "sat")
    with pytest.raises(ValueError, match="unknown preprocessing"):
        prepare_pair(pair, "stem")


def test_reinsertions_name_words_deleted_and_inserted_unchanged_and_why() -> None:
    from components.figures.edit_sequence import reinsertion_note, reinsertions
    from explorer.edit_distance.model import EditStep

    def step(op: str, t: tuple[int, int] | None, h: tuple[int, int] | None) -> EditStep:
        return EditStep(op, "S_WORD" if op == "SUB" else op, t, h, 0.0, 0, 0, 0)

    # text: "of Ellinby about 400" / hypothesis: "About 400 of Ellinby": matching "about 400"
    # in order leaves "of Ellinby" before it in the text and after it in the hypothesis.
    text, hyp = ["of", "Ellinby", "about", "400"], ["About", "400", "of", "Ellinby"]
    steps = [step("DEL", (0, 1), None), step("DEL", (1, 2), None), step("SUB", (2, 3), (0, 1)),
             step("SUB", (3, 4), (1, 2)), step("INS", None, (2, 3)), step("INS", None, (3, 4))]
    found = reinsertions(steps, text, hyp, [(2, 0), (3, 1)])
    assert [(r.word, r.text_index, r.hyp_index, r.crossing) for r in found] == [
        ("of", 0, 2, True), ("Ellinby", 1, 3, True)]
    note = reinsertion_note(found, "pfsm")
    assert "'of', 'Ellinby'" in note and "left to right" in note
    assert "jump" in reinsertion_note(found, "ppda")
    # Without a crossing link, the note says the weights preferred it; no re-insertion, no note.
    loose = reinsertions(steps, text, hyp, [])
    assert not any(r.crossing for r in loose) and "cross no link" in reinsertion_note(loose, "pfsm")
    assert reinsertion_note(reinsertions(steps[2:4], text, hyp, [(2, 0), (3, 1)]), "pfsm") == ""


# -- reading the hypothesis in the text's order (preorder) ------------------------------------

def _same(text: str, hyp: str) -> np.ndarray:
    t, h = text.split(), hyp.split()
    return np.array([[a == b for b in h] for a in t], dtype=bool).reshape(len(t), len(h))


@pytest.mark.parametrize(("text", "hyp", "read"), [
    ("a b c d", "a b c d", "a b c d"),  # nothing moves
    ("y , x said", "x said y", "y x said"),  # a clause moved to the front comes back
    ("a b c d", "c d q a b", "a b c d q"),  # 'q' is nowhere in the text: it travels with 'd'
    ("p q", "z p w q", "z p w q"),  # only unmatched words between matches: order kept
    ("a a b", "b a a", "a a b"),  # repeated words are each used once
])
def test_reorder_by_matches(text: str, hyp: str, read: str) -> None:
    from explorer.edit_distance.features import reorder_by_matches

    order = reorder_by_matches(_same(text, hyp))
    assert sorted(order) == list(range(len(hyp.split())))
    assert " ".join(hyp.split()[j] for j in order) == read


def _overlap_model(index: FeatureIndex, kind: str, *, preorder: int) -> EditDistanceModel:
    """Exact word matches weigh +4, every other substitution -4, nothing else set."""
    model = EditDistanceModel.zero(kind, index, max_jump=2, preorder=preorder)
    theta = model.theta()
    cols = index.columns()
    theta[cols["sub:S_WORD"]], theta[cols["sub:S_OTHER"]] = 4.0, -4.0
    return model.with_theta(theta)


@pytest.mark.parametrize("kind", ["pfsm", "ppda"])
def test_preorder_makes_word_order_free(kind: str) -> None:
    from explorer.edit_distance.features import reorder_hypothesis

    text = "the old man fed the ducks in the park yesterday"
    moved = "yesterday in the park the old man fed the ducks"
    same, swapped = (analyze_pair(Pair(id=k, text=text, hypothesis=h)) for k, h in (("s", text), ("m", moved)))
    feats = [pair_features(p, similarity=np.zeros((len(p.text), len(p.hypothesis)))) for p in (same, swapped)]
    index = FeatureIndex.fit(feats, min_count=1)
    plain, reading = (_overlap_model(index, kind, preorder=flag) for flag in (0, 1))
    batch = Batch.build(feats, index)
    z_plain = plain.log_z(batch)[0]
    assert z_plain[1] < z_plain[0] - 4.0  # the monotone reading pays for the moved clause
    reordered, order = reorder_hypothesis(feats[1])
    assert " ".join(swapped.hypothesis.tokens[j] for j in order) == text
    z_read = reading.log_z(Batch.build([feats[0], reordered], index))[0]
    assert z_read[1] == pytest.approx(z_read[0], abs=1e-9)  # read in the text's order: the same pair
    # The scorer reads it that way, links identical words at their original positions,
    # and its steps are on the hypothesis as read.
    from explorer.edit_distance import features

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(features, "similarity_matrix", lambda p: np.zeros((len(p.text), len(p.hypothesis))))
        result = EditDistanceScorer(kind, model=reading).score(swapped)
    assert result.reordered and result.hypothesis_order == order
    assert result.reading(swapped.hypothesis.tokens) == tuple(text.split())
    assert len(result.alignment.sure) == len(text.split())
    for i, j in result.alignment.sure:
        assert swapped.text.tokens[i] == swapped.hypothesis.tokens[j]
    assert all(s.hyp_position <= t.hyp_position for s, t in zip(result.steps, result.steps[1:]))
    assert result.value == pytest.approx(float(reading.value(z_read[1], feats[1].n + feats[1].m)))


def test_reordered_features_keep_blocks_only_over_adjacent_words() -> None:
    from explorer.edit_distance.features import reorder_hypothesis
    from explorer.edit_distance.states import C_WORD

    p = analyze_pair(Pair(id="b", text="we visit the web site daily", hypothesis="daily we visit the website"))
    feats = pair_features(p, similarity=np.zeros((len(p.text), len(p.hypothesis))))
    assert any(feats.rows["b21"])  # 'web site' / 'website' is a two-to-one block
    out, order = reorder_hypothesis(feats)
    assert [p.hypothesis.tokens[j] for j in order] == ["we", "visit", "the", "website", "daily"]
    m = feats.m
    for i in range(feats.n):
        for k, j in enumerate(order):
            assert out.rows["sub"][i * m + k] == feats.rows["sub"][i * m + j]
            assert out.rows["b21"][i * m + k] == feats.rows["b21"][i * m + j]
            assert (out.sub_class[i * m + k] == C_WORD) == (p.text.lower[i] == p.hypothesis.lower[j])
            for table in ("b12", "b22"):  # two hypothesis words: kept only if still side by side
                kept = k + 1 < m and order[k + 1] == j + 1
                assert out.rows[table][i * m + k] == (feats.rows[table][i * m + j] if kept else ())
    assert any(out.rows["b21"])
    assert out.rows["ins"] == tuple(feats.rows["ins"][j] for j in order)
    assert out.rows["del"] == feats.rows["del"]


def test_preorder_flag_round_trips_and_is_checked(toy: tuple[list, np.ndarray], tmp_path) -> None:  # type: ignore[no-untyped-def]
    encoded, _ = toy
    index = FeatureIndex.fit(encoded, min_count=1)
    model = _overlap_model(index, "pfsm", preorder=2)
    path = tmp_path / "m.json"
    model.save(path)
    assert json.loads(path.read_text())["preorder"] == 2
    again = EditDistanceModel.load(path)
    assert again.preorder == 2
    assert again.with_scale(2.0).preorder and again.with_theta(again.theta()).preorder
    np.testing.assert_allclose(again.predict_batch(Batch.build([again.prepared(f)[0] for f in encoded], again.index)),
                               model.predict_batch(Batch.build([model.prepared(f)[0] for f in encoded], index)),
                               rtol=1e-4)
    data = json.loads(path.read_text())
    for bad in ("yes", 3, 1.0):
        data["preorder"] = bad
        path.write_text(json.dumps(data))
        with pytest.raises(ModelError, match="preorder must be one of 0, 1, 2"):
            EditDistanceModel.load(path)
    data.pop("preorder")
    path.write_text(json.dumps(data))
    assert EditDistanceModel.load(path).preorder == 0  # older files read the hypothesis as given


def test_swap_sides_reads_the_pair_the_other_way(toy: tuple[list, np.ndarray]) -> None:
    from explorer.edit_distance.features import swap_sides, tie_gaps

    encoded, _ = toy
    tied = [tie_gaps(f) for f in encoded]
    swapped = [swap_sides(f) for f in tied]
    for f, s in zip(tied, swapped):
        assert (s.n, s.m) == (f.m, f.n)
        back = swap_sides(s)
        assert back.rows == f.rows and np.array_equal(back.sub_class, f.sub_class)
    index = FeatureIndex.fit(tied + swapped, min_count=1)
    assert not any(name.startswith(("ins", "del")) for name in index.names)
    model = EditDistanceModel.zero("pfsm", index)
    theta = model.theta()
    theta[: len(index.names)] = np.random.default_rng(0).normal(0, 1, len(index.names))
    model = model.with_theta(theta)  # emission weights only, ins and del tied: a symmetric machine
    np.testing.assert_allclose(model.log_z(Batch.build(tied, index))[0], model.log_z(Batch.build(swapped, index))[0],
                               rtol=1e-9)


def test_soft_preorder_moves_words_without_an_exact_match_by_their_lemma() -> None:
    from explorer.edit_distance.features import reorder_hypothesis
    from explorer.edit_distance.states import C_LEMMA, C_OTHER

    # text "a b c", hypothesis "C' a b" where C' matches c only by lemma
    n, m = 3, 3
    sub_class = np.full(n * m, C_OTHER)
    sub_class[0 * m + 1] = C_WORD  # a = a
    sub_class[1 * m + 2] = C_WORD  # b = b
    sub_class[2 * m + 0] = C_LEMMA  # c ~ C'
    rows = {t: tuple(() for _ in range(n * m)) for t in ("sub", "b12", "b21", "b22")}
    feats = PairFeatures(n=n, m=m, sub_class=sub_class, rows={**rows, "ins": ((),) * m, "del": ((),) * n})
    assert reorder_hypothesis(feats)[1] == (0, 1, 2)  # exact matches only: C' has none and stays in front
    assert reorder_hypothesis(feats, soft=True)[1] == (1, 2, 0)  # its lemma match moves it after b
    # a word with an exact match somewhere is never moved by a soft one
    sub_class[2 * m + 1] = C_LEMMA
    assert reorder_hypothesis(feats, soft=True)[1] == (1, 2, 0)


def test_preorder_option_is_checked() -> None:
    from explorer.edit_distance.training import _Options
    from explorer.training import TrainingOptionError

    assert _Options({"preorder": "2"}).preorder == 2
    with pytest.raises(TrainingOptionError, match="preorder must be 0"):
        _Options({"preorder": "3"})

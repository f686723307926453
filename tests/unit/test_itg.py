"""Tests for the Bracketing ITG biparser (explorer/aligners/itg.py, itg_tree.py) and its figures."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from explorer.aligners import ALIGNERS, get_aligner
from explorer.aligners.itg import BracketingItg, ExactSimilarity, ItgConfig, ItgParse
from explorer.aligners.itg_tree import ItgError, ItgNode, NodeKind
from explorer.alignment import EditKind
from explorer.preprocess import Analysis, analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer


def parse(text: str, hypothesis: str, **config: float) -> tuple[ItgParse, Analysis, Analysis]:
    pair = analyze_pair(make_pair(text, hypothesis))
    result = BracketingItg(ItgConfig(**config)).parse(pair)  # type: ignore[arg-type]
    return result, pair.text, pair.hypothesis


def inverted_nodes(tree: ItgNode | None) -> list[ItgNode]:
    return [n for n in (tree.walk() if tree else []) if n.kind is NodeKind.INVERTED]


# -- hand-checkable biparses --------------------------------------------------------

def test_same_order_needs_no_inversion() -> None:
    result, text, hyp = parse("the old man sold his red car", "the old man sold his car")
    assert inverted_nodes(result.tree) == []
    assert result.alignment.sure == {(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (6, 5)}
    assert result.inversions == 0
    # One unaligned text word ("red") out of 13 words: cost 1 of 13.
    assert result.value == pytest.approx(1 - 1 / 13)


def test_swap_inside_one_constituent_gets_an_inverted_node_there() -> None:
    # The two conjuncts swap places; everything around them keeps its order.
    result, text, hyp = parse(
        "Lena packed warm socks and thick gloves for the trip",
        "Lena packed thick gloves and warm socks for the trip",
    )
    inverted = inverted_nodes(result.tree)
    assert len(inverted) >= 1
    # Every inversion lies inside the conjunction "warm socks and thick gloves" (2..7).
    for node in inverted:
        assert 2 <= node.p_span[0] and node.p_span[1] <= 7
        assert 2 <= node.h_span[0] and node.h_span[1] <= 7
    assert result.tree is not None and result.tree.kind is NodeKind.STRAIGHT
    # All ten words align: only the inversion costs anything.
    assert len(result.alignment.sure) == 10
    assert result.cost == pytest.approx(0.1 * result.inversions)
    assert "<" in result.tree.bracketed(text.tokens, hyp.tokens)


def test_inside_out_permutation_cannot_align_fully() -> None:
    # 2413 is the smallest permutation no ITG can produce: one word must stay unaligned.
    result, _, _ = parse("a b c d", "b d a c")
    assert len(result.alignment.sure) == 3


def test_identical_sentences_score_one_and_no_words_score_zero() -> None:
    same, _, _ = parse("Rain fell on the quiet town .", "Rain fell on the quiet town .")
    assert same.value == pytest.approx(1.0)
    none, _, _ = parse("Rain fell on the town", "Snow covers every hill")
    assert none.value == pytest.approx(0.0)
    assert none.alignment.sure == frozenset()


def test_cheap_text_nulls_raise_the_score_of_a_short_hypothesis() -> None:
    text = "After a long meeting on Tuesday the council approved the new budget for schools"
    plain, _, _ = parse(text, "the council approved the budget")
    cheap, _, _ = parse(text, "the council approved the budget", text_null=0.1)
    assert cheap.value > plain.value
    assert cheap.alignment.sure == plain.alignment.sure


def test_stoplist_keeps_stopwords_out_of_the_links() -> None:
    pair = analyze_pair(make_pair("the cat sat on the mat", "the dog sat on a mat"))
    result = BracketingItg(ItgConfig(stoplist=True)).parse(pair)
    linked_text = {pair.text.lower[p] for p, _ in result.alignment.sure}
    assert linked_text == {"sat", "mat"}
    # Only content words count: cat, sat, mat / dog, sat, mat; 2 of 3 pairs aligned.
    assert result.null_cost == pytest.approx(6.0)
    assert result.value == pytest.approx(4 / 6)


def test_bad_configuration_and_similarity_are_refused() -> None:
    with pytest.raises(ItgError, match="inversion"):
        ItgConfig(inversion=-1)
    with pytest.raises(ItgError, match="min_similarity"):
        ItgConfig(min_similarity=0)

    class Wrong:
        def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
            return np.zeros((1, 1))

    pair = analyze_pair(make_pair("one two", "two"))
    with pytest.raises(ItgError, match="shape"):
        BracketingItg(similarity=Wrong()).parse(pair)


# -- brute force on tiny inputs -----------------------------------------------------

@dataclass(frozen=True)
class FixedSimilarity:
    values: tuple[tuple[float, ...], ...]

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        return np.array(self.values, dtype=float).reshape(len(text), len(hypothesis))


def tiny_problem(rng: random.Random, n_p: int, n_h: int) -> tuple[Analysis, Analysis, FixedSimilarity]:
    text = Analysis(text="", tokens=tuple(f"p{i}" for i in range(n_p)))
    hyp = Analysis(text="", tokens=tuple(f"h{i}" for i in range(n_h)))
    values = tuple(
        tuple(rng.choice([0.0, 0.0, 0.6, 0.8, 1.0]) for _ in range(n_h)) for _ in range(n_p)
    )
    return text, hyp, FixedSimilarity(values)


def grammar_min_cost(sim: np.ndarray, wp: np.ndarray, wh: np.ndarray, inversion: float,
                     threshold: float) -> float:
    """Plain CKY over every split of every span pair, no pruning and no normal form."""

    @cache
    def best(i: int, j: int, u: int, v: int) -> float:
        if i == j or u == v:
            return float(wp[i:j].sum() + wh[u:v].sum())
        options = []
        if j - i == 1 and v - u == 1 and sim[i, u] >= threshold:
            options.append((1 - sim[i, u]) * (wp[i] + wh[u]))
        for s in range(i, j + 1):
            for w in range(u, v + 1):
                if (s, w) not in ((i, u), (j, v)):
                    options.append(best(i, s, u, w) + best(s, j, w, v))
                if (s, w) not in ((i, v), (j, u)):
                    proper = i < s < j and u < w < v
                    options.append(best(i, s, w, v) + best(s, j, u, w) + (inversion if proper else 0.0))
        return min(options)

    n_p, n_h = sim.shape
    return best(0, n_p, 0, n_h)


def is_itg_permutation(perm: list[int]) -> bool:
    """Binarisable iff it contains neither 2413 nor 3142 as a pattern."""
    for idx in itertools.combinations(range(len(perm)), 4):
        values = [perm[k] for k in idx]
        ranks = tuple(sorted(values).index(x) for x in values)
        if ranks in ((1, 3, 0, 2), (2, 0, 3, 1)):
            return False
    return True


def matching_max_gain(sim: np.ndarray, wp: np.ndarray, wh: np.ndarray, threshold: float) -> float:
    """Best total gain over every one-to-one link set whose order an ITG can produce."""
    n_p, n_h = sim.shape
    candidates = [(p, h) for p in range(n_p) for h in range(n_h) if sim[p, h] >= threshold]
    best = 0.0
    for k in range(1, min(n_p, n_h) + 1):
        for links in itertools.combinations(candidates, k):
            ps = [p for p, _ in links]
            hs = [h for _, h in links]
            if len(set(ps)) < k or len(set(hs)) < k:
                continue
            if not is_itg_permutation([h for _, h in sorted(links)]):
                continue
            best = max(best, sum(sim[p, h] * (wp[p] + wh[h]) for p, h in links))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_chart_agrees_with_unpruned_cky(seed: int) -> None:
    rng = random.Random(seed)
    text, hyp, similarity = tiny_problem(rng, rng.randint(1, 5), rng.randint(1, 4))
    config = ItgConfig(text_null=rng.choice([0.1, 1.0]), inversion=rng.choice([0.0, 0.1, 0.7]))
    result = BracketingItg(config, similarity=similarity).parse_analyses(text, hyp)
    sim = similarity.matrix(text, hyp)
    wp = np.full(len(text), config.text_null)
    wh = np.full(len(hyp), config.hypothesis_null)
    expected = grammar_min_cost(sim, wp, wh, config.inversion, config.min_similarity)
    assert result.cost == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("seed", range(12))
def test_without_inversion_cost_the_parse_is_the_best_itg_matching(seed: int) -> None:
    rng = random.Random(100 + seed)
    text, hyp, similarity = tiny_problem(rng, rng.randint(2, 5), rng.randint(2, 5))
    result = BracketingItg(ItgConfig(inversion=0.0), similarity=similarity).parse_analyses(text, hyp)
    sim = similarity.matrix(text, hyp)
    gain = matching_max_gain(sim, np.ones(len(text)), np.ones(len(hyp)), 0.5)
    assert result.null_cost - result.cost == pytest.approx(gain, abs=1e-4)


# -- tree and alignment consistency -------------------------------------------------

def check_tree(node: ItgNode, tokens_seen: list[tuple[str, int]]) -> None:
    if node.kind in (NodeKind.STRAIGHT, NodeKind.INVERTED):
        left, right = node.children
        assert left.p_span[0] == node.p_span[0] and left.p_span[1] == right.p_span[0]
        assert right.p_span[1] == node.p_span[1]
        first, second = (left, right) if node.kind is NodeKind.STRAIGHT else (right, left)
        assert first.h_span[0] == node.h_span[0] and first.h_span[1] == second.h_span[0]
        assert second.h_span[1] == node.h_span[1]
        check_tree(left, tokens_seen)
        check_tree(right, tokens_seen)
        return
    width = (node.p_span[1] - node.p_span[0], node.h_span[1] - node.h_span[0])
    assert width == {NodeKind.LINK: (1, 1), NodeKind.TEXT_NULL: (1, 0), NodeKind.HYP_NULL: (0, 1)}[node.kind]
    tokens_seen += [("p", i) for i in range(*node.p_span)] + [("h", i) for i in range(*node.h_span)]


@pytest.mark.parametrize(
    ("text", "hypothesis"),
    [
        ("Lena packed warm socks and thick gloves for the trip", "For the trip , Lena packed gloves"),
        ("The river , which floods every spring , reached the old bridge .", "The old bridge was reached by the river ."),
        ("x", "y"),
    ],
    ids=["reordered", "passive", "single-words"],
)
def test_tree_covers_every_token_once_and_matches_the_alignment(text: str, hypothesis: str) -> None:
    result, t, h = parse(text, hypothesis)
    assert result.tree is not None
    seen: list[tuple[str, int]] = []
    check_tree(result.tree, seen)
    assert sorted(seen) == sorted([("p", i) for i in range(len(t))] + [("h", i) for i in range(len(h))])
    assert result.tree.p_span == (0, len(t)) and result.tree.h_span == (0, len(h))
    links = {(n.p_span[0], n.h_span[0]) for n in result.tree.leaves() if n.kind is NodeKind.LINK}
    assert links == result.alignment.sure
    kinds = {e.kind for e in result.alignment.edits or ()}
    assert kinds <= {EditKind.EQ, EditKind.SUB, EditKind.DEL, EditKind.INS}
    # The reported cost is the tree's own cost.
    recomputed = (
        sum(1.0 for n in result.tree.leaves() if n.kind is not NodeKind.LINK)
        + 0.1 * len(inverted_nodes(result.tree))
    )
    assert result.cost == pytest.approx(recomputed)


def test_words_without_candidates_are_put_back_into_the_tree() -> None:
    # Long stretches of unmatched words on both sides exercise the compression.
    text = "zz yy The red kite xx ww circled over vv uu the frozen lake tt"
    hypothesis = "qq A kite circled rr over a lake ss"
    result, t, h = parse(text, hypothesis)
    assert result.parsed_size[0] < len(t) and result.parsed_size[1] < len(h)
    assert result.approximation is None
    assert result.alignment.sure == {(4, 2), (7, 3), (8, 5), (13, 7)}
    seen: list[tuple[str, int]] = []
    assert result.tree is not None
    check_tree(result.tree, seen)
    assert len(seen) == len(t) + len(h)


def test_length_guard_approximates_and_says_so() -> None:
    rng = random.Random(3)
    vocabulary = "the a cat dog sat on mat big red ran far near".split()
    text = " ".join(rng.choice(vocabulary) for _ in range(400))
    hypothesis = " ".join(rng.choice(vocabulary) for _ in range(150))
    result, t, h = parse(text, hypothesis)
    assert result.approximation is not None
    seen: list[tuple[str, int]] = []
    assert result.tree is not None
    check_tree(result.tree, seen)
    assert len(seen) == len(t) + len(h)
    assert 0.0 < result.value <= 1.0


def test_lemma_matching_is_an_option() -> None:
    text = Analysis(text="", tokens=("The", "dogs", "were", "barking"))
    hyp = Analysis(text="", tokens=("A", "dog", "barked"))
    # Lemmas given directly, so the test does not load WordNet (which takes seconds).
    text.__dict__["lemmas"] = ("the", "dog", "be", "bark")
    hyp.__dict__["lemmas"] = ("a", "dog", "bark")
    plain = BracketingItg().parse_analyses(text, hyp)
    lemmas = BracketingItg(similarity=ExactSimilarity(lemmas=True)).parse_analyses(text, hyp)
    assert plain.alignment.sure == frozenset()
    assert lemmas.alignment.sure == {(1, 1), (3, 2)}
    assert all(e.kind is not EditKind.EQ for e in lemmas.alignment.edits or () if e.is_aligned)


# -- registries -------------------------------------------------------------------

def test_registered_scorers_and_aligner() -> None:
    pair = analyze_pair(make_pair("Mary met John in Oslo", "John met Mary"))
    for name in ("itg", "itg_stop", "itg_entail"):
        assert name in SCORERS and not SCORERS[name].capabilities.interactive
        value = get_scorer(name).score(pair).value
        assert 0.0 < value <= 1.0
    assert "itg" in ALIGNERS
    result = get_aligner("itg").align(pair)
    assert result.alignment.sure == {(0, 2), (1, 1), (2, 0)}
    assert result.value == get_scorer("itg").score(pair).value


# -- figures and panel ----------------------------------------------------------------

SWAP_TEXT = "Lena packed warm socks and thick gloves for the trip"
SWAP_HYPOTHESIS = "Lena packed thick gloves and warm socks for the trip"


def test_tree_figure_tells_straight_from_inverted_nodes() -> None:
    from components.figures.itg import NODE_STYLE, internal_nodes, tree_figure

    result, text, hyp = parse(SWAP_TEXT, SWAP_HYPOTHESIS)
    assert result.tree is not None
    inverted = inverted_nodes(result.tree)[0]
    figure = tree_figure(result.tree, text.tokens, hyp.tokens, highlight=inverted)
    by_name = {trace.name: trace for trace in figure.data if trace.name}
    straight_name = NODE_STYLE[NodeKind.STRAIGHT][2]
    inverted_name = NODE_STYLE[NodeKind.INVERTED][2]
    assert by_name[inverted_name].marker.symbol != by_name[straight_name].marker.symbol
    assert len(by_name[inverted_name].x) == len(inverted_nodes(result.tree))
    assert len(by_name[straight_name].x) == len(internal_nodes(result.tree)) - len(inverted_nodes(result.tree))
    assert len(by_name[NODE_STYLE[NodeKind.LINK][2]].x) == 10
    dashed = [t for t in figure.data if t.mode == "lines" and t.line.dash == "dash"]
    assert dashed and len([x for x in dashed[0].x if x is None]) == 2 * len(inverted_nodes(result.tree))
    assert "selected node" in by_name
    with pytest.raises(ValueError, match="spans"):
        tree_figure(result.tree, text.tokens[:-1], hyp.tokens)


def test_tree_figure_keeps_the_root_clear_of_the_legend_and_staggers_leaf_labels() -> None:
    from components.figures.itg import tree_figure

    result, text, hyp = parse(SWAP_TEXT, SWAP_HYPOTHESIS)
    assert result.tree is not None
    figure = tree_figure(result.tree, text.tokens, hyp.tokens)
    top = max(y for trace in figure.data if trace.mode == "markers" for y in trace.y)
    assert top < figure.layout.yaxis.range[1]  # the root is inside the plot area ...
    assert figure.layout.legend.y >= 1 and figure.layout.margin.t >= 60  # ... and the legend above it
    labels = next(trace for trace in figure.data if trace.mode == "text")
    assert len(labels.text) == len(result.tree.leaves())
    assert len(set(labels.y)) == 2  # two staggered rows
    assert min(labels.y) > figure.layout.yaxis.range[0]


def test_alignment_figure_outlines_the_chosen_nodes_block() -> None:
    from components.figures.itg import alignment_figure

    result, text, hyp = parse(SWAP_TEXT, SWAP_HYPOTHESIS)
    node = inverted_nodes(result.tree)[0]
    plain = alignment_figure(result, text.tokens, hyp.tokens)
    outlined = alignment_figure(result, text.tokens, hyp.tokens, node=node)
    assert len(outlined.layout.shapes) == len(plain.layout.shapes) + 1
    box = outlined.layout.shapes[-1]
    assert (box.x0, box.x1) == (node.p_span[0] - 0.5, node.p_span[1] - 0.5)
    assert (box.y0, box.y1) == (node.h_span[0] - 0.5, node.h_span[1] - 0.5)


def test_long_null_chains_do_not_recurse_too_deep() -> None:
    # 1,500 unmatched text words around two matches make chains far deeper than
    # Python's recursion limit if anything walked them recursively.
    text = " ".join(["ferry"] + [f"w{k}" for k in range(1500)] + ["harbour"])
    result, t, h = parse(text, "ferry harbour")
    assert result.alignment.sure == {(0, 0), (1501, 1)}
    assert result.tree is not None
    assert result.tree.bracketed(t.tokens, h.tokens).startswith("[")
    seen = [n for n in result.tree.walk() if n.is_leaf]
    assert len(seen) == len(t) + len(h) - 2
    repr(result)


def test_clicked_position_maps_back_to_its_node() -> None:
    from components.figures.itg import layout, node_at

    result, _, _ = parse(SWAP_TEXT, SWAP_HYPOTHESIS)
    assert result.tree is not None
    position = layout(result.tree)
    for node in inverted_nodes(result.tree) + [result.tree]:
        assert node_at(result.tree, *position[id(node)]) is node
    assert node_at(result.tree, -5.0, -5.0) is None


def test_score_command_prints_itg_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from explorer.cli import main

    code = main(["score", "--text", "Mary met John in Oslo", "--hypothesis", "John met Mary",
                 "--scorer", "itg", "--json"])
    assert code == 0
    body = json.loads(capsys.readouterr().out)["scores"]["itg"]
    assert body["links"] == [[0, 2], [1, 1], [2, 0]]
    assert body["inversions"] >= 1
    tree = body["tree"]
    assert tree[0]["p_span"] == [0, 5] and tree[0]["h_span"] == [0, 3]
    assert sum(1 for n in tree if n["kind"] == "link") == 3




def test_a_deep_tree_pickles_flat_and_comes_back_the_same() -> None:
    """The app's workers send parses back pickled; a long null chain is deeper than
    pickle's recursion allows, so a tree pickles as a flat list of nodes."""
    import pickle

    depth = 5_000  # a 5,000-token null chain: five times as deep as pickle's recursion allows
    tree = ItgNode(NodeKind.TEXT_NULL, (depth - 1, depth), (0, 0))
    for k in range(depth - 2, -1, -1):
        tree = ItgNode(NodeKind.STRAIGHT, (k, depth), (0, 0),
                       (ItgNode(NodeKind.TEXT_NULL, (k, k + 1), (0, 0)), tree))
    copy = pickle.loads(pickle.dumps(tree))
    assert [(n.kind, n.p_span, n.h_span, len(n.children), n.similarity) for n in copy.walk()] == \
        [(n.kind, n.p_span, n.h_span, len(n.children), n.similarity) for n in tree.walk()]
    inverted = ItgNode(NodeKind.INVERTED, (0, 2), (0, 2), (ItgNode(NodeKind.LINK, (0, 1), (1, 2), similarity=0.5),
                                                           ItgNode(NodeKind.LINK, (1, 2), (0, 1), similarity=1.0)))
    back = pickle.loads(pickle.dumps(inverted))
    assert [c.p_span for c in back.children] == [(0, 1), (1, 2)] and back.children[0].similarity == 0.5

"""Gold links -> MANLI-reachable phrase edits: the partial (closest reachable) conversion."""

from __future__ import annotations

import itertools
import random

import pytest

from explorer.alignment import Alignment, best_blocks


def covered(blocks: list[tuple[tuple[int, int], tuple[int, int]]]) -> int:
    return sum((p[1] - p[0]) * (h[1] - h[0]) for p, h in blocks)


def test_partial_keeps_what_one_to_one_phrases_can_express() -> None:
    # text 0..4, hypothesis 0..3: p1-2 x h0 is a block, p3 -> h2, and h3 is linked to
    # both p0 and p4, which no one-to-one phrase alignment can hold at once.
    links = {(1, 0), (2, 0), (3, 2), (0, 3), (4, 3)}
    edits, unreachable = Alignment.from_links(5, 4, links).to_phrase_edits(partial=True)
    assert len(unreachable) == 1 and unreachable < {(0, 3), (4, 3)}
    rebuilt = Alignment.from_edits(5, 4, edits)
    assert rebuilt.sure == links - unreachable


def test_partial_splits_an_acronym_component_into_word_links() -> None:
    # A five-word name aligned word by word, and an acronym after it linked to all five
    # hypothesis words: the word links survive, the acronym's five links do not.
    links = {(i, i) for i in range(5)} | {(6, j) for j in range(5)}
    edits, unreachable = Alignment.from_links(7, 5, links).to_phrase_edits(partial=True)
    assert len(unreachable) == 5
    strict_edits, strict_unreachable = Alignment.from_links(7, 5, links).to_phrase_edits()
    assert strict_unreachable == links


def test_blocks_prefer_the_larger_cover() -> None:
    # p0 -> h0,h1 (a 1x2 block) competes with p0-p1 x h0 (2x1) plus p2 -> h1: taking
    # the 1x2 block first would keep 2 links; the best cover keeps 3.
    links = {(0, 0), (0, 1), (1, 0), (2, 1)}
    assert best_blocks(links) == [((0, 2), (0, 1)), ((2, 3), (1, 2))]


def brute_force(links: set[tuple[int, int]]) -> int:
    from explorer.alignment import _full_blocks

    blocks = _full_blocks(links)
    best = 0
    for r in range(len(blocks) + 1):
        for subset in itertools.combinations(blocks, r):
            ps = [p for b in subset for p in range(*b[0])]
            hs = [h for b in subset for h in range(*b[1])]
            if len(ps) == len(set(ps)) and len(hs) == len(set(hs)):
                best = max(best, covered(list(subset)))
    return best


@pytest.mark.parametrize("seed", range(12))
def test_best_blocks_matches_brute_force_on_small_random_link_sets(seed: int) -> None:
    rng = random.Random(seed)
    links = {(rng.randrange(4), rng.randrange(4)) for _ in range(rng.randrange(3, 9))}
    blocks = best_blocks(links)
    ps = [p for b in blocks for p in range(*b[0])]
    hs = [h for b in blocks for h in range(*b[1])]
    assert len(ps) == len(set(ps)) and len(hs) == len(set(hs))
    assert all((p, h) in links for b in blocks for p in range(*b[0]) for h in range(*b[1]))
    assert covered(blocks) == brute_force(links)

"""Counterfactual comparisons: each scorer's change on an edited pair, and the word links
an aligner gains and loses."""

from __future__ import annotations

import pytest

from explorer.alignment import Alignment
from explorer.counterfactual import alignment_diff, compare_scores, describe_link, word_links
from explorer.preprocess import analyze_pair, make_pair


def test_counterfactual_score_changes_and_alignment_diff() -> None:
    original = analyze_pair(make_pair("The cat sat on the mat.", "The cat sat."))
    edited = analyze_pair(make_pair("The cat sat on the mat.", "The dog sat."))
    (row,) = compare_scores(original, edited, ["bleu_pa"])
    assert row.edited is not None and row.original is not None and row.edited < row.original
    assert row.change == pytest.approx(row.edited - row.original)
    (broken,) = compare_scores(original, edited, ["no-such-scorer"])
    assert broken.error and broken.change is None

    before = Alignment.from_links(3, 2, {(0, 0), (1, 1)})
    after = Alignment.from_links(3, 3, {(0, 0), (2, 2)})
    diff = alignment_diff(before, (["the", "cat", "sat"], ["the", "cat"]),
                          after, (["the", "cat", "sat"], ["the", "dog", "sat"]))
    assert {describe_link(link) for link in diff.gained} == {"sat ↔ sat"}
    assert {describe_link(link) for link in diff.lost} == {"cat ↔ cat"}
    assert {describe_link(link) for link in diff.kept} == {"the ↔ the"}
    links = word_links(Alignment.from_links(2, 2, {(1, 1)}), ["a", "a"], ["b", "A"])
    assert {describe_link(link) for link in links} == {"a #2 ↔ a"}
    with pytest.raises(ValueError, match="tokens for a"):
        word_links(before, ["x"], ["y"])

import pytest

from explorer.alignment import Alignment, AlignmentError, Edit, EditKind


def test_edit_links_and_validation():
    edit = Edit(EditKind.SUB, (1, 3), (0, 1))
    assert edit.links() == {(1, 0), (2, 0)}
    assert Edit(EditKind.DEL, (0, 1), None).links() == frozenset()
    with pytest.raises(AlignmentError):
        Edit(EditKind.INS, (0, 1), (0, 1))
    with pytest.raises(AlignmentError):
        Edit(EditKind.EQ, (2, 2), (0, 1))


def test_from_edits_requires_a_partition():
    edits = [Edit(EditKind.EQ, (0, 1), (0, 1)), Edit(EditKind.DEL, (1, 2), None)]
    alignment = Alignment.from_edits(2, 1, edits)
    assert alignment.sure == {(0, 0)}
    with pytest.raises(AlignmentError, match="exactly one edit"):
        Alignment.from_edits(2, 2, edits)


def test_links_must_fit_the_grid():
    with pytest.raises(AlignmentError, match="outside"):
        Alignment.from_links(2, 2, {(2, 0)})


def test_possible_links_that_are_sure_count_as_sure():
    alignment = Alignment.from_links(3, 3, {(0, 0)}, {(0, 0), (1, 1)})
    assert alignment.sure == {(0, 0)} and alignment.possible == {(1, 1)}


def test_to_phrase_edits_merges_blocks_and_reports_unreachable():
    # text:  0 1 2 3 4     hypothesis: 0 1 2 3
    # block p1-2 x h0 (a two-word phrase to one word), p3 -> h2, and a
    # non-contiguous component p0->h3, p4->h3 that no phrase edit can express.
    links = {(1, 0), (2, 0), (3, 2), (0, 3), (4, 3)}
    edits, unreachable = Alignment.from_links(5, 4, links).to_phrase_edits()
    aligned = {(e.p_span, e.h_span) for e in edits if e.is_aligned}
    assert aligned == {((1, 3), (0, 1)), ((3, 4), (2, 3))}
    assert unreachable == {(0, 3), (4, 3)}
    # every token lies in exactly one edit
    rebuilt = Alignment.from_edits(5, 4, edits)
    assert rebuilt.sure == links - unreachable


def test_to_sure_align_string():
    assert Alignment.from_links(3, 2, {(2, 1), (0, 0)}).to_sure_align() == "0-0 2-1"

"""The WER edit script through rapidfuzz's opcodes against the full table it replaced
(:func:`explorer.metrics.wer.edit_table` + :func:`~explorer.metrics.wer.backtrace`, which
the teaching trace still draws): same distances, and every script a valid one."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.alignment import Alignment, Edit, EditKind
from explorer.metrics.wer import backtrace, edit_script, edit_table, levenshtein, wer_tokens

#: Few distinct tokens, so sequences share many and ties between scripts abound; one
#: token differs from another only in case and one is empty.
TOKENS = st.sampled_from(["a", "b", "c", "the", "The", "", "dog", "ß", "a b"])


def table_distance(p: Sequence[str], h: Sequence[str]) -> int:
    return sum(e.kind is not EditKind.EQ for e in backtrace(edit_table(p, h)[1]))


def check_script(p: Sequence[str], h: Sequence[str], edits: Sequence[Edit]) -> None:
    """Edits one token each, in order, covering both sides once; EQ pairs equal tokens,
    SUB different ones; replaying the script on ``p`` gives ``h``."""
    i = j = 0
    rebuilt: list[str] = []
    for edit in edits:
        if edit.kind in (EditKind.EQ, EditKind.SUB):
            assert edit.p_span == (i, i + 1) and edit.h_span == (j, j + 1), (edit, i, j)
            assert (p[i] == h[j]) == (edit.kind is EditKind.EQ), (edit, p[i], h[j])
            rebuilt.append(h[j])
            i, j = i + 1, j + 1
        elif edit.kind is EditKind.DEL:
            assert edit.p_span == (i, i + 1) and edit.h_span is None
            i += 1
        else:
            assert edit.h_span == (j, j + 1) and edit.p_span is None
            rebuilt.append(h[j])
            j += 1
        assert edit.score == float(edit.kind is not EditKind.EQ)
    assert (i, j) == (len(p), len(h))
    assert rebuilt == list(h)


def check_pair(p: Sequence[str], h: Sequence[str]) -> None:
    edits = edit_script(p, h)
    check_script(p, h, edits)
    distance = table_distance(p, h)
    assert sum(e.kind is not EditKind.EQ for e in edits) == distance == levenshtein(p, h)
    result = wer_tokens(p, h)
    assert result.distance == distance
    assert result.alignment.edits == edits
    assert result.alignment == Alignment.from_edits(len(p), len(h), edits)  # what the shortcut skips
    assert (result.substitutions, result.deletions, result.insertions) == tuple(
        sum(e.kind is k for e in edits) for k in (EditKind.SUB, EditKind.DEL, EditKind.INS))
    plain = wer_tokens(p, h, with_alignment=False)
    assert (plain.distance, plain.value, plain.rate) == (result.distance, result.value, result.rate)


@pytest.mark.slow  # 600 generated pairs, each checked against the full tables
@settings(max_examples=600, deadline=None)
@given(st.lists(TOKENS, max_size=25), st.lists(TOKENS, max_size=25))
def test_the_script_is_valid_and_as_long_as_the_tables(p: list[str], h: list[str]) -> None:
    check_pair(p, h)


def test_long_and_lopsided_pairs() -> None:
    import random

    rng = random.Random(11)
    for n, m in ((300, 300), (1000, 20), (20, 1000), (0, 40), (40, 0), (0, 0), (70, 90)):
        p = [rng.choice("abcdefg") for _ in range(n)]
        h = [rng.choice("abcdefg") for _ in range(m)]
        check_pair(p, h)
    same = [str(k % 13) for k in range(500)]
    assert edit_script(same, same) == tuple(Edit(EditKind.EQ, (k, k + 1), (k, k + 1)) for k in range(500))


def test_tokens_are_compared_exactly_not_by_hash() -> None:
    # distinct objects equal as strings are one token; strings equal to another token's
    # number in the vocabulary are not
    p = ["0", "1", "".join(["d", "og"])]
    h = ["dog", "0", "2"]
    check_pair(p, h)
    assert [e.kind for e in edit_script(["x"] * 3, ["x"] * 3)] == [EditKind.EQ] * 3


@pytest.mark.slow  # whole corpora; the generated and the long, lopsided pairs above check the same in test-fast
@pytest.mark.parametrize("name", ["rte1_dev.xml", "rte2_dev.xml", "rte3_dev.xml"])
def test_every_rte_dev_pair(name: str, shared_file) -> None:  # type: ignore[no-untyped-def]
    from explorer.datasets import load
    from explorer.preprocess import analyze_pair

    pairs = load(shared_file("nltk_data", "corpora", "rte", name)).pairs
    for pair in pairs:
        a = analyze_pair(pair)
        check_pair(a.text.lower, a.hypothesis.lower)

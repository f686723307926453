"""The shared bit-vector edit distance against the textbook dynamic programme."""

from __future__ import annotations

import random

from explorer.sequences import edit_distance


def _dp(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def test_agrees_with_the_dynamic_programme_on_random_sequences() -> None:
    rng = random.Random(7)
    for _ in range(500):
        a = rng.choices("abcd", k=rng.randint(0, 70))
        b = rng.choices("abcd", k=rng.randint(0, 70))
        assert edit_distance(a, b) == _dp(a, b)


def test_works_on_words_and_characters_alike() -> None:
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance(["a", "dog", "barked"], ["the", "dog", "barked", "loudly"]) == 2
    assert edit_distance([], ["x", "y"]) == 2

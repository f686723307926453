"""The word-similarity matrix behind an aligner's links (explorer.aligners.similarity_view)."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.aligners import ALIGNERS, get_aligner
from explorer.aligners.similarity_view import SOURCE_LABELS, NoSimilarityError, similarity_view
from explorer.lexical.embedding import is_available
from explorer.limits import LimitError, Limits
from explorer.preprocess import analyze_pair, make_pair

PAIR = analyze_pair(make_pair("The firm bought 5 cars .", "A company purchased five automobiles ."))


@pytest.mark.parametrize("name", [n for n in ALIGNERS if n not in ("embed",) or is_available()])
def test_every_aligner_shows_a_matrix_of_the_pair_shape_with_known_sources(name: str) -> None:
    view = similarity_view(get_aligner(name), PAIR)
    assert view.values.shape == (len(PAIR.text), len(PAIR.hypothesis))
    assert all(source in SOURCE_LABELS for row in view.sources for source in row)
    dot = (PAIR.text.tokens.index("."), PAIR.hypothesis.tokens.index("."))
    assert view.sources[dot[0]][dot[1]] == "identity" and view.values[dot] == pytest.approx(1.0)


def test_the_source_is_the_component_that_gave_the_value() -> None:
    view = similarity_view(get_aligner("bow"), PAIR)  # Levenshtein and static embeddings
    i, j = PAIR.text.tokens.index("cars"), PAIR.hypothesis.tokens.index("automobiles")
    assert view.sources[i][j] in ("levenshtein", "embedding", "")
    assert {s for row in view.sources for s in row} <= {"identity", "levenshtein", "embedding", ""}
    assert np.all((view.values > 0) == np.array([[s != "" for s in row] for row in view.sources]))


@pytest.mark.skipif(not is_available(), reason="the wordllama package (its shipped table) is not installed")
def test_the_embedding_aligner_shows_cosines_named_embedding() -> None:
    view = similarity_view(get_aligner("embed"), PAIR)
    i, j = PAIR.text.tokens.index("cars"), PAIR.hypothesis.tokens.index("automobiles")
    assert view.sources[i][j] == "embedding" and view.label(i, j) == SOURCE_LABELS["embedding"]
    assert 0.3 < view.values[i, j] < 1.0


def test_an_object_without_a_word_similarity_is_refused() -> None:
    with pytest.raises(NoSimilarityError, match="no word-similarity"):
        similarity_view(object(), PAIR)


def test_the_view_is_bounded_like_a_lexical_method() -> None:
    with pytest.raises(LimitError, match="max_word_pairs"):
        similarity_view(get_aligner("bow"), PAIR, limits=Limits(max_word_pairs=4))

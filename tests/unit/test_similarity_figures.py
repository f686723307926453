"""The word-similarity heatmap under an aligner's links, checked without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

from components.figures.similarity import similarity_heatmap
from explorer.alignment import Alignment

TEXT = ["the", "firm", "bought", "cars"]
HYP = ["a", "company", "purchased"]
VALUES = np.array([[0.1, 0.0, 0.0], [0.0, 0.6, 0.05], [0.0, 0.0, 0.9], [-0.1, 0.2, 0.0]])
SOURCES = [["spelling", "none", "none"], ["none", "embedding", "none"], ["none", "none", "WordNet synonym"],
           ["none", "embedding", "none"]]


def _figure(**kwargs):  # type: ignore[no-untyped-def]
    return similarity_heatmap(VALUES, SOURCES, TEXT, HYP, **kwargs)


def test_cells_are_hypothesis_rows_by_text_columns_with_the_value_and_its_source_on_hover() -> None:
    heatmap = _figure().data[0]
    assert np.array(heatmap.z).shape == (len(HYP), len(TEXT))
    assert heatmap.z[2][2] == pytest.approx(0.9)  # hypothesis "purchased" x text "bought"
    hover = heatmap.customdata[1][1]
    assert "firm" in hover and "company" in hover and "0.600" in hover and "embedding" in hover
    assert heatmap.zmin == pytest.approx(-0.1)  # negative cosines stay visible


def test_links_and_gold_are_drawn_on_top_and_named_on_hover() -> None:
    links = Alignment.from_links(len(TEXT), len(HYP), {(1, 1), (2, 2)})
    gold = Alignment.from_links(len(TEXT), len(HYP), sure={(2, 2), (0, 0)})
    figure = _figure(links=links, gold=gold)
    by_name = {trace.name: trace for trace in figure.data[1:]}
    assert sorted(zip(by_name["link (this aligner)"].x, by_name["link (this aligner)"].y)) == [(1, 1), (2, 2)]
    assert sorted(zip(by_name["gold SURE link"].x, by_name["gold SURE link"].y)) == [(0, 0), (2, 2)]
    hover = figure.data[0].customdata
    assert "linked" in hover[2][2] and "gold SURE link" in hover[2][2]
    assert "linked" not in hover[0][0] and "gold SURE link" in hover[0][0]


def test_no_links_no_marker_traces() -> None:
    assert len(_figure().data) == 1


@pytest.mark.parametrize(("values", "sources", "links", "message"), [
    (VALUES[:3], SOURCES, None, "similarity matrix"),
    (VALUES, SOURCES[:3], None, "sources"),
    (VALUES, SOURCES, Alignment(3, 3), "links"),
], ids=["matrix shape", "sources shape", "links shape"])
def test_mismatched_shapes_are_refused(values, sources, links, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        similarity_heatmap(values, sources, TEXT, HYP, links=links)


def test_typed_words_reach_the_hover_and_the_axes_as_text() -> None:
    # A file's tokens are split on white space only: a tag or a quote is one token. Plotly
    # draws a few tags in labels and decodes &lt; &gt; &amp; and numeric entities, not &quot;.
    text = ["<a href='x'>firm</a>", "<b>", "bought", '"cars"']
    figure = similarity_heatmap(VALUES, SOURCES, text, HYP)
    hover = figure.data[0].customdata[0][0]
    assert "&lt;a href='x'&gt;firm&lt;/a&gt;" in hover and "<a " not in hover
    ticks = list(figure.layout.xaxis.ticktext)
    assert ticks == ["&lt;a href='x'&gt;firm&lt;/a&gt;", "&lt;b&gt;", "bought", '"cars"']
    assert '"cars"' in figure.data[0].customdata[0][3]

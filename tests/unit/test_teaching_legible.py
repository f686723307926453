"""The Teach figures' own sizes on a pair near the teaching limit, read from the Plotly
JSON (the browser test ``tests/e2e/test_teach_legible.py`` measures what Chromium draws):
no type under 14 px anywhere, no ``<sub>`` run (drawn at 70%), every word named, column
words that would not fit side by side standing upright, cell text that fits its column,
and a figure's height asked for (``meta.need``) that gives every row a line of its type.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from components.figures.legible import MIN_PX, PLOT_WIDTH, line_px, short_number, text_px, upright
from components.teach_methods import TEACH_METHODS, lesson, trace_of
from explorer.preprocess import analyze_pair, make_pair
from explorer.teaching import TEACHING_MAX_TOKENS

#: Invented sentences, 30 and 27 tokens: the text at the teaching limit, long words among them.
TEXT = ("After the long winter the harbour council of Westerby finally agreed , against the fishermen's "
        "objections , to rebuild the crumbling northern breakwater before the autumn storms arrive .")
HYPOTHESIS = ("The Westerby harbour council will rebuild the northern breakwater , which the fishermen opposed , "
              "before the storms of autumn return to the coast .")


def fonts(node: Any) -> Iterator[float]:
    """Every type size set anywhere in a figure's JSON (``font``/``textfont`` dicts)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("font", "textfont") and isinstance(value, dict) and "size" in value:
                yield float(value["size"])
            yield from fonts(value)
    elif isinstance(node, list):
        for item in node:
            yield from fonts(item)


@pytest.fixture(scope="module")
def lessons() -> dict[tuple[str, bool], list[Any]]:
    pair = analyze_pair(make_pair(TEXT, HYPOTHESIS))
    assert len(pair.text) == TEACHING_MAX_TOKENS and 20 < len(pair.hypothesis) <= TEACHING_MAX_TOKENS
    traces = {method: trace_of(method, None, pair) for method in TEACH_METHODS}
    return {(method, large): lesson(method, traces[method], large=large)
            for method in TEACH_METHODS for large in (False, True)}


@pytest.mark.slow  # the ITG lesson at the teaching limit takes seconds
def test_no_type_under_14_px_and_no_subscript_runs(lessons: dict[tuple[str, bool], list[Any]]) -> None:
    for (method, large), steps in lessons.items():
        for k, step in enumerate(steps):
            figure = step["figure"]
            assert min(fonts(figure)) >= MIN_PX, (method, large, k, sorted(set(fonts(figure))))
            assert "<sub>" not in str(figure), (method, large, k)


@pytest.mark.slow
def test_word_axes_name_every_word_and_stand_upright_when_crowded(lessons: dict[tuple[str, bool], list[Any]]) -> None:
    for (method, large), steps in lessons.items():
        for k, step in enumerate(steps):
            layout = step["figure"]["layout"]
            size = layout["font"]["size"]
            for name, axis in layout.items():
                if not name.startswith("xaxis") or "ticktext" not in axis:
                    continue
                words = axis["ticktext"]
                assert len(words) == len(axis["tickvals"]), (method, k, name)
                across = PLOT_WIDTH * (axis.get("domain", [0, 1])[1] - axis.get("domain", [0, 1])[0])
                if upright(words, size, across) and len(words) > 1:
                    assert axis.get("tickangle") == -90, (method, large, k, name, words[:3])


@pytest.mark.slow
def test_cell_text_fits_its_column_and_rows_get_a_line_each(lessons: dict[tuple[str, bool], list[Any]]) -> None:
    for (method, large), steps in lessons.items():
        for k, step in enumerate(steps):
            figure = step["figure"]
            layout = figure["layout"]
            for trace in figure["data"]:
                if trace.get("type") != "heatmap":
                    continue
                rows, columns = len(trace["y"]), len(trace["x"])
                need = layout["meta"]["need"]
                assert need >= rows * line_px(layout["font"]["size"]), (method, large, k, need, rows)
                if "text" in trace and trace.get("xaxis", "x") == "x" and columns > 8:
                    size = trace["textfont"]["size"]
                    for line in (part for row in trace["text"] for cell in row for part in str(cell).split("<br>")):
                        assert text_px(line, size) <= PLOT_WIDTH / columns + 2, (method, large, k, line, size)


def test_short_numbers_drop_the_leading_zero() -> None:
    assert [short_number(v) for v in (0.523, -0.071, 1.0, 0.0, -0.004)] == [".52", "-.07", "1", "0", "0"]

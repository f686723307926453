"""Teaching-mode figures: one per step of every trace, showing what the step says."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from components.figures.teaching import font_size, step_figure
from explorer.preprocess import analyze_pair, make_pair
from explorer.teaching import METHODS, tracer

TEXT, HYPOTHESIS = "Tomas met Anka <b>at</b> the port.", "Anka met Tomas at the port."


@pytest.fixture(scope="module")
def traces() -> dict[str, object]:
    pair = analyze_pair(make_pair(TEXT, HYPOTHESIS))
    return {method: tracer(method)(pair) for method in METHODS}


def test_every_step_of_every_method_has_a_figure(traces: dict[str, object]) -> None:
    for method, trace in traces.items():
        for k in range(len(trace.steps)):  # type: ignore[attr-defined]
            figure = step_figure(trace, k)
            assert isinstance(figure, go.Figure) and figure.data, (method, k)
        with pytest.raises(IndexError):
            step_figure(trace, len(trace.steps))  # type: ignore[attr-defined]


def test_presentation_layout_has_larger_type(traces: dict[str, object]) -> None:
    for trace in traces.values():
        small, large = step_figure(trace, 0), step_figure(trace, 0, large=True)
        assert small.layout.font.size == font_size(False) < large.layout.font.size == font_size(True)


def test_words_reach_the_figures_escaped(traces: dict[str, object]) -> None:
    for method, axis in (("wer", "y"), ("manli", "x")):  # the text's axis
        labels = [str(x) for x in getattr(step_figure(traces[method], 0).data[0], axis)]
        assert "&lt;<sub>4</sub>" in labels, method  # the tokenizer splits "<b>" into "<", "b", ">"
        assert not any(label.startswith("<") and not label.startswith("<sub>") for label in labels), method


def test_wer_table_fills_row_by_row_and_draws_the_backtrace(traces: dict[str, object]) -> None:
    trace = traces["wer"]
    first = step_figure(trace, 0).data[0]
    assert first.z[0][0] == 0 and all(v is None for v in first.z[1])
    last = step_figure(trace, len(trace.steps) - 1)  # type: ignore[attr-defined]
    assert all(v is not None for row in last.data[0].z for v in row)
    path = next(t for t in last.data if t.name == "backtrace")
    assert len(path.x) == len(trace.edits) + 1  # type: ignore[attr-defined]


def test_bleu_clip_step_draws_the_clipped_counts(traces: dict[str, object]) -> None:
    trace = traces["bleu"]
    k = next(i for i, s in enumerate(trace.steps) if s.phase == "clip")  # type: ignore[attr-defined]
    bars = {t.name: list(t.y) for t in step_figure(trace, k).data}
    assert bars["counted (clipped)"] == [c.clipped for c in trace.steps[k].counts]  # type: ignore[attr-defined]
    final = step_figure(trace, len(trace.steps) - 1)  # type: ignore[attr-defined]
    assert any(f"{trace.value:.3f}" in (s.label.text or "") or f"{trace.value:.3f}" in str(a.text)  # type: ignore[attr-defined]
               for s in final.layout.shapes for a in final.layout.annotations)


def test_itg_ends_in_the_tree_and_marks_the_inversion(traces: dict[str, object]) -> None:
    trace = traces["itg"]
    chart_steps = [i for i, s in enumerate(trace.steps) if s.phase == "span"]  # type: ignore[attr-defined]
    marks = [m for k in chart_steps for row in step_figure(trace, k).data[0].text for m in row]
    assert any("&lt; &gt;" in m for m in marks)  # "Tomas met Anka" / "Anka met Tomas" is inverted
    assert any("[ ]" in m for m in marks)
    tree = step_figure(trace, len(trace.steps) - 1)  # type: ignore[attr-defined]
    assert any(t.name == "inverted" for t in tree.data if t.name) or any(
        getattr(t.line, "dash", None) == "dash" for t in tree.data)


def test_manli_grid_shows_the_steps_links_and_the_score_so_far(traces: dict[str, object]) -> None:
    trace = traces["manli"]
    k = len(trace.steps) - 1  # type: ignore[attr-defined]
    figure = step_figure(trace, k)
    grid = figure.data[0]
    assert sum(v for row in grid.z for v in row) == len(trace.steps[k].links)  # type: ignore[attr-defined]
    score = next(t for t in figure.data if t.name == "score")
    assert len(score.x) == k + 1 and score.y[-1] == trace.steps[k].total  # type: ignore[attr-defined]


def test_edit_lattice_draws_one_segment_per_move_so_far(traces: dict[str, object]) -> None:
    trace = traces["edit"]
    moves = [i for i, s in enumerate(trace.steps) if s.phase in ("op", "return")]  # type: ignore[attr-defined]
    figure = step_figure(trace, moves[2])
    assert len(figure.data) == 1 + 3  # the lattice points and three moves
    widths = [t.line.width for t in figure.data[1:]]
    assert widths[-1] > widths[0]  # the current move stands out


def test_a_title_above_column_labels_gets_room_of_its_own(traces: dict[str, object]) -> None:
    checked = 0
    for trace in traces.values():
        for k in range(len(trace.steps)):  # type: ignore[attr-defined]
            for large in (False, True):
                figure = step_figure(trace, k, large=large)
                if figure.layout.xaxis.side == "top" and figure.layout.title.text:
                    checked += 1
                    # Title (about 60 px) plus the rotated or stacked column labels under it.
                    assert figure.layout.margin.t >= 130, (k, figure.layout.title.text)
    assert checked  # the ITG chart steps have both

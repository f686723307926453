"""Teaching-mode figures: one per step of every trace, valid Plotly, showing what the step says."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import pytest

from components.figures.teaching import font_size
from components.teach_methods import TEACH_METHODS, lesson, trace_of
from explorer.preprocess import analyze_pair, make_pair

TEXT, HYPOTHESIS = "Tomas met Anka <b>at</b> the port.", "Anka met Tomas at the port."


@pytest.fixture(scope="module")
def traces() -> dict[str, Any]:
    pair = analyze_pair(make_pair(TEXT, HYPOTHESIS))
    return {method: trace_of(method, None, pair) for method in TEACH_METHODS}


def figure(traces: dict[str, Any], method: str, index: int, *, large: bool = False) -> dict[str, Any]:
    return TEACH_METHODS[method].step_figure(traces[method], index, large=large).figure


def axes(layout: dict[str, Any]) -> list[dict[str, Any]]:
    return [value for name, value in layout.items() if name.startswith(("xaxis", "yaxis"))]


@pytest.mark.slow  # Plotly validates every step of every lesson, twice
def test_every_step_of_every_method_is_a_valid_plotly_figure(traces: dict[str, Any]) -> None:
    for method, trace in traces.items():
        for k in range(len(trace.steps)):
            for large in (False, True):
                shown = TEACH_METHODS[method].step_figure(trace, k, large=large)
                built = go.Figure(shown.figure)  # Plotly's validation: a misspelt property raises
                assert built.data or method == "itg", (method, k)
                assert shown.caption and "<" not in shown.caption.replace("< >", ""), (method, k, shown.caption)
        with pytest.raises(IndexError):
            TEACH_METHODS[method].step_figure(trace, len(trace.steps))


def test_a_lesson_is_plain_json_with_a_sentence_caption_and_figure_per_step(traces: dict[str, Any]) -> None:
    import json

    for method, trace in traces.items():
        steps = lesson(method, trace, large=True)
        explains = [s.explain for s in trace.steps]  # every step says one of the trace's steps (or runs of them)
        assert all(any(e in s["sentence"] for e in explains) for s in steps) and len(steps) <= len(explains)
        assert steps[0]["sentence"].startswith(TEACH_METHODS[method].asks + " " + explains[0][:20])
        assert json.loads(json.dumps(steps)) == steps  # nothing numpy or Plotly-typed left


def test_presentation_layout_has_larger_type(traces: dict[str, Any]) -> None:
    for method in traces:
        small, large = figure(traces, method, 0), figure(traces, method, 0, large=True)
        assert small["layout"]["font"]["size"] == font_size(False) < large["layout"]["font"]["size"] == font_size(True)


def test_labels_grow_the_margins_and_no_title_sits_over_them(traces: dict[str, Any]) -> None:
    # Row labels were cut off in the presentation layout, and a title printed over the
    # column labels at the top: every axis makes room for its labels, the caption is the title.
    for method, trace in traces.items():
        for k in range(len(trace.steps)):
            layout = figure(traces, method, k, large=True)["layout"]
            assert "title" not in layout or not layout["title"].get("text"), (method, k)
            for axis in axes(layout):
                assert axis.get("automargin") is True or axis.get("visible") is False, (method, k, axis)


def test_words_reach_the_figures_escaped(traces: dict[str, Any]) -> None:
    for method, axis in (("wer", "y"), ("manli", "x")):  # the text's axis
        labels = [str(x) for x in figure(traces, method, 0)["data"][0][axis]]
        assert "&lt;₄" in labels, method  # the tokenizer splits "<b>" into "<", "b", ">"
        assert not any("<" in label for label in labels), method


def test_wer_table_fills_row_by_row_and_draws_the_backtrace(traces: dict[str, Any]) -> None:
    trace = traces["wer"]
    first = figure(traces, "wer", 0)["data"][0]
    assert first["z"][0][0] == 0 and all(v is None for v in first["z"][1])
    last = figure(traces, "wer", len(trace.steps) - 1)
    assert all(v is not None for row in last["data"][0]["z"] for v in row)
    path = next(t for t in last["data"] if t.get("name") == "backtrace")
    assert len(path["x"]) == len(trace.edits) + 1


def test_bleu_clip_step_draws_the_clipped_counts(traces: dict[str, Any]) -> None:
    trace = traces["bleu"]
    k = next(i for i, s in enumerate(trace.steps) if s.phase == "clip")
    bars = {t["name"]: list(t["y"]) for t in figure(traces, "bleu", k)["data"]}
    assert bars["counted (clipped)"] == [c.clipped for c in trace.steps[k].counts]
    final = figure(traces, "bleu", len(trace.steps) - 1)["layout"]
    assert any(f"{trace.value:.3f}" in a["text"] for a in final["annotations"])


def test_itg_ends_in_the_tree_and_marks_the_inversion(traces: dict[str, Any]) -> None:
    trace = traces["itg"]
    chart_steps = [i for i, s in enumerate(trace.steps) if s.phase == "span"]
    marks = [m for k in chart_steps for row in figure(traces, "itg", k)["data"][0]["text"] for m in row]
    assert any("&lt; &gt;" in m for m in marks)  # "Tomas met Anka" / "Anka met Tomas" is inverted
    assert any("[ ]" in m for m in marks)
    tree = figure(traces, "itg", len(trace.steps) - 1)
    assert any(t.get("line", {}).get("dash") == "dash" for t in tree["data"])  # the inverted node's lines
    assert "template" not in tree["layout"]  # plotly.js's defaults, like every other step


def test_manli_grid_shows_the_steps_links_and_the_score_so_far(traces: dict[str, Any]) -> None:
    trace = traces["manli"]
    k = len(trace.steps) - 1
    shown = figure(traces, "manli", k)
    grid = shown["data"][0]
    assert sum(v for row in grid["z"] for v in row) == len(trace.steps[k].links)
    score = next(t for t in shown["data"] if t.get("name") == "alignment score")
    assert len(score["x"]) == k + 1 and score["y"][-1] == trace.steps[k].total
    # The score axis is fixed for the whole walk, so a step down looks like one.
    for axis in ("yaxis2", "yaxis3"):  # and the temperature's
        assert len({tuple(figure(traces, "manli", i)["layout"][axis]["range"]) for i in (1, k)}) == 1, axis


def test_edit_lattice_draws_one_segment_per_move_so_far_named_in_words(traces: dict[str, Any]) -> None:
    trace = traces["edit"]
    moves = [i for i, s in enumerate(trace.steps) if s.phase in ("op", "return")]
    shown = figure(traces, "edit", moves[2])
    segments = [t["x"].count(None) for t in shown["data"][1:]]
    assert sum(segments) == 3  # three moves so far, grouped by kind into a few traces
    current = shown["data"][-1]
    assert segments[-1] == 1 and current["x"][:2] == [trace.steps[moves[2]].start[0], trace.steps[moves[2]].end[0]]
    assert all(current["line"]["width"] > t["line"]["width"] for t in shown["data"][1:-1])  # it stands out
    last = figure(traces, "edit", len(trace.steps) - 1)
    names = {t["name"] for t in last["data"][1:] if t.get("showlegend")}
    assert names and not any(name.startswith(("S_", "JUMP")) or name in ("DEL", "INS") for name in names)
    caption = TEACH_METHODS["edit"].step_figure(trace, 0).caption
    assert caption.startswith("pPDA edit lattice") and "ppda" not in caption


def test_a_files_tokens_show_as_given_in_every_lesson() -> None:
    # A file's tokens (MSR, Edinburgh++) are split on white space only, so one may hold a
    # quote or a tag. Plotly decodes &lt; &gt; &amp; and numeric entities but not &quot;:
    # a quote escaped as an entity showed as "&quot;" on the figure.
    import json

    from explorer.pairs import Pair

    tokens = ('"Anka"', "met", "<b>Tomas</b>", "&", "co.")
    pair = analyze_pair(Pair("q1", " ".join(tokens), "Anka met Tomas.", text_tokens=tokens,
                             hypothesis_tokens=("Anka", "met", "Tomas", ".")))
    for method in TEACH_METHODS:
        figures = json.dumps([step["figure"] for step in lesson(method, trace_of(method, None, pair), large=False)])
        assert "&quot;" not in figures and "<b>Tomas" not in figures, method  # the sentences are set as text
    labels = [str(x) for x in figure({"wer": trace_of("wer", None, pair)}, "wer", 0)["data"][0]["y"]]
    assert '"Anka"₁' in labels and "&lt;b&gt;Tomas&lt;/b&gt;₃" in labels

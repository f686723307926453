"""The method panels under Streamlit's AppTest: each on its own pair, and every
registered panel drawn twice on one page under two keys."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.panels import PANELS
from explorer import resources
from tests.deadline import DEADLINE

#: A paraphrase whose pFSM and pPDA best sequences draw the same figures: without keyed
#: charts, the Edit distance tab crashed with StreamlitDuplicateElementId.
PARAPHRASE = ("John bought a new car last week.", "Last week, John purchased a new automobile.")


def _every_panel_twice(text: str, hypothesis: str, names: list[str]) -> None:
    from components.panels import PANELS
    from explorer.preprocess import analyze_pair, make_pair

    pair = analyze_pair(make_pair(text, hypothesis))
    for name in names:
        for key in (f"first_{name}", f"second_{name}"):
            PANELS[name].render(pair, key=key)


def test_every_panel_draws_the_paraphrase_twice_on_one_page(uniform_nist: None) -> None:
    names = list(PANELS)
    at = AppTest.from_function(_every_panel_twice, args=(*PARAPHRASE, names), default_timeout=DEADLINE).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    keys = [c.key for c in at.get("plotly_chart")]
    assert len(keys) == len(set(keys))
    for name in names:
        first = sorted(k.removeprefix(f"first_{name}") for k in keys if k.startswith(f"first_{name}_"))
        second = sorted(k.removeprefix(f"second_{name}") for k in keys if k.startswith(f"second_{name}_"))
        assert first and first == second, name  # each panel draws its charts under its own key
    # 'Last week' moved to the front: the edit-distance panel says the models read the
    # hypothesis in the text's order, and in which order.
    read = [c.value for c in at.caption if "reads the hypothesis in the text's order" in c.value]
    assert read and all("John purchased a new automobile" in c for c in read)


def test_the_paraphrase_on_the_pair_page_draws_every_tab() -> None:
    from pathlib import Path

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=DEADLINE).run()
    at.text_area(key="pair_text").set_value(PARAPHRASE[0])
    at.text_area(key="pair_hypothesis").set_value(PARAPHRASE[1]).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert [t.label for t in at.tabs][-len(PANELS):] == [p.label for p in PANELS.values()]
    # Every tab is drawn at once (switching tabs stays in the browser), each panel's charts
    # inside its own tab.
    tabs = {t.label: t for t in at.tabs}
    keys: set[str] = set()
    for panel in PANELS.values():
        drawn = {c.key for c in tabs[panel.label].get("plotly_chart")}
        assert all(k.startswith(panel.name) for k in drawn), (panel.name, drawn)
        keys |= drawn
    assert {"edit_pfsm_sequence", "edit_ppda_sequence", "bow_grid", "itg_tree"} <= keys


def _panel_on_a_gold_pair(name: str, text: str, hypothesis: str, links: set[tuple[int, int]]) -> None:
    from components.panels import PANELS
    from explorer.alignment import Alignment
    from explorer.pairs import Pair
    from explorer.preprocess import analyze_pair

    text_tokens, hypothesis_tokens = tuple(text.split()), tuple(hypothesis.split())
    gold = Alignment.from_links(len(text_tokens), len(hypothesis_tokens), links)
    pair = Pair(id="g", text=text, hypothesis=hypothesis, text_tokens=text_tokens,
                hypothesis_tokens=hypothesis_tokens, gold_alignment=gold)
    PANELS[name].render(analyze_pair(pair), key=name)


def _drawn_on_a_gold_pair(name: str, text: str, hypothesis: str, links: set[tuple[int, int]]) -> AppTest:
    at = AppTest.from_function(_panel_on_a_gold_pair, args=(name, text, hypothesis, links), default_timeout=DEADLINE).run()
    assert not at.exception, at.exception
    return at


def test_bow_panel_draws_grid_against_gold_and_contributions() -> None:
    at = _drawn_on_a_gold_pair("bow", "Kim bought red bikes", "Kim purchased bikes", {(0, 0), (1, 1), (3, 2)})
    assert [c.key for c in at.get("plotly_chart")] == ["bow_grid", "bow_contributions"]
    assert at.metric[0].label == "Bag-of-words score"


def test_manli_panel_draws_grid_edits_and_contributions() -> None:
    at = _drawn_on_a_gold_pair("manli", "Kim bought two red bikes", "Kim purchased bikes", {(0, 0), (1, 1), (4, 2)})
    assert [c.key for c in at.get("plotly_chart")] == ["manli_grid", "manli_contributions"]
    assert at.metric[0].label == "Alignment score"
    edits = at.dataframe[0].value
    total = float(at.metric[0].value)
    assert edits["score"].sum() == pytest.approx(total, abs=2e-3)
    aligned = edits[edits["edit"].isin(["EQ", "SUB"])]
    assert {"Kim", "bikes"} <= set(aligned["text"])


def _itg_script() -> None:
    from components.panels.itg import render_itg_panel
    from explorer.preprocess import analyze_pair, make_pair

    render_itg_panel(analyze_pair(make_pair(
        "Lena packed warm socks and thick gloves for the trip",
        "Lena packed thick gloves and warm socks for the trip",
    )))


def test_itg_panel_runs_and_lets_the_user_pick_a_node() -> None:
    app = AppTest.from_function(_itg_script, default_timeout=DEADLINE)
    app.run()
    assert not app.exception
    node_box = app.selectbox(key="itg_node_itg")
    assert node_box.value is not None
    assert {m.label for m in app.metric} >= {"ITG score", "inversions"}
    node_box.set_value(0).run()
    assert not app.exception
    app.selectbox(key="itg_variant").set_value("itg_stop").run()
    assert not app.exception


def _long_itg_script() -> None:
    from components.panels.itg import render_itg_panel
    from explorer.preprocess import analyze_pair, make_pair

    words = "the ferry left the harbour at dawn and reached the island by noon".split()
    text = " ".join(words[k % len(words)] + ("" if k % 7 else " again") for k in range(900))
    render_itg_panel(analyze_pair(make_pair(text, " ".join(words * 12))))


def test_itg_panel_on_a_pasted_document_approximates_and_skips_unreadable_figures() -> None:
    app = AppTest.from_function(_long_itg_script, default_timeout=DEADLINE)
    app.run()
    assert not app.exception
    assert any("approximated" in w.value for w in app.warning)
    notes = " ".join(i.value for i in app.info)
    assert "too many to draw" in notes and "not drawn" in notes
    assert not app.get("plotly_chart")


def test_mtmetrics_panel_renders(uniform_nist: None) -> None:
    def page() -> None:
        from components.panels.mtmetrics import render_mtmetrics_panel
        from explorer.preprocess import analyze_pair, make_pair

        render_mtmetrics_panel(analyze_pair(make_pair("Ships left the harbour at dawn.", "At dawn the ships sailed.")))

    app = AppTest.from_function(page, default_timeout=DEADLINE).run()
    assert not app.exception
    assert len(app.dataframe) == 1
    table = app.dataframe[0].value
    assert list(table["metric"])[:3] == ["WER", "PER", "BLEU1"]


def test_mtmetrics_wer_grid_is_built_only_once_opened(uniform_nist: None) -> None:
    """The WER grid's expander starts closed and its grid is not built (every Pair page run
    of a class server would pay for it); opening it reruns the page with the grid."""
    def page() -> None:
        from components.panels.mtmetrics import render_mtmetrics_panel
        from explorer.preprocess import analyze_pair, make_pair

        render_mtmetrics_panel(analyze_pair(make_pair("Ships left the harbour at dawn.", "At dawn the ships sailed.")),
                               key="mt")

    app = AppTest.from_function(page, default_timeout=DEADLINE).run()
    closed = app.get("plotly_chart")
    app.session_state["mt_wer_grid_open"] = True  # what the browser sends on opening it
    app.run()
    assert not app.exception
    assert len(app.get("plotly_chart")) == len(closed) + 1


def _combined_panel() -> None:
    from components.panels.combined import render_combined_panel
    from explorer.preprocess import analyze_pair, make_pair

    render_combined_panel(analyze_pair(make_pair("The firm sold 40 cars in May.", "Toyota sold 40 cars.")))


@pytest.mark.skipif(not resources.is_available("averaged_perceptron_tagger_eng"),
                    reason="needs the POS tagger (a capitalised word read as a name): ../shared or nltk.download")
def test_combined_panel_lists_and_draws_the_pushes() -> None:
    from components.figures.combined import push_bars
    from components.panels.combined import contribution_rows
    from explorer.combined import CombinedScorer
    from explorer.preprocess import analyze_pair, make_pair

    assert PANELS["combined"].function == "render_combined_panel"
    at = AppTest.from_function(_combined_panel, default_timeout=DEADLINE).run()
    assert not at.exception, at.exception
    assert at.metric[0].label == "Probability of entailment"
    table = at.dataframe[0].value
    scorer = CombinedScorer()
    assert set(table["feature"]) == set(scorer.model.features)
    # The caption names the model's own features, not a family it does not use.
    caption = at.caption[0].value
    assert f"over {len(scorer.model.features)} features" in caption
    assert all(feature in caption for feature in scorer.model.features)
    pushes = list(table["push"])
    assert pushes == sorted(pushes, key=abs, reverse=True)
    # "Toyota" is a hypothesis name the text never mentions: it pushes towards "does not entail"
    names = table[table["feature"] == "manli:unaligned_names"].iloc[0]
    assert names["value"] == 1 and names["push"] < 0 and names["towards"] == "does not entail"
    result = scorer.score(analyze_pair(make_pair("The firm sold 40 cars in May.", "Toyota sold 40 cars.")))
    assert [r["feature"] for r in contribution_rows(result, top=2)] == [c.feature for c in result.contributions[:2]]
    bars = push_bars(result.contributions, result.intercept, top=2).data[0]
    assert list(bars.y) == [c.feature for c in result.contributions[:2]] + ["other features", "intercept"]
    assert sum(bars.x) == pytest.approx(result.decision)


@pytest.mark.skipif(not (resources.is_available("wordnet") and resources.is_available("averaged_perceptron_tagger_eng")),
                    reason="needs WordNet and the POS tagger (lemmas): ../shared or nltk.download")
def test_edit_distance_links_say_why_a_lemma_match_is_eq() -> None:
    from components.panels.edit_distance import match_note
    from explorer.alignment import EditKind
    from explorer.preprocess import analyze_pair, make_pair
    from explorer.scorers import get_scorer

    pair = analyze_pair(make_pair("The old bridge was closed on Monday.", "The bridge is closed."))
    result = get_scorer("pfsm").score(pair)
    note = match_note(result, pair.text.tokens, result.reading(pair.hypothesis.tokens))
    assert "Here “was” → “is” is a lemma match" in note and "hence EQ below" in note
    was = next(e for e in result.alignment.edits if e.p_span == (3, 4))
    assert was.kind is EditKind.EQ  # what the note explains: S_LEMMA in the sequence, EQ in the links
    plain_pair = analyze_pair(make_pair("The bridge closed.", "The bridge closed."))
    plain_result = get_scorer("pfsm").score(plain_pair)
    assert "Here" not in match_note(plain_result, plain_pair.text.tokens, plain_pair.hypothesis.tokens)


def _heatmap_cells(chart: object) -> int:
    import json

    spec = json.loads(chart.proto.spec)  # type: ignore[attr-defined]
    return max((sum(len(row) for row in trace.get("z") or ()) for trace in spec["data"]
                if trace.get("type") == "heatmap"), default=0)


@pytest.mark.slow
def test_no_panel_builds_a_grid_past_the_cell_limit() -> None:
    """A 420 x 50-token pair (21,000 cells) inside every method's limits: no panel builds a
    token grid in the server (about 1 s of its interpreter each at 1,999 x 50); each says why
    and lists its links instead."""
    from components.figures.alignment import MAX_GRID_CELLS

    words = "the ferry left the harbour at dawn and reached the island by noon".split()
    text = " ".join(words[k % len(words)] for k in range(420))
    hypothesis = " ".join(words[(3 * k) % len(words)] for k in range(50))
    assert 420 * 50 > MAX_GRID_CELLS
    from pathlib import Path

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=DEADLINE).run()
    at.text_area(key="pair_text").set_value(text)
    at.text_area(key="pair_hypothesis").set_value(hypothesis).run()
    assert not at.exception, at.exception
    charts = at.get("plotly_chart")
    assert charts  # the figures that do not grow with both sides are still drawn
    assert all(_heatmap_cells(c) <= MAX_GRID_CELLS for c in charts), [c.key for c in charts if _heatmap_cells(c)]
    skipped = [i.value for i in at.info if "so it is not drawn" in i.value]
    assert len(skipped) >= 4, skipped  # bow, MANLI, WER, pFSM, pPDA, embed, similarity: those not refused
    assert all("21,000 cells" in s for s in skipped)
    assert any("-" in c.value for c in at.code)  # the links, as text-hypothesis positions


@pytest.mark.slow
@pytest.mark.parametrize("wanted", [None, "MANLI"])
def test_a_class_server_draws_only_the_open_tab(monkeypatch: pytest.MonkeyPatch, wanted: str | None) -> None:
    """``EXPLORER_TABS=open`` (what ``make serve-class`` sets): only the open tab's panel is
    drawn, the one the link names or the first."""
    from pathlib import Path

    from components.pages.pair import TAB_PARAM, TABS_ENV

    monkeypatch.setenv(TABS_ENV, "open")
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=DEADLINE)
    if wanted:
        at.query_params[TAB_PARAM] = wanted
    at.run()
    at.text_area(key="pair_text").set_value(PARAPHRASE[0])
    at.text_area(key="pair_hypothesis").set_value(PARAPHRASE[1]).run()
    assert not at.exception, at.exception
    tabs = {t.label: t for t in at.tabs}
    assert [p.label for p in PANELS.values()] == [t for t in tabs if t in {p.label for p in PANELS.values()}]
    open_label = wanted or next(iter(PANELS.values())).label
    drawn = {label for label, tab in tabs.items() if label in {p.label for p in PANELS.values()} and len(tab.children)}
    assert drawn == {open_label}

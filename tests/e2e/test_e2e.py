"""End-to-end annotation test in a real browser: Playwright drives Debian's headless
Chromium against ``streamlit run app.py`` on a free localhost port, with the store in a
temporary folder. It loads a dataset (an upload), opens a pair, tags it and writes a
note, reloads the page and loads the same file again to find both persisted, edits an alignment link by clicking the
grid and saves it, finds that persisted too, then
downloads the Errors page's annotations CSV and checks its contents.

With ``E2E_SCREENSHOTS=DIR`` it also saves the screenshots the README shows.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deadline import DEADLINE_MS
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, ROOT, require_chromium, served_app, settle, watch_runs

STEP = DEADLINE_MS  # ms per browser wait (tests/deadline.py)
DATA = ROOT / "sample_data" / "pairs.csv"
NOTE = "the hypothesis adds an arrest the text never mentions"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The app on a free port with its store in ``tmp_path``; yields (url, store path)."""
    require_chromium()
    store = tmp_path / "store.sqlite3"
    with served_app({"ENTAILMENT_EXPLORER_STORE": str(store), "ENTAILMENT_EXPLORER_AUTHOR": "e2e"}) as url:
        yield url, store


def _settle(page) -> None:  # type: ignore[no-untyped-def]
    """The page settled (:func:`tests.e2e.browser.settle`), so locators match exactly one element."""
    settle(page, STEP)


def _first_pair_token_counts() -> tuple[int, int]:
    from explorer.preprocess import tokenize

    with DATA.open(newline="") as handle:
        first = next(csv.DictReader(handle))
    return len(tokenize(first["text"])), len(tokenize(first["hypothesis"]))


def _load_dataset_and_open_first_pair(page) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("link", name="Dataset").click()
    page.wait_for_selector("h1:has-text('Dataset')", timeout=STEP)
    _settle(page)
    page.get_by_test_id("stRadio").get_by_text("Upload a file").click()
    _settle(page)
    page.locator("input[type=file]").set_input_files(str(DATA))
    page.get_by_text("pairs.csv (uploaded file)").first.wait_for(timeout=STEP)
    _settle(page)
    page.get_by_role("button", name="Open on the Pair page").click()
    page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
    page.get_by_text("of pairs.csv").first.wait_for(timeout=STEP)
    page.get_by_text("Stored tags:").wait_for(timeout=STEP)  # the annotation form is drawn
    _settle(page)


def test_tag_persist_and_export_in_chromium(served: tuple[str, Path]) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    url, store_path = served
    shots = os.environ.get("E2E_SCREENSHOTS")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            watch_runs(page)
            page.set_default_timeout(STEP)
            errors: list[str] = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(url, wait_until="domcontentloaded", timeout=STEP)
            page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
            _settle(page)

            # Load a dataset, open a pair, tag it and write a note.
            _load_dataset_and_open_first_pair(page)
            tags = page.get_by_test_id("stMultiSelect").filter(has_text="Tags").first
            tags.locator("input").click()
            tags.locator("input").press_sequentially("world-know")
            page.get_by_role("option", name="world-knowledge").wait_for(timeout=STEP)
            tags.locator("input").press("Enter")
            page.keyboard.press("Escape")
            page.get_by_label("Add a note", exact=True).fill(NOTE)
            page.get_by_role("button", name="Save annotation").click()
            page.get_by_text("Stored tags: world-knowledge").wait_for(timeout=STEP)
            _settle(page)
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.get_by_text("Stored tags").scroll_into_view_if_needed()
                page.screenshot(path=str(Path(shots) / "pair-annotation.png"))

            # Edit the alignment: click the grid's top-left cell (first text token, first
            # hypothesis token) to add that link, then save it.
            page.get_by_role("tab", name="Alignment").click()
            page.get_by_text("Edit this pair's alignment").click()
            _settle(page)
            # The editor's chart (its key names it); the method panels' grids come later.
            plot = page.locator("[class*='st-key-align_edit_'] .js-plotly-plot .nsewdrag").first
            plot.wait_for(timeout=STEP)
            # Mouse clicks use viewport coordinates: bring the grid on screen first (the
            # Pair page above it grows with every registered scorer).
            plot.scroll_into_view_if_needed()
            _settle(page)
            box = plot.bounding_box()
            assert box is not None
            p_len, h_len = _first_pair_token_counts()
            # On a loaded machine Plotly may attach its click handlers after the chart is
            # drawn, and a click before that is lost: click again only while the editor
            # still shows no link (a second click after a registered one would remove it).
            linked = page.get_by_test_id("stMetricValue").filter(has_text=f"1 / {h_len}")
            _settle(page)
            for attempt in range(3):
                page.mouse.click(box["x"] + box["width"] / (2 * p_len), box["y"] + box["height"] / (2 * h_len))
                try:
                    linked.wait_for(timeout=STEP // 3)
                    break
                except PlaywrightTimeout:
                    _settle(page)
                    plot.scroll_into_view_if_needed()
                    box = plot.bounding_box() or box
                    if linked.count() or attempt == 2:
                        linked.wait_for(timeout=STEP)
                        break
            _settle(page)
            page.get_by_role("button", name="Save as corrected alignment").click()
            page.get_by_text("Saved correction: 1 links").wait_for(timeout=STEP)
            if shots:  # the grid with its new link at the top, the saved correction below it
                plot.evaluate("e => e.closest('.js-plotly-plot').scrollIntoView({block: 'start'})")
                page.get_by_text("Saved correction").wait_for(timeout=STEP)
                page.screenshot(path=str(Path(shots) / "alignment-editor.png"))

            # Reload: a new session. Loading the same file again brings the annotation back.
            page.reload(wait_until="domcontentloaded")
            page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
            _settle(page)
            _load_dataset_and_open_first_pair(page)
            page.get_by_text("Stored tags: world-knowledge").wait_for(timeout=STEP)
            page.get_by_text(NOTE).wait_for(timeout=STEP)
            page.get_by_role("tab", name="Alignment").click()
            page.get_by_text("Edit this pair's alignment").click()
            page.get_by_text("Saved correction: 1 links").wait_for(timeout=STEP)

            # The Errors page: the cross-tab counts it, the CSV export carries it.
            page.get_by_role("link", name="Errors").click()
            page.wait_for_selector("h1:has-text('Errors')", timeout=STEP)
            page.get_by_text("Tags by outcome").wait_for(timeout=STEP)
            _settle(page)
            if shots:
                page.screenshot(path=str(Path(shots) / "errors.png"), full_page=True)
            with page.expect_download(timeout=STEP) as info:
                page.get_by_role("button", name="Annotations as CSV").click()
            rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text())))
            assert [r["pair_id"] for r in rows] == ["1"]
            assert rows[0]["tags"] == "world-knowledge"
            assert rows[0]["notes"] == f"e2e: {NOTE}"
            assert rows[0]["label"] == "entailment" and rows[0]["outcome"] in ("correct", "incorrect")
            assert rows[0]["has_corrected_alignment"] == "True"
            assert page.locator("[data-testid='stException']").count() == 0
            assert not errors, errors
        finally:
            browser.close()
    assert store_path.is_file()  # the store went where it was told, not to the user's folder

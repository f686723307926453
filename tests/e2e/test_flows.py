"""The app's main flows in a real browser (Playwright + Debian's Chromium against
``streamlit run app.py``):

- export: a figure's modebar camera saves SVG once SVG is chosen in the sidebar; the Pair
  page's full analysis downloads as one HTML file that opens offline with every figure,
  and a ``<script>`` typed into a sentence stays text there (it never runs);
- state: a reload keeps the dataset, the pair, the decision's method and the open method
  tab (URL), and the Dataset filters survive a visit to another page;
- annotation: a note typed and not yet saved survives a switch to another annotation tab.

One server for the module (starting one takes a while on a shared machine).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deadline import DEADLINE_MS
from tests.e2e.browser import checked_page
from tests.e2e.browser import settle as settle_page

STEP = DEADLINE_MS  # ms per browser wait (tests/deadline.py)
HOSTILE = "Ann sold <script>window.pwned = 1</script> her car on Monday."


@pytest.fixture
def page(app_url: str) -> Iterator:  # type: ignore[type-arg]
    with checked_page({"width": 1400, "height": 1000}, accept_downloads=True) as tab:
        yield tab


def settle(page) -> None:  # type: ignore[no-untyped-def]
    """The page settled (:func:`tests.e2e.browser.settle`)."""
    settle_page(page, STEP)


def download_report(page):  # type: ignore[no-untyped-def]
    """Click "Download the full analysis (HTML)" once the page has settled, and return the
    download. A new pair's button comes in the run after its strip (its file is built on
    the click and belongs to the run that drew it), so a click that lands while a run
    replaces the button gets no file: then the page settles and the click is tried again,
    at most three times."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(3):
        settle(page)
        try:
            with page.expect_download(timeout=STEP) as saved:
                page.get_by_role("button", name="Download the full analysis (HTML)").click()
            return saved.value
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def open_app(page, url: str, heading: str = "h1:has-text('Pair')") -> None:  # type: ignore[no-untyped-def]
    page.goto(url, wait_until="domcontentloaded", timeout=STEP)
    page.wait_for_selector(heading, timeout=STEP)
    settle(page)


def test_modebar_saves_svg_and_the_pair_analysis_downloads_as_inert_html(page, app_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_app(page, app_url)
    page.locator("[class*='st-key-figure_format']").get_by_role("radio", name="SVG").click()
    settle(page)
    grid = page.locator("[class*='st-key-ngram_grid'] .js-plotly-plot").first
    grid.wait_for(timeout=STEP)
    grid.hover()
    with page.expect_download(timeout=STEP) as saved:
        grid.locator(".modebar-btn[data-title*='Download plot']").click()
    assert saved.value.suggested_filename == "ngram_grid.svg"
    assert Path(saved.value.path()).read_text(encoding="utf-8").lstrip().startswith("<svg")

    # A typed pair with a script in it: the page and the exported file show it as text.
    page.get_by_label("Text (premise)").fill(HOSTILE)
    page.get_by_label("Hypothesis").fill("Ann sold a car.")
    page.get_by_label("Hypothesis").press("Control+Enter")
    page.get_by_text("Your own pair").wait_for(timeout=STEP)
    download = download_report(page)
    report = tmp_path / download.suggested_filename
    download.save_as(report)
    assert report.name == "typed-pair.html"
    assert "<script>window.pwned" not in report.read_text(encoding="utf-8")
    page.goto(report.as_uri(), wait_until="load", timeout=STEP)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=STEP)
    assert page.evaluate("window.pwned") is None  # the typed script never ran
    assert HOSTILE in page.locator(".sentence").first.inner_text()
    assert page.locator(".js-plotly-plot").count() >= 8  # n-gram, WER, bow, ITG, MANLI, pFSM, pPDA
    with page.expect_download(timeout=STEP) as saved:
        page.locator("button[data-format='png']").first.click()
    assert Path(saved.value.path()).read_bytes().startswith(b"\x89PNG")


def test_a_reload_keeps_the_view_and_filters_survive_other_pages(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    open_app(page, f"{app_url}/?dataset=sample%3Ablind_spots.xml&pair=13&method=bow")
    page.get_by_text("What this pair shows").wait_for(timeout=STEP)
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
    settle(page)
    assert "pair=13" in page.url and "blind_spots.xml" in page.url and "method=bow" in page.url
    page.get_by_text("What this pair shows").wait_for(timeout=STEP)  # the same pair, after the reload
    # The pair's boxes are filled by the same run that writes the caption, a moment after it
    # on a busy machine (read at once, a whole-suite run once found the box not yet filled).
    from playwright.sync_api import expect

    expect(page.get_by_label("Hypothesis")).to_have_value(re.compile(r"^The Arlow Foxes defeated"), timeout=STEP)

    # The open method tab is in the URL too: a reload (or the link) reopens it.
    page.get_by_role("tab", name="MANLI", exact=True).click()
    settle(page)
    page.wait_for_function("() => location.search.includes('tab=MANLI')", timeout=STEP)
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
    settle(page)
    assert "tab=MANLI" in page.url and "pair=13" in page.url
    page.get_by_role("tab", name="MANLI", exact=True, selected=True).wait_for(timeout=STEP)
    page.get_by_text("Simulated annealing searches", exact=False).first.wait_for(timeout=STEP)  # its panel is drawn

    page.get_by_role("link", name="Dataset").click()
    page.wait_for_selector("h1:has-text('Dataset')", timeout=STEP)
    settle(page)
    page.get_by_label("Search text, hypothesis or id").fill("Arlow")
    page.get_by_label("Search text, hypothesis or id").press("Enter")
    settle(page)
    page.get_by_text("1 of 28 pairs").wait_for(timeout=STEP)
    page.get_by_role("link", name="Evaluate").click()
    page.wait_for_selector("h1:has-text('Evaluate')", timeout=STEP)
    settle(page)
    page.get_by_role("link", name="Dataset").click()
    page.wait_for_selector("h1:has-text('Dataset')", timeout=STEP)
    settle(page)
    assert page.get_by_label("Search text, hypothesis or id").input_value() == "Arlow"
    page.get_by_text("1 of 28 pairs").wait_for(timeout=STEP)


def test_an_unsaved_note_survives_a_switch_of_annotation_tab(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    """An annotator who looks at the Alignment tab before saving keeps the note typed in
    the form (it has not reached the server yet: drawing only the open tab would lose it)."""
    open_app(page, app_url)
    page.get_by_label("Add a note", exact=True).fill("unsaved thought")
    page.get_by_role("tab", name="Alignment").click()
    settle(page)
    page.get_by_role("tab", name="Tags and notes").click()
    settle(page)
    assert page.get_by_label("Add a note", exact=True).input_value() == "unsaved thought"

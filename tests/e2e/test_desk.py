"""At the desk, in a real browser (Playwright + Debian's Chromium against ``streamlit run
app.py``, one server for the module):

- one working dataset: gold alignments opened on the Aligners page survive a visit to the
  Dataset page and a reload, and its *Open on the Pair page* button reaches the Pair page;
  a batch result's row opens its pair on the Pair page, the sidebar names the result, and
  the Pair page reached from the sidebar stays on it;
- a link to a pair the dataset lacks says so;
- this browser remembers the annotator and the dismissed first line across a reload
  (another browser does not);
- the method tabs switch in the browser (no message to the server) and the URL follows;
- Compare's scatter drags to zoom; Evaluate's scorer picker shows every chosen scorer whole.

Every wait is for a condition, with a generous timeout: the machine is shared.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.deadline import DEADLINE_MS
from tests.e2e.browser import checked_page, chromium, watch_runs
from tests.e2e.browser import settle as settle_page

pytestmark = pytest.mark.slow  # a served app and a browser: tens of seconds a test

STEP = DEADLINE_MS  # ms per browser wait (tests/deadline.py)
VIEW = {"width": 1400, "height": 1000}


@pytest.fixture
def page(app_url: str) -> Iterator[Any]:
    with checked_page(VIEW) as tab:
        yield tab


def settle(page: Any) -> None:
    settle_page(page, STEP)


def open_url(page: Any, url: str, heading: str) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=STEP)
    page.wait_for_selector(f"h1:has-text('{heading}')", timeout=STEP)
    settle(page)


def sidebar_says(page: Any, text: str) -> None:
    page.locator("[data-testid='stSidebar']").get_by_text(text, exact=False).first.wait_for(timeout=STEP)


def strip_done(page: Any) -> None:
    page.wait_for_selector(".verdict-strip[data-pending='0']", timeout=STEP)


def annotator_is(page: Any, name: str) -> None:
    """Wait until the sidebar's Annotator box holds ``name`` (the sidebar comes with the
    Pair page's second run)."""
    page.wait_for_function(
        "(name) => [...document.querySelectorAll('[data-testid=stSidebar] input[aria-label=Annotator]')]"
        ".some((box) => box.value === name)", arg=name, timeout=STEP)


def hypothesis_is(page: Any, value: str | re.Pattern[str]) -> None:
    """Wait until the Pair page's Hypothesis box holds ``value`` (it is filled by the run
    after the one that finishes the strip, a moment later on a busy machine)."""
    from playwright.sync_api import expect

    expect(page.get_by_label("Hypothesis")).to_have_value(value, timeout=STEP)


def go(page: Any, link: str) -> None:
    page.locator("[data-testid='stSidebarNav']").get_by_role("link", name=link, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{link}')", timeout=STEP)
    settle(page)


def test_gold_alignments_survive_the_dataset_page_a_reload_and_open_a_pair(page: Any, app_url: str) -> None:
    open_url(page, f"{app_url}/aligners", "Aligners")
    page.locator(".st-key-aligners_load button").click()
    sidebar_says(page, "typical_align.txt")
    page.wait_for_function("() => location.search.includes('typical_align.txt')", timeout=STEP)
    go(page, "Dataset")
    settle(page)
    sidebar_says(page, "typical_align.txt")
    page.get_by_text("6 of 6 pairs").wait_for(timeout=STEP)  # the table is the gold file's
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("h1:has-text('Dataset')", timeout=STEP)
    settle(page)
    sidebar_says(page, "typical_align.txt")
    # The Aligners page's button opens the chosen problem on the Pair page.
    go(page, "Aligners")
    page.locator(".st-key-aligners_table").wait_for(timeout=STEP)
    page.locator(".st-key-aligners_open button").click()
    page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
    strip_done(page)
    page.wait_for_function("() => /[?&]pair=/.test(location.search) && location.search.includes('typical_align')",
                           timeout=STEP)
    sidebar_says(page, "typical_align.txt")


def test_a_link_to_a_pair_the_dataset_lacks_says_so(page: Any, app_url: str) -> None:
    open_url(page, f"{app_url}/?dataset=sample%3Atypical.xml&pair=477", "Pair")
    page.get_by_text("There is no pair 477 in typical.xml (56 pairs)").wait_for(timeout=STEP)
    assert page.locator(".verdict-strip").count() == 0  # no other pair in its place


def test_this_browser_remembers_the_annotator_and_the_dismissed_line(app_url: str) -> None:
    with chromium() as browser:
        context = browser.new_context(viewport=VIEW)
        page = context.new_page()
        watch_runs(page)
        open_url(page, f"{app_url}/?pair=3", "Pair")
        strip_done(page)
        page.locator(".bm-intro").wait_for(timeout=STEP)
        name = page.get_by_role("textbox", name="Annotator")
        name.fill("Ada <b>Lovelace</b>")
        name.press("Enter")
        settle(page)
        page.locator(".bm-dismiss").click()
        assert page.locator(".bm-intro").count() == 0
        page.wait_for_function("() => document.cookie.includes('explorer_annotator=')", timeout=STEP)
        page.reload(wait_until="domcontentloaded")
        page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
        strip_done(page)
        settle(page)
        annotator_is(page, "Ada <b>Lovelace</b>")
        assert page.locator(".bm-intro").count() == 0
        page.get_by_text("Saving as", exact=False).first.wait_for(timeout=STEP)
        assert page.locator("b:has-text('Lovelace')").count() == 0  # shown as text, never as markup
        # Another browser (another student) is asked for its own name and sees the line.
        other = browser.new_context(viewport=VIEW).new_page()
        watch_runs(other)
        open_url(other, f"{app_url}/?pair=3", "Pair")
        other.locator(".bm-intro").wait_for(timeout=STEP)
        strip_done(other)
        settle(other)
        annotator_is(other, "")


def test_method_tabs_switch_in_the_browser_and_the_url_follows(page: Any, app_url: str) -> None:
    runs = watch_runs(page)
    open_url(page, f"{app_url}/?pair=5", "Pair")
    strip_done(page)
    page.get_by_role("tab", name="MANLI", exact=True).wait_for(timeout=STEP)
    settle(page)
    before = len(runs.sent)
    page.get_by_role("tab", name="MANLI", exact=True).click()
    page.get_by_text("Simulated annealing searches", exact=False).first.wait_for(state="visible", timeout=STEP)
    page.wait_for_function("() => location.search.includes('tab=MANLI')", timeout=STEP)
    page.get_by_role("tab", name="ITG parse", exact=True).click()
    page.wait_for_function("() => location.search.includes('tab=ITG')", timeout=STEP)
    settle(page)  # a message to the server would start a run: any run has finished
    assert runs.sent[before:] == []  # the server was not asked for anything
    page.reload(wait_until="domcontentloaded")
    page.get_by_role("tab", name="ITG parse", exact=True, selected=True).wait_for(timeout=STEP)


def test_compare_drags_to_zoom_and_evaluate_shows_every_chosen_scorer(page: Any, app_url: str) -> None:
    open_url(page, f"{app_url}/compare", "Compare")
    page.wait_for_selector(".st-key-compare_scatter .js-plotly-plot .main-svg", timeout=STEP)
    mode = page.evaluate("() => document.querySelector('.st-key-compare_scatter .js-plotly-plot')._fullLayout.dragmode")
    assert mode == "zoom"
    open_url(page, f"{app_url}/evaluate", "Evaluate")
    picker = page.locator(".st-key-evaluate_scorers")
    for name in ("NIST-5", "Bracketing ITG (lexical", "jumps (pPDA)", "POS-decomposed"):
        picker.locator("input").click()
        picker.locator("input").fill(name)
        page.get_by_role("option").first.wait_for(timeout=STEP)
        page.keyboard.press("Enter")
        page.keyboard.press("Escape")
        settle(page)
    chips = picker.locator("[data-tag]")
    assert chips.count() == 7
    box = picker.bounding_box()
    for i in range(chips.count()):
        chip = chips.nth(i).bounding_box()
        assert box["x"] <= chip["x"] and chip["x"] + chip["width"] <= box["x"] + box["width"] + 1, i  # in sight
        label = chips.nth(i).locator("span").first
        assert label.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), label.inner_text()  # not cut


def test_a_batch_row_opens_its_pair_and_every_page_keeps_the_result(page: Any, app_url: str, tmp_path: Path) -> None:
    from tests.app.test_working_dataset import snli_like_result

    result = snli_like_result(tmp_path)
    open_url(page, f"{app_url}/dataset", "Dataset")
    page.get_by_text("Batch result (a whole corpus").click()
    page.locator(".st-key-batch_folder input").fill(str(result))
    page.locator(".st-key-batch_folder input").press("Enter")
    settle(page)
    page.locator(".st-key-batch_open button").click()
    page.get_by_text("Batch result snli_like.jsonl", exact=False).first.wait_for(timeout=STEP)
    sidebar_says(page, "snli_like.jsonl")
    # The Pair page reached from the sidebar shows the result's first pair, not the sample's.
    go(page, "Pair")
    strip_done(page)
    hypothesis_is(page, "A man rides a bicycle.")
    sidebar_says(page, "snli_like.jsonl")
    go(page, "Dataset")
    grid = page.locator(".st-key-batch_table [data-testid='stDataFrameResizable']")
    grid.wait_for(timeout=STEP)
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 15, box["y"] + 53)  # the first row's selection cell
    page.wait_for_selector("h1:has-text('Pair')", timeout=STEP)
    strip_done(page)
    sidebar_says(page, "snli_like.jsonl")
    page.wait_for_function("() => location.search.includes('dataset=batch')", timeout=STEP)
    hypothesis_is(page, re.compile(r"\S"))
    first = page.get_by_label("Hypothesis").input_value()
    go(page, "Evaluate")
    sidebar_says(page, "snli_like.jsonl")
    go(page, "Pair")
    strip_done(page)
    hypothesis_is(page, first)  # the batch's pair, not the sample's
    sidebar_says(page, "snli_like.jsonl")

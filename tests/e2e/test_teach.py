"""The Teach page at a projector, in a real browser (Playwright + Debian's Chromium against
``streamlit run app.py``), at 1280x720:

- every method in the presentation layout: the step's sentence and its whole figure on the
  first screen (bounding boxes), every row and column label drawn, inside the figure, rows
  not overlapping; at the first, a middle and the last step;
- three quick key presses (arrow, PageDown, space) are three steps, three quick clicks
  too; keys typed into a text box do not step;
- ``?step=`` opens that step, the URL follows the step and a reload keeps it;
- F puts the player full screen, its figure fitted to the screen;
- the desk layout steps with its buttons; a typed ``<script>`` stays text.

One server for the module. Waits are for conditions, with generous timeouts: the machine
is shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote_plus

import pytest

from components.teach_methods import TEACH_METHODS
from tests.deadline import DEADLINE_MS
from tests.e2e.browser import checked_page
from tests.e2e.browser import settle as settle_page

WAIT = DEADLINE_MS  # ms per browser wait (tests/deadline.py): the first lesson of a cold server traces MANLI
SCREEN = {"width": 1280, "height": 720}
PLAYER = ".tp"

#: Where the player's figure, sentence and labels are (page coordinates of the viewport).
MEASURE = """() => {
  const root = document.querySelector('.tp');
  const figure = root.querySelector('.tp-figure');
  const box = (e) => { const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height}; };
  const labels = (selector) => [...figure.querySelectorAll(selector)]
    .filter((t) => t.textContent.trim() !== '').map((t) => ({text: t.textContent, ...box(t)}));
  const first = figure.data && figure.data[0] ? figure.data[0] : {};
  return {
    step: Number(root.dataset.step), drawn: Number(root.dataset.drawnStep),
    figure: box(figure.querySelector('.main-svg') || figure), sentence: box(root.querySelector('.tp-sentence')),
    buttons: box(root.querySelector('.tp-next')),
    xlabels: labels('g.xtick > text'), ylabels: labels('g.ytick > text'),
    others: labels('g.x2tick > text, g.y2tick > text, g.y3tick > text, .textpoint text, text.annotation-text'),
    heatmap: first.type === 'heatmap' ? {rows: first.y.length, columns: first.x.length} : null,
    ticks: figure.layout && figure.layout.yaxis && figure.layout.yaxis.ticktext
      ? {rows: figure.layout.yaxis.ticktext.length, columns: figure.layout.xaxis.ticktext.length} : null,
  };
}"""


@pytest.fixture
def page(app_url: str) -> Iterator[Any]:
    with checked_page(SCREEN) as tab:
        yield tab


def teach_url(app_url: str, method: str, **params: str) -> str:
    query = "&".join([f"teach_method={quote_plus(TEACH_METHODS[method].label)}",
                      *(f"{k}={quote_plus(v)}" for k, v in params.items())])
    return f"{app_url}/teach?{query}"


def drawn(page: Any, step: int) -> None:
    """Wait until the player shows ``step`` and its figure is drawn."""
    page.wait_for_selector(f"{PLAYER}[data-step='{step}'][data-drawn-step='{step}']", timeout=WAIT)


def url_step(page: Any, step: int) -> None:
    """Wait until the address bar's ``?step=`` is ``step``."""
    page.wait_for_function(f"() => new URL(location.href).searchParams.get('step') === '{step}'", timeout=WAIT)


def open_lesson(page: Any, url: str, step: int = 1) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=WAIT)
    drawn(page, step)
    settle_page(page, WAIT)  # the page's run is over: nothing replaces the player any more
    drawn(page, step)


def steps(page: Any) -> int:
    return int(page.get_attribute(PLAYER, "data-steps"))


def check_first_screen(page: Any, method: str) -> None:
    """The sentence and the whole figure inside 1280x720, every label inside the figure."""
    seen = page.evaluate(MEASURE)
    where = (method, seen["step"])
    for part in ("sentence", "figure", "buttons"):
        assert seen[part]["top"] >= 0 and seen[part]["bottom"] <= SCREEN["height"], (where, part, seen[part])
        assert seen[part]["right"] <= SCREEN["width"], (where, part, seen[part])
    figure = seen["figure"]
    labels = seen["xlabels"] + seen["ylabels"] + seen["others"]
    assert labels, where
    for label in labels:  # drawn, and not cut off by the figure's edges
        assert label["width"] > 0, (where, label)
        assert figure["left"] - 1 <= label["left"] and label["right"] <= figure["right"] + 1, (where, label)
        assert figure["top"] - 1 <= label["top"] and label["bottom"] <= figure["bottom"] + 1, (where, label)
    expected = seen["heatmap"] or seen["ticks"]
    if expected:  # a table or grid: one label per row and per column
        assert len(seen["ylabels"]) == expected["rows"], (where, [t["text"] for t in seen["ylabels"]])
        assert len(seen["xlabels"]) == expected["columns"], (where, [t["text"] for t in seen["xlabels"]])
    rows = sorted(seen["ylabels"], key=lambda t: t["top"])
    for above, below in zip(rows, rows[1:]):
        assert below["top"] >= above["bottom"] - 2, (where, above["text"], below["text"])


@pytest.mark.slow
@pytest.mark.parametrize("method", list(TEACH_METHODS))
def test_presentation_fits_each_step_and_its_labels_on_the_first_screen(page: Any, app_url: str, method: str) -> None:
    open_lesson(page, teach_url(app_url, method, presentation="true"))
    check_first_screen(page, method)
    count = steps(page)
    middle = (count + 1) // 2
    page.keyboard.press("PageDown")
    drawn(page, 2)
    page.goto(teach_url(app_url, method, presentation="true", step=str(middle)), wait_until="domcontentloaded")
    drawn(page, middle)
    check_first_screen(page, method)
    page.keyboard.press("End")  # the last step: the method's score, often the longest sentence
    drawn(page, count)
    check_first_screen(page, method)


def test_three_quick_key_presses_and_clicks_are_three_steps_each(page: Any, app_url: str) -> None:
    open_lesson(page, teach_url(app_url, "manli", presentation="true"))
    for key in ("ArrowRight", "PageDown", " "):  # what a clicker or a keyboard sends, no wait between
        page.keyboard.press(key)
    drawn(page, 4)
    url_step(page, 4)  # the URL follows the step
    for key in ("PageUp", "ArrowLeft"):
        page.keyboard.press(key)
    drawn(page, 2)
    next_button = page.locator(".tp-next")
    for _ in range(3):
        next_button.click(delay=20)
        page.wait_for_timeout(100)
    drawn(page, 5)
    assert page.locator(".tp-counter").inner_text() == f"Step 5 of {steps(page)}"
    # Keys typed into a text box are the text box's.
    page.get_by_text("Pair and method").click()
    box = page.get_by_label("Hypothesis")
    box.click()
    typed = len(box.input_value()) + 1
    box.press("ArrowLeft")
    box.press(" ")
    # The space is in the box: both keys have been handled (the player steps as it handles
    # a key, before the box takes it), and neither moved the player.
    page.wait_for_function("(n) => document.activeElement.value.length === n", arg=typed, timeout=WAIT)
    assert page.get_attribute(PLAYER, "data-step") == "5"


def test_a_link_opens_its_step_and_a_reload_keeps_the_step_reached(page: Any, app_url: str) -> None:
    open_lesson(page, teach_url(app_url, "wer", presentation="true", step="5"), step=5)
    sentence = page.locator(".tp-sentence").inner_text()
    assert sentence.startswith("Row 4")  # row 0 is step 1
    page.keyboard.press("ArrowRight")
    drawn(page, 6)
    url_step(page, 6)
    page.reload(wait_until="domcontentloaded")
    drawn(page, 6)
    assert page.locator(".tp-sentence").inner_text().startswith("Row 5")
    page.keyboard.press("ArrowRight")
    drawn(page, 7)
    # Back to the desk layout: the server sends the same lesson again, the browser keeps its step.
    page.get_by_text("Presentation layout").click()
    page.wait_for_selector("h1:has-text('Teaching mode')", timeout=WAIT)
    page.wait_for_selector(f"{PLAYER}:not(.tp-large)", timeout=WAIT)
    drawn(page, 7)
    url_step(page, 7)


def test_f_puts_the_player_full_screen_with_the_figure_fitted(page: Any, app_url: str) -> None:
    open_lesson(page, teach_url(app_url, "itg", presentation="true", step="3"), step=3)
    page.keyboard.press("f")
    page.wait_for_function("() => document.fullscreenElement && document.fullscreenElement.matches('.tp')",
                           timeout=WAIT)
    page.wait_for_function("""() => {
        const svg = document.querySelector('.tp-figure .main-svg');
        return svg && Math.abs(svg.getBoundingClientRect().bottom - window.innerHeight) < 40; }""", timeout=WAIT)
    page.keyboard.press("ArrowRight")
    drawn(page, 4)
    page.keyboard.press("f")
    page.wait_for_function("() => !document.fullscreenElement", timeout=WAIT)


def test_desk_layout_steps_with_its_buttons_and_a_typed_script_stays_text(page: Any, app_url: str) -> None:
    hostile = "Ann <script>window.pwned = 1</script> sold <img src=x onerror='window.pwned = 2'> a car."
    open_lesson(page, teach_url(app_url, "bleu", teach_text=hostile, teach_hypothesis="Ann sold a car."))
    page.wait_for_selector("h1:has-text('Teaching mode')", timeout=WAIT)
    page.locator(".tp-next").click()
    drawn(page, 2)
    assert page.locator(".js-plotly-plot").count() == 1  # one figure per step
    assert page.locator(".tp-text").inner_text() == hostile  # shown as typed, as text
    assert page.evaluate("() => window.pwned === undefined")
    page.get_by_test_id("stRadio").filter(has_text="Method").get_by_text(TEACH_METHODS["wer"].label).click()
    page.wait_for_function("() => location.href.includes('teach_method=Word+error+rate')", timeout=WAIT)
    drawn(page, 1)  # another lesson starts at its first step

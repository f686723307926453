"""Every Teach method readable on real pairs, in Chromium at 1280x720: on the largest pair
each RTE dev file offers for teaching (text x hypothesis tokens, within the teaching
limit), at the first step, the first step of every chapter, a middle step and the last,
every text of the figure is drawn at 14 px or more (each of its runs: a subscript too)
and no two texts' boxes overlap, in the presentation layout and in the desk layout.

The pairs are found, not listed: the largest of each file that passes the size check the
Teach picker makes (:func:`explorer.teaching.size_refusal`). One server for the module;
every wait is for a condition (tests/deadline.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any
from urllib.parse import quote_plus

import pytest

from components.teach_methods import TEACH_METHODS
from tests.deadline import DEADLINE_MS
from tests.e2e.browser import checked_page
from tests.e2e.browser import settle as settle_page

SCREEN = {"width": 1280, "height": 720}
RTE = "/work/shared/nltk_data/corpora/rte"
FILES = ("rte1_dev.xml", "rte2_dev.xml", "rte3_dev.xml")
#: The smallest type a label may be drawn in, in CSS pixels.
SMALLEST_PX = 14.0
#: Boxes that share less than this (in pixels, either way) do not overlap: glyph boxes of
#: neighbours that only touch.
TOUCH_PX = 1.0

#: Every text of the player's figure: its words, its box, and the smallest type of its runs.
LABELS = """() => {
  const figure = document.querySelector('.tp .tp-figure');
  return [...figure.querySelectorAll('svg text')].filter((t) => {
    const r = t.getBoundingClientRect();
    return t.textContent.trim() !== '' && r.width > 0 && r.height > 0 && getComputedStyle(t).display !== 'none'
      && getComputedStyle(t).visibility !== 'hidden' && Number(getComputedStyle(t).opacity) > 0;
  }).map((t) => {
    const r = t.getBoundingClientRect();
    const runs = [t, ...t.querySelectorAll('tspan')].filter((e) => e.textContent.trim() !== '');
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
            px: Math.min(...runs.map((e) => parseFloat(getComputedStyle(e).fontSize)))};
  });
}"""


@cache
def largest_pairs() -> dict[str, str]:
    """The id of each file's largest teachable pair (text x hypothesis tokens)."""
    from explorer.datasets import load
    from explorer.preprocess import analyze_pair
    from explorer.teaching import size_refusal

    found: dict[str, str] = {}
    for name in FILES:
        best: tuple[int, str] | None = None
        for pair in load(f"{RTE}/{name}").pairs:
            analyzed = analyze_pair(pair)
            if size_refusal(analyzed) is None:
                size = len(analyzed.text) * len(analyzed.hypothesis)
                if best is None or size > best[0]:
                    best = (size, pair.id)
        assert best is not None, name
        found[name] = best[1]
    return found


@pytest.fixture(scope="module")
def page(app_url: str) -> Iterator[Any]:
    with checked_page(SCREEN) as tab:
        yield tab


def problems(labels: list[dict[str, Any]]) -> list[str]:
    """Each label under :data:`SMALLEST_PX` and each pair of labels whose boxes overlap."""
    found = [f"{t['text']!r} drawn at {t['px']:.1f} px" for t in labels if t["px"] < SMALLEST_PX - 0.05]
    for k, a in enumerate(labels):
        for b in labels[k + 1:]:
            wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
            high = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if wide > TOUCH_PX and high > TOUCH_PX:
                found.append(f"{a['text']!r} overlaps {b['text']!r} ({wide:.0f} x {high:.0f} px)")
    return found


def shown(page: Any, step: int) -> None:
    """Wait until the player shows ``step`` with its figure drawn (state="attached": a
    figure taller than the screen is drawn, not necessarily in view)."""
    page.wait_for_selector(f".tp[data-step='{step}'][data-drawn-step='{step}']", timeout=DEADLINE_MS,
                           state="attached")


def press_to(page: Any, key: str) -> int:
    """Press ``key`` and wait for the step it leads to to be drawn."""
    page.keyboard.press(key)
    page.wait_for_function("() => { const r = document.querySelector('.tp');"
                           " return r.dataset.step === r.dataset.drawnStep; }", timeout=DEADLINE_MS)
    return int(page.get_attribute(".tp", "data-step"))


def open_step(page: Any, url: str, step: int) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=DEADLINE_MS)
    shown(page, step)
    settle_page(page, DEADLINE_MS)  # the page's run is over: nothing replaces the player any more
    shown(page, step)


def lesson_problems(page: Any, url: str) -> list[str]:
    """The problems of the labels of a lesson's first step, the first step of each chapter
    (the ``]`` key), a middle step and the last."""
    open_step(page, url, 1)
    count = int(page.get_attribute(".tp", "data-steps"))
    found: dict[int, list[str]] = {1: problems(page.evaluate(LABELS))}
    step = 1
    while (reached := press_to(page, "]")) != step:  # the first step of every chapter
        step = reached
        found[step] = problems(page.evaluate(LABELS))
    middle = (count + 1) // 2
    open_step(page, f"{url}&step={middle}", middle)
    found[middle] = problems(page.evaluate(LABELS))
    page.keyboard.press("End")
    shown(page, count)
    found[count] = problems(page.evaluate(LABELS))
    return [f"step {k}/{count}: {len(said)} problems, e.g. {'; '.join(said[:3])}"
            for k, said in sorted(found.items()) if said]


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["presentation", "desk"])
@pytest.mark.parametrize("name", FILES)
def test_every_label_of_every_method_is_large_and_apart_on_the_largest_teachable_pair(
        page: Any, app_url: str, name: str, layout: str) -> None:
    pair = largest_pairs()[name]
    found: list[str] = []
    for method, row in TEACH_METHODS.items():
        url = (f"{app_url}/teach?dataset={quote_plus('rte:' + name)}&pair={pair}"
               f"&teach_source={quote_plus('A pair from the dataset')}&teach_method={quote_plus(row.label)}"
               + ("&presentation=true" if layout == "presentation" else ""))
        found += [f"{method} {said}" for said in lesson_problems(page, url)]
    assert not found, f"{name} pair {pair} ({layout}):\n" + "\n".join(found)

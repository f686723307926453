"""Benchmark: the Teach page's step, drawn in the browser, and the lesson the server sends.

For each Teach method (and a worst-case pair at the 30-token teaching limit):

- ``lesson``: in this process, the trace (the method's own computation) and every step's
  figure as Plotly JSON, median over ``--runs``; and the size of what the page sends the
  browser (the player's JSON data, once per lesson);
- ``step``: in headless Debian Chromium at 1280x720, presentation layout, one key press
  (ArrowRight) at a time: the page's own time from the key press to the figure drawn
  (the step player notes it in ``data-draw-ms``: ``Plotly.react`` and the next animation
  frame), median and max over ``--steps`` single steps; beside it the time Playwright
  saw from its key press to the drawn step (its waits poll, so it is an upper bound).

``--rte``: the largest pair each RTE1-3 dev file offers for teaching (text x hypothesis
tokens within the limit, as the browser test ``tests/e2e/test_teach_legible.py`` finds
it), typed into the page, in place of the two pairs above.

The server is a fresh ``streamlit run app.py`` on a free localhost port with a throwaway
store; each lesson is opened once before it is timed (its first open traces the method).
The load average is printed before and after: compare runs only at similar load.

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_teach [--steps 15] [--runs 3] [--rte]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote_plus

from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, settle, streamlit_server, watch_runs

WAIT = 180_000  # ms
#: The Teach page's own example, and a pair at the teaching limit (30 tokens a side, every
#: word with a possible link: the ITG chart has the most cells it can have).
PAIRS = {
    "example": ("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle."),
    "30 tokens": (" ".join(f"w{i} a" for i in range(15)), " ".join(f"w{i} a" for i in range(14, -1, -1))),
}


def rte_pairs() -> dict[str, tuple[str, str]]:
    """The largest teachable pair of each RTE dev file, by name (``rte2 235``)."""
    from explorer.datasets import load as load_dataset
    from tests.e2e.test_teach_legible import RTE, largest_pairs

    found = {}
    for name, pair_id in largest_pairs().items():
        pair = next(p for p in load_dataset(f"{RTE}/{name}").pairs if p.id == pair_id)
        found[f"{name.split('_')[0]} {pair_id}"] = (pair.text, pair.hypothesis)
    return found


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def lesson_figures(method: str, pair: tuple[str, str], runs: int) -> tuple[float, int, int]:
    """Median seconds to trace and build every step, the player data's size, the steps."""
    from components.figures.teaching import packed
    from components.pages.teach import lesson_id
    from components.teach_methods import lesson, trace_of
    from explorer.preprocess import analyze_pair, make_pair

    analysed = analyze_pair(make_pair(*pair))
    trace_of(method, None, analysed)  # models, lexical resources and compiled kernels loaded once
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        steps = lesson(method, trace_of(method, None, analysed), large=True)
        times.append(time.perf_counter() - start)
    shown, layouts = packed(steps)
    size = len(json.dumps({"id": lesson_id(method, None, pair), "steps": shown, "layouts": layouts}))
    return statistics.median(times), size, len(steps)


def step_times(page, url: str, count: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """``count`` single steps: the page's draw times (ms) and Playwright's (ms)."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector(".tp[data-drawn-step='1']", timeout=WAIT)
    settle(page, WAIT)
    last = int(page.get_attribute(".tp", "data-steps"))
    own, seen = [], []
    step = 1
    for _ in range(count):
        if step == last:  # back to the start (not timed)
            page.keyboard.press("Home")
            step = 1
            page.wait_for_selector(".tp[data-drawn-step='1'][data-step='1']", timeout=WAIT)
        start = time.perf_counter()
        page.keyboard.press("ArrowRight")
        step += 1
        page.wait_for_selector(f".tp[data-drawn-step='{step}'][data-step='{step}']", timeout=WAIT)
        seen.append((time.perf_counter() - start) * 1000)
        own.append(float(page.get_attribute(".tp", "data-draw-ms")))
    return own, seen


def main(argv: list[str] | None = None) -> int:
    from components.teach_methods import TEACH_METHODS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15, help="single steps timed per method and pair")
    parser.add_argument("--runs", type=int, default=3, help="lesson builds timed per method and pair")
    parser.add_argument("--rte", action="store_true", help="the largest teachable pair of each RTE dev file")
    args = parser.parse_args(argv)
    pairs = rte_pairs() if args.rte else PAIRS
    print(f"load average at start: {load()}", flush=True)
    print("pair       method                       steps  lesson s  sent KB   step ms (page: median / max)"
          "   Playwright ms (median)")
    scratch = Path(tempfile.mkdtemp(prefix="bench-teach-"))
    env = {"ENTAILMENT_EXPLORER_STORE": str(scratch / "store.sqlite3"), "EXPLORER_UPLOADS_DIR": str(scratch / "uploads")}
    from playwright.sync_api import sync_playwright

    with streamlit_server(env, timeout=180) as served, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        watch_runs(page)  # settle() follows the page's script runs
        for name, pair in pairs.items():
            for method, row in TEACH_METHODS.items():
                seconds, size, count = lesson_figures(method, pair, args.runs)
                url = (f"{served.url}/teach?presentation=true&teach_method={quote_plus(row.label)}"
                       f"&teach_text={quote_plus(pair[0])}&teach_hypothesis={quote_plus(pair[1])}")
                own, seen = step_times(page, url, args.steps)
                print(f"{name:<10} {row.label:<28} {count:>5}  {seconds:>8.3f}  {size / 1000:>7.0f}   "
                      f"{statistics.median(own):>6.1f} / {max(own):>6.1f}  (n={len(own)})"
                      f"          {statistics.median(seen):>6.0f}", flush=True)
        browser.close()
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

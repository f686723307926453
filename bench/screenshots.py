"""Regenerate the screenshots of the current UI that the README and docs/APP.md show (not a
benchmark: it prints the files it wrote). Starts ``streamlit run app.py`` on a free localhost port with a throwaway
store, drives Debian's Chromium through Playwright, and saves:

- ``pair-verdicts.png``: the Pair page on a typical-sample pair, its verdict strip filled in;
- ``teach.png``: the Teach page stepping through the Bracketing ITG chart;
- ``evaluate-typical.png``: the Evaluate page on the typical sample (curves and summary);
- ``dataset.png``: the Dataset page's filters and table.

Run (about a minute on a quiet machine):

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.screenshots [--out docs/screenshots] [--pair 5]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, settle, streamlit_server

ROOT = Path(__file__).resolve().parents[1]
#: The verdict strip marks methods not run yet with this hover text.
STRIP_DONE = """() => document.querySelector('span[title*="gold label"], span[title*="no gold label"]') !== null
    && document.querySelectorAll('span[title*="not run yet"]').length === 0"""
WAIT = 180_000  # ms: the first page of a cold server loads WordNet, MANLI's weights, ...


def _settle(page) -> None:  # type: ignore[no-untyped-def]
    settle(page, WAIT, pause_ms=800, rounds=3)


def _main_area(page, path: Path, *, height: int) -> None:  # type: ignore[no-untyped-def]
    """A screenshot of the page from the top, ``height`` pixels tall."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(600)
    _settle(page)
    page.screenshot(path=str(path))


def take(url: str, out: Path, pair: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})

            page.goto(f"{url}/?dataset=sample%3Atypical.xml&pair={pair}", wait_until="domcontentloaded")
            page.wait_for_selector("h1:has-text('Pair')", timeout=WAIT)
            page.wait_for_function(STRIP_DONE, timeout=WAIT)
            _main_area(page, out / "pair-verdicts.png", height=1250)
            written.append(out / "pair-verdicts.png")

            page.goto(f"{url}/teach?teach_method=Bracketing+ITG", wait_until="domcontentloaded")
            page.wait_for_selector("h3:has-text('Step 1 of')", timeout=WAIT)
            _settle(page)
            page.get_by_text("Pair and method").click()  # fold the controls: the step is the subject
            _settle(page)
            for _ in range(6):
                page.get_by_role("button", name="Next step").click()
                _settle(page)
            _main_area(page, out / "teach.png", height=1300)
            written.append(out / "teach.png")

            page.goto(f"{url}/evaluate?dataset=sample%3Atypical.xml", wait_until="domcontentloaded")
            page.wait_for_selector("h1:has-text('Evaluate')", timeout=WAIT)
            page.get_by_text("Accuracy against cutoff").first.wait_for(timeout=WAIT)
            _main_area(page, out / "evaluate-typical.png", height=1500)
            written.append(out / "evaluate-typical.png")

            page.goto(f"{url}/dataset?dataset=sample%3Atypical.xml", wait_until="domcontentloaded")
            page.wait_for_selector("h1:has-text('Dataset')", timeout=WAIT)
            page.get_by_text("Click a row to open it").wait_for(timeout=WAIT)
            _main_area(page, out / "dataset.png", height=1250)
            written.append(out / "dataset.png")
        finally:
            browser.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"), help="folder for the PNGs")
    parser.add_argument("--pair", default="5", help="the typical-sample pair on the Pair page (default 5: the methods disagree)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="screenshots-"))
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
           # A fresh store and cutoff cache: the pages as a first visitor sees them (shipped cutoffs).
           "ENTAILMENT_EXPLORER_STORE": str(scratch / "store.sqlite3"), "EXPLORER_UPLOADS_DIR": str(scratch / "uploads"),
           "EXPLORER_CUTOFF_CACHE": str(scratch / "cutoffs")}
    with streamlit_server(env, timeout=120) as served:
        for path in take(served.url, Path(args.out), args.pair):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

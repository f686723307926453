"""Benchmark: the batch pages in a real browser on a batch result (e.g. the 500k one from
bench_batch.py). Serves the app on 127.0.0.1 (a free port, a throwaway store), drives
Debian's Chromium through Playwright, prints seconds for: Dataset page, folder typed and
Open clicked until the table is drawn; a filter change (gold label "entailment" chosen)
until the count under the filters is redrawn; Evaluate until its per-task section is drawn;
Compare until the sample scatter's caption. ``--runs`` browser sessions on one server
(the first pays the cold open). Screenshots go to ``--shots`` when given.

Usage: NLTK_DATA=../shared/nltk_data python bench/bench_batch_browser.py --result /tmp/bench500k.out --runs 2
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the project's packages
from tests.e2e.browser import streamlit_server  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--result", default="/tmp/bench500k.out")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--shots", help="folder for screenshots")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    env = dict(os.environ, ENTAILMENT_EXPLORER_STORE=str(Path(tempfile.mkdtemp()) / "store.sqlite3"),
               EXPLORER_BATCH_ROOTS=str(Path(args.result).resolve().parent))  # the app opens results under its roots
    with streamlit_server(env, timeout=180) as served:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for run in range(args.runs):
                page = browser.new_page(viewport={"width": 1400, "height": 1500})
                page.goto(f"{served.url}/dataset", timeout=180_000)
                page.wait_for_selector("text=Batch result", timeout=180_000)
                page.get_by_text("Batch result (a whole corpus").click()
                box = page.get_by_label("Result folder (the --out of `batch`)")
                box.fill(args.result)
                box.press("Enter")
                time.sleep(1)
                start = time.perf_counter()
                page.locator("button").filter(has_text=re.compile(r"^Open$")).click()
                page.wait_for_selector("text=pass the filters", timeout=180_000)
                timings = {"dataset": time.perf_counter() - start}
                # a filter change: one gold label chosen, until the count under the filters changes
                caption = page.locator("text=pass the filters")
                before = caption.inner_text()
                page.locator('[data-testid="stMultiSelect"]').filter(has_text="Gold label").click()
                start = time.perf_counter()
                page.get_by_role("option", name="entailment", exact=True).click()
                page.wait_for_function(
                    """before => [...document.querySelectorAll('p')].some(
                           p => p.innerText.includes('pass the filters') && p.innerText !== before)""",
                    arg=before, timeout=180_000)
                timings["filter"] = time.perf_counter() - start
                page.keyboard.press("Escape")
                start = time.perf_counter()
                page.get_by_role("link", name="Evaluate").click()
                page.wait_for_selector("text=By task", timeout=180_000)
                timings["evaluate"] = time.perf_counter() - start
                start = time.perf_counter()
                page.get_by_role("link", name="Compare").click()
                page.wait_for_selector("text=random sample", timeout=180_000)
                timings["compare"] = time.perf_counter() - start
                if args.shots:
                    page.screenshot(path=str(Path(args.shots) / f"compare-{run}.png"))
                print(f"session {run + 1}: " + ", ".join(f"{k} {v:.2f} s" for k, v in timings.items()), flush=True)
                page.close()
            browser.close()
    one, five, _ = os.getloadavg()
    print(f"load average {one:.1f} / {five:.1f}")


if __name__ == "__main__":
    main()

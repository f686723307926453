"""Benchmark: no work done twice at the desk, in a real browser (headless Debian Chromium
driven by Playwright against ``streamlit run app.py``) and in this process.

Targets, each the median over ``--runs`` runs (min, max printed):

- ``evaluate + MANLI``: the Evaluate page on RTE2 dev (``?dataset=rte:rte2_dev.xml``) after
  the dataset's background cutoff job ran; MANLI added in the scorer picker (its name
  typed, then Enter). From the Enter, on the page's own clock, to the last change the run
  made to the page, its figures drawn (a ``MutationObserver`` notes each; the end is read
  once the app is idle); and the server process's CPU seconds from the Enter until the
  page is idle (``/proc``), which a loaded machine does not stretch. Each run is a new
  browser tab (a new session; the scores come from the job's files, not from a cache of an
  earlier run).
  Beside it, the same for a fast scorer (``1 - WER``): what one more scorer costs the page
  when nothing is scored.
- ``stored read``: in this process, :func:`components.data.dataset_scores` for MANLI on
  RTE2 dev with the job's stored scores; ``--scored`` also times it once with them ignored
  (what the page did before it read them).
- ``tab switch``: the Pair page of an RTE2 pair, the *MANLI* tab clicked (in the page: a
  click, then animation frames until its panel is shown and painted); the next run
  switches back to the first tab. No message goes to the server (the browser test
  ``tests/e2e/test_desk.py`` checks that).

A new pair's first verdicts (that drawing every tab does not delay them) are
``bench.bench_browser_timings --only rte2``.

The job must have run for RTE2 dev first (the benchmark says so otherwise)::

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m runtime.cutoff_jobs \\
        ../shared/nltk_data/corpora/rte/rte2_dev.xml --progress /tmp/p.json
    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_desk [--runs 5] [--scored]

The cutoff cache is the user's (where the job stored the scores); the annotation store
and uploads are throwaway. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, settle, streamlit_server, watch_runs

WAIT = 180_000  # ms
RTE2 = "rte:rte2_dev.xml"
SCORER, LABEL = "manli", "MANLI entailment score"
#: A fast scorer added the same way: the page's cost of one more scorer, scoring aside.
BASELINE = "1 - WER"
PAIR, TAB = "58", "MANLI"
#: Notes, on the page's clock, the last change to the page.
OBSERVER = """() => {
  window.__lastChange = performance.now();
  new MutationObserver(() => { window.__lastChange = performance.now(); })
    .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
}"""
#: Clicks a tab and resolves with the ms until its panel is shown and painted (two frames).
SWITCH = """async (label) => {
  const tab = [...document.querySelectorAll('[role=tab]')].find((t) => t.innerText.trim() === label);
  const start = performance.now();
  tab.click();
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  for (;;) {
    await frame();
    const panel = document.getElementById(tab.getAttribute('aria-controls'));
    if (tab.getAttribute('aria-selected') === 'true' && panel && panel.offsetHeight > 0) break;
  }
  await frame();
  await frame();
  return performance.now() - start;
}"""


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def summary(name: str, values: list[float], unit: str = "s") -> str:
    return (f"{name:<30} median {statistics.median(values):8.3f} {unit}  "
            f"min-max {min(values):.3f}-{max(values):.3f}  n={len(values)}")


def job_ran() -> bool:
    from components.data import fingerprint_of, load_ref
    from explorer.decision import pair_scores
    from explorer.decision.cutoffs import DATASET

    loaded = load_ref(RTE2)
    fp = None if loaded is None else fingerprint_of(loaded)
    return fp is not None and pair_scores.has(fp, SCORER, DATASET)


def stored_read(runs: int, scored: bool) -> None:
    from components import data

    loaded = data.load_ref(RTE2)
    assert loaded is not None
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        data.dataset_scores(loaded, SCORER)
        times.append(time.perf_counter() - start)
    print(summary("stored read", times), flush=True)
    if scored:
        real = data.stored_dataset_scores
        data.stored_dataset_scores = lambda *args, **kwargs: None
        try:
            start = time.perf_counter()
            data.dataset_scores(loaded, SCORER)
            print(summary("scored (not read)", [time.perf_counter() - start]), flush=True)
        finally:
            data.stored_dataset_scores = real


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system), from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def add_scorer(context: Any, url: str, pid: int, label: str) -> tuple[float, float]:
    """One run in a new tab: seconds from Enter to the last change the run made, and the
    server's CPU seconds in between."""
    page = context.new_page()
    watch_runs(page)  # settle() follows the page's script runs
    try:
        page.goto(f"{url}/evaluate?dataset={RTE2}", wait_until="domcontentloaded")
        page.wait_for_selector("h1:has-text('Evaluate')", timeout=WAIT)
        page.wait_for_selector(".st-key-evaluate_scorers input", timeout=WAIT)
        settle(page, WAIT)
        picker = page.locator(".st-key-evaluate_scorers input")
        picker.click()
        picker.fill(label)
        page.get_by_role("option").first.wait_for(timeout=WAIT)
        page.evaluate(OBSERVER)
        start = page.evaluate("() => performance.now()")
        cpu = cpu_seconds(pid)
        page.keyboard.press("Enter")
        page.locator(".st-key-evaluate_scorers [data-tag]", has_text=label).wait_for(timeout=WAIT)
        settle(page, WAIT)
        cpu = cpu_seconds(pid) - cpu
        return (page.evaluate("() => window.__lastChange") - start) / 1000, cpu
    finally:
        page.close()


def tab_switches(context: Any, url: str, runs: int) -> list[float]:
    page = context.new_page()
    watch_runs(page)  # settle() follows the page's script runs
    page.goto(f"{url}/?dataset={RTE2}&pair={PAIR}", wait_until="domcontentloaded")
    page.wait_for_selector(".verdict-strip[data-pending='0']", timeout=WAIT)
    page.get_by_role("tab", name=TAB, exact=True).wait_for(timeout=WAIT)
    settle(page, WAIT)
    first = page.locator("[role=tab]").first.inner_text().strip()
    times = []
    for _ in range(runs):
        times.append(float(page.evaluate(SWITCH, TAB)))
        page.evaluate(SWITCH, first)  # back (not timed)
    page.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scored", action="store_true", help="also time MANLI scored once, the stored scores ignored")
    args = parser.parse_args(argv)
    if not job_ran():
        print("RTE2 dev's background job has not stored MANLI's scores here; run it first (see --help).")
        return 2
    print(f"load average at start: {load()}", flush=True)
    stored_read(args.runs, args.scored)
    scratch = Path(tempfile.mkdtemp(prefix="bench-desk-"))
    env = {"ENTAILMENT_EXPLORER_STORE": str(scratch / "store.sqlite3"), "EXPLORER_UPLOADS_DIR": str(scratch / "uploads")}
    from playwright.sync_api import sync_playwright

    with streamlit_server(env, timeout=180) as served, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        add_scorer(context, served.url, served.pid, LABEL)  # warm: the server's modules and RTE2 dev loaded (not timed)
        runs: dict[str, list[tuple[float, float]]] = {LABEL: [], BASELINE: []}
        for _ in range(args.runs):  # interleaved: both see the same load
            for label, times in runs.items():
                times.append(add_scorer(context, served.url, served.pid, label))
        for label, times in runs.items():
            name = "MANLI" if label == LABEL else label
            print(summary(f"evaluate + {name}, drawn", [d for d, _ in times]), flush=True)
            print(summary(f"evaluate + {name}, server CPU", [c for _, c in times]), flush=True)
        print(summary("tab switch", tab_switches(context, served.url, args.runs), "ms"), flush=True)
        browser.close()
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

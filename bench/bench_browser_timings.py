"""Benchmark: issue 14's "done when" timings in a real browser (headless Debian Chromium
driven by Playwright), from the request to the element on screen, on a warm server.

One command runs every target and prints, per target, the median over ``--runs`` runs
(min, max, n), the target, and the load average before and after::

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_browser_timings [--runs 5]

Targets (the browser waits on the Pair page's verdict strip, whose element carries
``data-pair`` (a hash of the pair's text and hypothesis) and ``data-pending`` (methods still
to come), so a stale strip of the previous pair never counts):

- ``cold progress``: a fresh server; from ``page.goto`` (as soon as the server answers its
  health check) until the page shows progress (a progress bar, a spinner or a status line
  of the warm-up) or the strip itself; ``cold strip`` until the first strip is complete.
  One server start per run (``--cold-runs``).
- ``typed pair``: on a warm page, type a new hypothesis (the text typed before it) and
  press Ctrl+Enter; until the strip of that pair is complete (every method's verdict).
- ``RTE2 pair (link)``: ``?dataset=rte:rte2_dev.xml&pair=ID`` opened in a new tab; until
  that pair's strip is complete. ``RTE2 pair (picker)``: the Pair page's pair picker, the
  id typed and Enter; until that pair's strip is complete.
- ``editor click``: the alignment editor on an RTE2 pair, one click on a grid cell; until
  the *Links* count shows the change (and ``editor idle``: until the app is idle).
- ``upload pair``: a fresh ``--upload-pairs`` CSV (synthetic, from word lists, a new
  fingerprint each run so no cache serves it) uploaded on the Dataset page; then a click on
  *Pair*: until the first pair's strip is complete. The dataset's own cutoffs follow in the
  background; whether the page said so is printed.

Every figure is a wall-clock time seen by the benchmark process, so it includes the
browser's own work. The machine's load average is printed with the figures: compare runs
only at similar load. ``--only`` picks targets (``cold,typed,rte2,editor,upload``);
``--shots DIR`` saves a screenshot per target. The store is a throwaway file; the cutoff
cache is the user's (``--fresh-cutoffs`` uses an empty temporary one).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e.browser import streamlit_server  # noqa: E402  (the browser tests' server, shared)

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
IDLE = """() => !document.querySelector(
    '[data-testid="stStatusWidgetRunningIcon"], [data-testid="stStatusWidgetRunningManIcon"], [data-stale="true"]')"""
#: What counts as "the page shows progress" on a cold start.
PROGRESS = ('[data-testid="stProgress"], [data-testid="stSpinner"], .st-key-warmup_status, .verdict-strip')
WAIT_MS = 120_000
TARGETS = {
    "cold progress": 1.0, "typed pair": 1.0, "RTE2 pair (link)": 1.0, "RTE2 pair (picker)": 1.0,
    "editor click": 0.5, "upload pair": 3.0,
}
RTE2_IDS = ["3", "58", "104", "161", "222", "279", "333", "391"]
#: Hand-written typed pairs (invented names): text, then hypotheses, one per run.
TYPED_TEXT = ("Marisol Vey, the harbour master of Kettleby, said on Tuesday that the new ferry "
              "to Orrin Island would start its crossings in early spring.")
TYPED_HYPOTHESES = [
    "A new ferry will sail to Orrin Island.", "Marisol Vey is the harbour master of Kettleby.",
    "The ferry to Orrin Island starts in autumn.", "Kettleby has no harbour.",
    "Crossings to Orrin Island will begin in spring.", "Marisol Vey owns the ferry.",
    "The harbour master spoke on Tuesday.", "Orrin Island has a bridge to Kettleby.",
    "A ferry service is planned.", "Vey said the crossings were cancelled.",
]
NAMES = ["Arlen", "Bexley", "Corran", "Dunmore", "Ellinby", "Fenwick", "Garrow", "Harlen"]
NOUNS = ["council", "bridge", "harbour", "school", "library", "museum", "brewery", "ferry"]
VERBS = ["opened", "closed", "repaired", "sold", "visited", "renamed", "expanded", "moved"]


def mark(text: str, hypothesis: str) -> str:
    """The strip's ``data-pair`` for a pair (components.sections.verdicts.pair_mark)."""
    return hashlib.sha1(f"{text}\x1f{hypothesis}".encode()).hexdigest()[:12]


def strip_done(text: str, hypothesis: str) -> str:
    return f'.verdict-strip[data-pair="{mark(text, hypothesis)}"][data-pending="0"]'


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


@contextmanager
def server(env: dict[str, str]) -> Iterator[str]:
    """``streamlit run app.py`` on a free port until the block ends (it and the background
    cutoff jobs it started); yields its URL once the health check answers."""
    with streamlit_server(env, timeout=120) as served:
        yield served.url


def timed(action: Callable[[], None], wait: Callable[[], None]) -> float | None:
    start = time.perf_counter()
    action()
    try:
        wait()
    except Exception as err:  # a timeout: reported as a missing figure
        print(f"    (not reached: {type(err).__name__}: {str(err).splitlines()[0][:120]})", flush=True)
        return None
    return time.perf_counter() - start


def wait_idle(page: Any, timeout: float = WAIT_MS) -> None:
    page.wait_for_timeout(150)
    page.wait_for_function(IDLE, timeout=timeout)


class Results:
    def __init__(self) -> None:
        self.figures: dict[str, list[float | None]] = {}
        self.loads: dict[str, list[str]] = {}
        self.notes: list[str] = []

    def add(self, target: str, value: float | None) -> None:
        self.figures.setdefault(target, []).append(value)
        shown = "not reached" if value is None else f"{value:.2f} s"
        print(f"  {target}: {shown}", flush=True)

    def load(self, target: str) -> None:
        self.loads.setdefault(target, []).append(load())

    def table(self) -> str:
        lines = [f"{'target':<22} {'median':>8} {'min':>7} {'max':>7} {'n':>3} {'missed':>6} {'goal':>6}  load (1/5/15 min)"]
        for target, values in self.figures.items():
            got = [v for v in values if v is not None]
            goal = TARGETS.get(target)
            med = f"{statistics.median(got):.2f}" if got else "-"
            lo = f"{min(got):.2f}" if got else "-"
            hi = f"{max(got):.2f}" if got else "-"
            loads = self.loads.get(target, [])
            span = f"{loads[0]} .. {loads[-1]}" if loads else ""
            lines.append(f"{target:<22} {med:>8} {lo:>7} {hi:>7} {len(got):>3} {len(values) - len(got):>6} "
                         f"{(f'{goal:g} s' if goal else ''):>6}  {span}")
        return "\n".join(lines)


def shot(page: Any, shots: Path | None, name: str) -> None:
    if shots is not None:
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


# -- targets --------------------------------------------------------------------------------


def bench_cold(browser: Any, env: dict[str, str], runs: int, results: Results, shots: Path | None) -> None:
    for run in range(runs):
        print(f"cold start {run + 1}/{runs} (load {load()})", flush=True)
        with server(env) as url:
            page = browser.new_page(viewport={"width": 1400, "height": 1400})
            results.load("cold progress")
            start = time.perf_counter()
            page.goto(url, wait_until="commit")
            try:
                page.wait_for_selector(PROGRESS, timeout=WAIT_MS)
                results.add("cold progress", time.perf_counter() - start)
            except Exception:
                results.add("cold progress", None)
            try:
                page.wait_for_selector('.verdict-strip[data-pending="0"]', timeout=300_000)
                results.add("cold strip", time.perf_counter() - start)
            except Exception:
                results.add("cold strip", None)
            shot(page, shots, f"cold-{run}")
            page.close()


def bench_typed(page: Any, url: str, runs: int, results: Results, shots: Path | None) -> None:
    page.goto(url)
    page.wait_for_selector(".verdict-strip", timeout=WAIT_MS)
    wait_idle(page)
    boxes = page.locator("textarea")
    for _ in range(5):  # the text first (committed, the page idle again), then each hypothesis
        boxes.nth(0).fill(TYPED_TEXT)
        boxes.nth(0).press("Control+Enter")
        page.wait_for_selector("text=Your own pair", timeout=WAIT_MS)
        wait_idle(page)
        if boxes.nth(0).input_value() == TYPED_TEXT:
            break
    for run in range(runs):
        hypothesis = TYPED_HYPOTHESES[run % len(TYPED_HYPOTHESES)] + ("" if run < len(TYPED_HYPOTHESES) else f" ({run})")
        results.load("typed pair")

        def act(h: str = hypothesis) -> None:
            boxes.nth(1).fill(h)
            boxes.nth(1).press("Control+Enter")

        results.add("typed pair", timed(act, lambda h=hypothesis: page.wait_for_selector(  # type: ignore[misc]
            strip_done(TYPED_TEXT, h), timeout=WAIT_MS)))
        wait_idle(page)
    shot(page, shots, "typed")


def rte2_pairs() -> dict[str, Any]:
    import nltk

    from explorer.datasets import load as load_dataset

    path = Path(str(nltk.data.find("corpora/rte"))) / "rte2_dev.xml"
    return {p.id: p for p in load_dataset(path).pairs}


def bench_rte2(browser: Any, url: str, runs: int, results: Results, shots: Path | None) -> None:
    pairs = rte2_pairs()
    ids = [i for i in RTE2_IDS if i in pairs]
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    # Once, unmeasured: the dataset parsed and its background cutoffs started.
    page.goto(f"{url}/?dataset=rte:rte2_dev.xml&pair={ids[-1]}")
    page.wait_for_selector(".verdict-strip", timeout=WAIT_MS)
    wait_idle(page)
    page.close()
    for run in range(runs):
        pid = ids[run % len(ids)]
        pair = pairs[pid]
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        results.load("RTE2 pair (link)")
        results.add("RTE2 pair (link)", timed(
            lambda p=page, i=pid: p.goto(f"{url}/?dataset=rte:rte2_dev.xml&pair={i}", wait_until="commit"),
            lambda p=page, q=pair: p.wait_for_selector(strip_done(q.text, q.hypothesis), timeout=WAIT_MS)))
        wait_idle(page)
        # The picker: another pair of the same dataset, chosen by typing its id.
        other = pairs[ids[(run + 3) % len(ids)]]
        box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Pair from").locator("input")

        def pick(b: Any = box, o: Any = other, p: Any = page) -> None:
            b.click()
            b.fill(f"{o.id} · ")
            p.keyboard.press("Enter")

        results.load("RTE2 pair (picker)")
        results.add("RTE2 pair (picker)", timed(pick, lambda p=page, o=other: p.wait_for_selector(
            strip_done(o.text, o.hypothesis), timeout=WAIT_MS)))
        wait_idle(page)
        if run == 0:
            shot(page, shots, "rte2")
        page.close()


CELL_XY = """(el) => {
  const gd = el.querySelector('.js-plotly-plot');
  const fl = gd._fullLayout, box = gd.getBoundingClientRect();
  const [p, h] = %s;
  return [box.left + fl.xaxis._offset + fl.xaxis.d2p(p), box.top + fl.yaxis._offset + fl.yaxis.d2p(h)];
}"""


def links_value(page: Any) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Links").first
    return str(metric.locator('[data-testid="stMetricValue"]').inner_text()).strip()


def bench_editor(browser: Any, url: str, runs: int, results: Results, shots: Path | None) -> None:
    pairs = rte2_pairs()
    pid = RTE2_IDS[1]
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.goto(f"{url}/?dataset=rte:rte2_dev.xml&pair={pid}")
    page.wait_for_selector(strip_done(pairs[pid].text, pairs[pid].hypothesis), timeout=WAIT_MS)
    wait_idle(page)
    for attempt in range(4):  # a rerun (the background cutoff job ending) can reopen the first tab
        page.get_by_role("tab", name="Alignment", exact=True).click()
        wait_idle(page)
        try:
            page.get_by_text("Edit this pair's alignment").click(timeout=15_000)
            break
        except Exception:
            if attempt == 3:
                raise
    page.wait_for_selector('[data-testid="stMetric"]', timeout=WAIT_MS)
    wait_idle(page)
    for run in range(runs):
        before = int(links_value(page))
        cell = (run % 4, run % 3)  # cells toggled on, one per run (distinct for up to 12 runs)
        chart = page.locator('[class*="st-key-align_edit_"][class*="_grid_"]').first
        chart.scroll_into_view_if_needed()
        x, y = chart.evaluate(CELL_XY % json.dumps(list(cell)))
        results.load("editor click")
        start = time.perf_counter()
        page.mouse.click(x, y)
        try:
            page.wait_for_function(
                """(n) => [...document.querySelectorAll('[data-testid="stMetric"]')].some(m =>
                    m.innerText.includes('Links') &&
                    m.querySelector('[data-testid="stMetricValue"]').innerText.trim() !== String(n))""",
                arg=before, timeout=WAIT_MS)
            results.add("editor click", time.perf_counter() - start)
        except Exception as err:
            print(f"    (not reached: {type(err).__name__})", flush=True)
            results.add("editor click", None)
        try:
            wait_idle(page)
            results.add("editor idle", time.perf_counter() - start)
        except Exception:
            results.add("editor idle", None)
    shot(page, shots, "editor")
    page.close()


def synthetic_csv(n: int, seed: int) -> str:
    rng = random.Random(seed)
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    lines = ["id,text,hypothesis,label"]
    for i in range(n):
        name, noun, verb, day = rng.choice(NAMES), rng.choice(NOUNS), rng.choice(VERBS), rng.choice(days)
        text = f"The {noun} in {name} was {verb} on {day} after a long debate among residents"
        if rng.random() < 0.5:
            hyp, label = f"The {noun} in {name} was {verb}", "entailment"
        else:
            hyp, label = f"The {rng.choice(NOUNS)} in {rng.choice(NAMES)} was {rng.choice(VERBS)}", "non-entailment"
        lines.append(f"s{seed}-{i},{text},{hyp},{label}")
    return "\n".join(lines) + "\n"


def bench_upload(browser: Any, url: str, runs: int, n: int, results: Results, shots: Path | None) -> None:
    from explorer.datasets import load as load_dataset

    folder = Path(tempfile.mkdtemp(prefix="bench-upload-"))
    nonce = int(time.time()) % 100_000
    for run in range(runs):
        path = folder / f"upload_{nonce}_{run}.csv"
        path.write_text(synthetic_csv(n, seed=nonce * 100 + run), encoding="utf-8")
        first = load_dataset(path).pairs[0]
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(f"{url}/dataset")
        page.get_by_text("Upload a file").click()
        page.locator('input[type="file"]').set_input_files(str(path))
        started = time.perf_counter()
        # The sidebar names the size, with or without a thousands separator.
        page.wait_for_selector(f"text=/\\(({n}|{n:,}) pairs/", timeout=300_000)
        wait_idle(page, timeout=300_000)
        print(f"    upload {run + 1}: parsed and Dataset page idle after {time.perf_counter() - started:.1f} s", flush=True)
        results.load("upload pair")
        results.add("upload pair", timed(
            lambda p=page: p.get_by_role("link", name="Pair").click(),
            lambda p=page, q=first: p.wait_for_selector(strip_done(q.text, q.hypothesis), timeout=WAIT_MS)))
        job = page.locator(".st-key-cutoff_job")
        background = job.count() > 0
        results.notes.append(f"upload {run + 1}: background cutoff progress shown: {background}"
                             + (f" ({job.first.inner_text()[:160]!r})" if background else ""))
        if run == 0:
            shot(page, shots, "upload")
        page.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per target (default 5)")
    parser.add_argument("--cold-runs", type=int, default=2, help="server starts for the cold target (default 2)")
    parser.add_argument("--upload-pairs", type=int, default=20_000)
    parser.add_argument("--upload-runs", type=int, default=3, help="uploads (default 3; each a fresh fingerprint)")
    parser.add_argument("--only", default="cold,typed,rte2,editor,upload")
    parser.add_argument("--fresh-cutoffs", action="store_true", help="an empty cutoff cache instead of the user's")
    parser.add_argument("--shots", type=Path, help="folder for one screenshot per target")
    args = parser.parse_args()
    shared = ROOT.parent / "shared" / "nltk_data"
    if shared.is_dir():
        os.environ.setdefault("NLTK_DATA", str(shared))
    only = set(args.only.split(","))
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
           "ENTAILMENT_EXPLORER_STORE": str(Path(tempfile.mkdtemp(prefix="bench-store-")) / "store.sqlite3")}
    if args.fresh_cutoffs:
        env["EXPLORER_CUTOFF_CACHE"] = tempfile.mkdtemp(prefix="bench-cutoffs-")
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    results = Results()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "(not a git checkout)"
    print(f"load average at start: {load()}; {os.cpu_count()} CPUs; {ROOT} at {commit}", flush=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        if "cold" in only:
            bench_cold(browser, env, args.cold_runs, results, args.shots)
        if only & {"typed", "rte2", "editor", "upload"}:
            with server(env) as url:
                page = browser.new_page(viewport={"width": 1400, "height": 1400})
                page.goto(url)  # warm the server: imports, resources, kernels
                page.wait_for_selector('.verdict-strip[data-pending="0"]', timeout=300_000)
                wait_idle(page, timeout=300_000)
                print(f"server warm (load {load()})", flush=True)
                if "typed" in only:
                    print("typed pairs", flush=True)
                    bench_typed(page, url, args.runs, results, args.shots)
                page.close()
                if "rte2" in only:
                    print("RTE2 pairs", flush=True)
                    bench_rte2(browser, url, args.runs, results, args.shots)
                if "editor" in only:
                    print("alignment editor", flush=True)
                    bench_editor(browser, url, args.runs, results, args.shots)
                if "upload" in only:
                    print(f"uploads of {args.upload_pairs} pairs", flush=True)
                    bench_upload(browser, url, args.upload_runs, args.upload_pairs, results, args.shots)
        browser.close()
    print()
    print(results.table())
    for note in results.notes:
        print(note)
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

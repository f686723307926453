"""Benchmark: the app's first-use timings (goals in docs/BENCHMARKS.md) in a real browser (headless Debian Chromium
driven by Playwright), from the request to the element on screen, on a warm server.

One command runs every target and prints, per target, the median over ``--runs`` runs
(min, max, n), the target, and the load average before and after::

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_browser_timings [--runs 5]

How the end is timed. The browser waits on the Pair page's verdict strip, whose element
carries ``data-pair`` (a hash of the pair's text and hypothesis) and ``data-pending``
(methods still to come), so a stale strip of the previous pair never counts. A small
script the benchmark adds to every page (:data:`RECORDER`) notes, on the page's own clock,
when each complete strip entered the DOM and when it had been painted (two animation
frames later); the figure is that paint time minus the action's start (also noted on the
page's clock, just before the action), or minus the page's navigation start for a link.
Playwright's own wait (``wait_for_selector``) polls at 0, 20, 50, 100, 100 ms and then
every 500 ms, each poll a round trip to a busy browser, so it sees the strip up to
half a second or more after it was painted; its times are printed beside the figures
("Playwright" column) for comparison with earlier runs, which used them.
The server's share: the app server runs with ``EXPLORER_TIMING_LOG`` set
(runtime/timing.py), and the Pair page's own seconds from its script's start to the
strip sent, and to the script's end, are printed per target ("server: ..." rows), with
how many verdicts came from the dataset's stored scores.

Targets:

- ``cold progress``: a fresh server; from the page's navigation start (``page.goto`` as
  soon as the server answers its health check) until the page shows progress (a progress
  bar, a spinner or a status line of the warm-up) or the strip itself; ``cold strip``
  until the first strip is complete. One server start per run (``--cold-runs``), each in
  a new browser profile.
- ``typed pair``: on a warm page, type a new hypothesis (the text typed before it) and
  press Ctrl+Enter; until the strip of that pair is complete (every method's verdict).
- ``RTE2 pair (link)``: ``?dataset=rte:rte2_dev.xml&pair=ID`` opened in a new tab of the
  benchmark's browser (a returning visitor: Streamlit's JavaScript is in the browser's
  cache; a new Streamlit session); until that pair's strip is complete.
  ``RTE2 pair (link, new profile)``: the same in a new browser profile (a first visit:
  the JavaScript is fetched and compiled anew). ``RTE2 pair (picker)``: the Pair page's
  pair picker, a click, the id typed and Enter; from the click's pointer press (Playwright
  first waits for the box to be stable and hit, which is not the user's time) until that
  pair's strip is complete (and ``..., from Enter``: from the Enter that chose the pair,
  without the dropdown).
- ``editor click``: the alignment editor on an RTE2 pair, one click on a grid cell; until
  the *Links* count shows the change (``wait_for_function``, which checks every animation
  frame) and ``editor idle``: until the app is idle.
- ``upload pair``: a fresh ``--upload-pairs`` CSV (synthetic, from word lists, a new
  fingerprint each run so no cache serves it) uploaded on the Dataset page; then a click on
  *Pair*: until the first pair's strip is complete. The dataset's own cutoffs follow in the
  background; whether the page said so is printed.

The machine's load average is printed with the figures: compare runs only at similar
load. ``--only`` picks targets (``cold,typed,rte2,editor,upload``); ``--shots DIR`` saves a
screenshot per target. The store is a throwaway file; the cutoff cache (and the per-pair
scores the background cutoff job stores beside it) is the user's (``--fresh-cutoffs``
uses an empty temporary one). Choose the RTE2 cutoffs first (``python -m
runtime.cutoff_jobs $NLTK_DATA/corpora/rte/rte2_dev.xml --progress /tmp/p.json``),
or the RTE2 rows run beside that dataset's background job (the benchmark says so).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_first_open import synthetic_csv as first_open_csv  # noqa: E402
from explorer.pairs import content_mark as mark  # noqa: E402  (the strip's data-pair)
from runtime.timing import ENV as TIMING_ENV  # noqa: E402
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402  (shared with the browser tests)

#: What counts as "the page shows progress" on a cold start.
PROGRESS = ('[data-testid="stProgress"], [data-testid="stSpinner"], .st-key-warmup_status, .verdict-strip')
WAIT_MS = 120_000
VIEWPORT: Any = {"width": 1400, "height": 1400}  # playwright.sync_api.ViewportSize
TARGETS = {
    "cold progress": 1.0, "typed pair": 1.0, "RTE2 pair (link)": 1.0, "RTE2 pair (picker)": 1.0,
    "RTE2 pair (link, new profile)": 1.0, "editor click": 0.5, "upload pair": 3.0,
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
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def strip_done(text: str, hypothesis: str) -> str:
    return f'.verdict-strip[data-pair="{mark(text, hypothesis)}"][data-pending="0"]'


#: Runs in every page before the app (``add_init_script``): for each complete verdict strip
#: (``data-pending="0"``) and for the first sign of progress (:data:`PROGRESS`), the page's
#: own clock when it entered the DOM and when it had been painted (two animation frames
#: later: the frame that drew it has been presented). The clock is ``performance.now()``:
#: milliseconds from the page's navigation start; ``window.__t0`` marks an action's start.
RECORDER = """(() => {
  const marks = window.__strips = {};
  window.__progress = null;
  const painted = (entry) => requestAnimationFrame(() => requestAnimationFrame(() => { entry.painted = performance.now(); }));
  const look = () => {
    for (const el of document.querySelectorAll('.verdict-strip[data-pending="0"]')) {
      const m = el.getAttribute('data-pair');
      if (!(m in marks)) { marks[m] = {inserted: performance.now(), painted: null}; painted(marks[m]); }
    }
    if (window.__progress === null && document.querySelector(%s)) {
      window.__progress = {inserted: performance.now(), painted: null}; painted(window.__progress);
    }
  };
  document.addEventListener('keydown', (e) => { if (e.key === 'Enter') window.__enter = performance.now(); }, true);
  document.addEventListener('pointerdown', () => { if (window.__pointer === null) window.__pointer = performance.now(); }, true);
  const start = () => new MutationObserver(look).observe(document.documentElement, {childList: true, subtree: true});
  if (document.documentElement) start(); else document.addEventListener('readystatechange', start, {once: true});
})()"""


def new_tab(context: Any) -> Any:
    """A new tab in the benchmark's browser (one profile: a returning visitor's cache)."""
    return context.new_page()


def fresh_profile(browser: Any) -> Any:
    """A tab in a new browser profile (empty cache: Streamlit's JavaScript fetched anew)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(RECORDER % json.dumps(PROGRESS))
    return context.new_page()


def arm(page: Any) -> None:
    """Mark an action's start on the page's clock (just before the action)."""
    page.evaluate("window.__t0 = performance.now(); window.__pointer = null")


def painted(page: Any, text: str, hypothesis: str, *, since_navigation: bool = False,
            since_click: bool = False) -> float | None:
    """Seconds from the armed start (or from the page's navigation start, or from the
    action's first pointer press) until the pair's complete strip had been painted, on the
    page's own clock; None if not recorded."""
    start = "window.__pointer ?? window.__t0" if since_click else "window.__t0 || 0"
    found = page.wait_for_function(
        "(m) => window.__strips && window.__strips[m] && window.__strips[m].painted !== null "
        f"&& [window.__strips[m].painted, {start}]", arg=mark(text, hypothesis), timeout=10_000)
    end, start = found.json_value()
    return (end - (0.0 if since_navigation else start)) / 1000


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


@contextmanager
def server(env: dict[str, str]) -> Iterator[str]:
    """``streamlit run app.py`` on a free port until the block ends (it and the background
    cutoff jobs it started); yields its URL once the health check answers."""
    with streamlit_server(env, timeout=120) as served:
        yield served.url


#: Whether the app has been idle (no script running, nothing stale) for ``quiet`` ms on end.
#: Every visible Plotly chart has been drawn (the browser draws them after the run ends).
DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
    .every(e => e.offsetParent === null || e.querySelector('.main-svg'))"""
QUIET = ("(quiet) => {\n  const now = performance.now();\n  if (!(" + IDLE.strip() + ")() || !(" + DRAWN
         + ")()) { window.__busyAt = now; return false; }\n  return now - window.__busyAt >= quiet;\n}")


def wait_idle(page: Any, timeout: float = WAIT_MS, quiet: float = 500) -> None:
    """Until the app has been idle, with every visible chart drawn, for ``quiet`` ms on end:
    a new pair's figures come in a second run, which starts as the first ends, and a
    measured action should start on a page that is not still drawing them."""
    page.evaluate("window.__busyAt = performance.now()")
    page.wait_for_function(QUIET, arg=quiet, timeout=timeout)


class Results:
    def __init__(self) -> None:
        self.figures: dict[str, list[float | None]] = {}
        self.seen: dict[str, list[float | None]] = {}
        self.loads: dict[str, list[str]] = {}
        self.notes: list[str] = []

    def add(self, target: str, value: float | None, seen: float | None = None) -> None:
        """``value``: the figure (on the page's clock where the target has one); ``seen``:
        the same wait as Playwright's own wait saw it (its polling backs off to 500 ms)."""
        self.figures.setdefault(target, []).append(value)
        self.seen.setdefault(target, []).append(seen)
        shown = "not reached" if value is None else f"{value:.2f} s"
        also = "" if seen is None else f" (Playwright's wait: {seen:.2f} s)"
        print(f"  {target}: {shown}{also}", flush=True)

    def load(self, target: str) -> None:
        self.loads.setdefault(target, []).append(load())

    def table(self) -> str:
        lines = [f"{'target':<32} {'median':>7} {'min':>6} {'max':>6} {'n':>3} {'missed':>6} {'goal':>5} "
                 f"{'Playwright':>10}  load (1/5/15 min)"]
        for target, values in self.figures.items():
            got = [v for v in values if v is not None]
            seen = [v for v in self.seen.get(target, []) if v is not None]
            goal = TARGETS.get(target)
            med = f"{statistics.median(got):.2f}" if got else "-"
            lo = f"{min(got):.2f}" if got else "-"
            hi = f"{max(got):.2f}" if got else "-"
            pw = f"{statistics.median(seen):.2f}" if seen else ""
            loads = self.loads.get(target, [])
            span = f"{loads[0]} .. {loads[-1]}" if loads else ""
            lines.append(f"{target:<32} {med:>7} {lo:>6} {hi:>6} {len(got):>3} {len(values) - len(got):>6} "
                         f"{(f'{goal:g} s' if goal else ''):>5} {pw:>10}  {span}")
        return "\n".join(lines)


class ServerLog:
    """The Pair page's own timings (``EXPLORER_TIMING_LOG``, runtime/timing.py): per run,
    seconds from the script's start to the strip sent, and to the script's end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def arm(self) -> None:
        """Only runs logged from now on count (call just before an action)."""
        try:
            self.offset = self.path.stat().st_size
        except OSError:
            self.offset = 0

    def first(self, text: str, hypothesis: str) -> dict[str, Any] | None:
        """The first run since :meth:`arm` that sent this pair's strip (a new pair's
        figures follow in a second run, which sends the strip again)."""
        want = mark(text, hypothesis)
        try:
            with self.path.open(encoding="utf-8") as handle:
                handle.seek(self.offset)
                lines = handle.read().splitlines()
        except OSError:
            return None
        for line in lines:
            entry = json.loads(line)
            if entry.get("mark") == want:
                return dict(entry)
        return None

    def add(self, results: Results, target: str, text: str, hypothesis: str) -> None:
        entry = self.first(text, hypothesis)
        if entry is None:
            return
        results.figures.setdefault(f"{target}, server: strip sent", []).append(float(entry["strip"]))
        results.figures.setdefault(f"{target}, server: script end", []).append(float(entry["end"]))
        stored = int(entry.get("stored", 0))
        results.figures.setdefault(f"{target}, stored verdicts", []).append(float(stored))


def shot(page: Any, shots: Path | None, name: str) -> None:
    if shots is not None:
        page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


# -- targets --------------------------------------------------------------------------------


def bench_cold(browser: Any, env: dict[str, str], runs: int, results: Results, shots: Path | None) -> None:
    for run in range(runs):
        print(f"cold start {run + 1}/{runs} (load {load()})", flush=True)
        with server(env) as url:
            page = fresh_profile(browser)
            results.load("cold progress")
            start = time.perf_counter()
            page.goto(url, wait_until="commit")
            try:
                page.wait_for_selector(PROGRESS, timeout=WAIT_MS)
                seen = time.perf_counter() - start
                found = page.wait_for_function("() => window.__progress && window.__progress.painted",
                                               timeout=10_000)
                results.add("cold progress", float(found.json_value()) / 1000, seen)
            except Exception:
                results.add("cold progress", None)
            try:
                page.wait_for_selector('.verdict-strip[data-pending="0"]', timeout=300_000)
                seen = time.perf_counter() - start
                found = page.wait_for_function(
                    "() => Math.min(...Object.values(window.__strips).map(e => e.painted ?? Infinity))", timeout=10_000)
                results.add("cold strip", float(found.json_value()) / 1000, seen)
            except Exception:
                results.add("cold strip", None)
            shot(page, shots, f"cold-{run}")
            page.context.close()


def bench_typed(page: Any, url: str, runs: int, results: Results, shots: Path | None, log: ServerLog) -> None:
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
        log.arm()
        arm(page)
        start = time.perf_counter()
        boxes.nth(1).fill(hypothesis)
        boxes.nth(1).press("Control+Enter")
        try:
            page.wait_for_selector(strip_done(TYPED_TEXT, hypothesis), timeout=WAIT_MS)
            seen = time.perf_counter() - start
            results.add("typed pair", painted(page, TYPED_TEXT, hypothesis), seen)
        except Exception as err:
            print(f"    (not reached: {type(err).__name__})", flush=True)
            results.add("typed pair", None)
        wait_idle(page)
        log.add(results, "typed pair", TYPED_TEXT, hypothesis)
    shot(page, shots, "typed")


def rte2_pairs() -> dict[str, Any]:
    import nltk

    from explorer.datasets import load as load_dataset

    path = Path(str(nltk.data.find("corpora/rte"))) / "rte2_dev.xml"
    return {p.id: p for p in load_dataset(path).pairs}


def open_link(page: Any, url: str, pair: Any, target: str, results: Results, log: ServerLog | None = None) -> bool:
    """Open the pair's link in ``page``; the figure is from the page's navigation start."""
    results.load(target)
    if log is not None:
        log.arm()
    start = time.perf_counter()
    page.goto(f"{url}/?dataset=rte:rte2_dev.xml&pair={pair.id}", wait_until="commit")
    try:
        page.wait_for_selector(strip_done(pair.text, pair.hypothesis), timeout=WAIT_MS)
        seen = time.perf_counter() - start
        results.add(target, painted(page, pair.text, pair.hypothesis, since_navigation=True), seen)
        return True
    except Exception as err:
        print(f"    (not reached: {type(err).__name__}: {str(err).splitlines()[0][:120]})", flush=True)
        results.add(target, None)
        return False


def bench_rte2(browser: Any, context: Any, url: str, runs: int, results: Results, shots: Path | None,
               log: ServerLog) -> None:
    pairs = rte2_pairs()
    ids = [i for i in RTE2_IDS if i in pairs]
    page = new_tab(context)
    # Once, unmeasured: the dataset parsed and its background cutoffs started.
    page.goto(f"{url}/?dataset=rte:rte2_dev.xml&pair={ids[-1]}")
    page.wait_for_selector(".verdict-strip", timeout=WAIT_MS)
    wait_idle(page)
    if page.locator(".st-key-cutoff_job [data-testid='stProgress']").count():
        results.notes.append("RTE2: the background cutoff job was running when the RTE2 rows started "
                             f"({page.locator('.st-key-cutoff_job').first.inner_text()[:160]!r}); choose the "
                             "cutoffs first (python -m runtime.cutoff_jobs DATA --progress F)")
    page.close()
    for run in range(runs):
        pair = pairs[ids[run % len(ids)]]
        # A returning visitor's new tab (the browser has the app's JavaScript cached) ...
        page = new_tab(context)
        if open_link(page, url, pair, "RTE2 pair (link)", results, log):
            log.add(results, "RTE2 pair (link)", pair.text, pair.hypothesis)
        wait_idle(page)
        # ... then the picker on that tab: another pair of the same dataset, its id typed.
        other = pairs[ids[(run + 3) % len(ids)]]
        box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Pair from").locator("input")
        results.load("RTE2 pair (picker)")
        log.arm()
        arm(page)
        start = time.perf_counter()
        box.click()
        box.fill(f"{other.id} · ")
        page.keyboard.press("Enter")
        try:
            page.wait_for_selector(strip_done(other.text, other.hypothesis), timeout=WAIT_MS)
            seen = time.perf_counter() - start
            results.add("RTE2 pair (picker)", painted(page, other.text, other.hypothesis, since_click=True), seen)
            # The same, from the Enter that chose the pair (not the dropdown's opening and filtering).
            end, enter = page.evaluate("(m) => [window.__strips[m].painted, window.__enter]",
                                       mark(other.text, other.hypothesis))
            results.figures.setdefault("RTE2 pair (picker), from Enter", []).append((end - enter) / 1000)
            log.add(results, "RTE2 pair (picker)", other.text, other.hypothesis)
        except Exception as err:
            print(f"    (not reached: {type(err).__name__})", flush=True)
            results.add("RTE2 pair (picker)", None)
        wait_idle(page)
        if run == 0:
            shot(page, shots, "rte2")
        page.close()
        # A first visit: a new browser profile, so Streamlit's JavaScript is fetched anew.
        fresh = fresh_profile(browser)
        open_link(fresh, url, pairs[ids[(run + 5) % len(ids)]], "RTE2 pair (link, new profile)", results)
        fresh.context.close()


CELL_XY = """(el) => {
  const gd = el.querySelector('.js-plotly-plot');
  const fl = gd._fullLayout, box = gd.getBoundingClientRect();
  const [p, h] = %s;
  return [box.left + fl.xaxis._offset + fl.xaxis.d2p(p), box.top + fl.yaxis._offset + fl.yaxis.d2p(h)];
}"""


def links_value(page: Any) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Links").first
    return str(metric.locator('[data-testid="stMetricValue"]').inner_text()).strip()


def bench_editor(context: Any, url: str, runs: int, results: Results, shots: Path | None) -> None:
    pairs = rte2_pairs()
    pid = RTE2_IDS[1]
    page = new_tab(context)
    page.set_viewport_size({"width": 1400, "height": 1600})
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
            page.wait_for_timeout(150)  # the run has started
            page.wait_for_function(IDLE, timeout=WAIT_MS)
            results.add("editor idle", time.perf_counter() - start)
            wait_idle(page)  # settled before the next click
        except Exception:
            results.add("editor idle", None)
    shot(page, shots, "editor")
    page.close()


def synthetic_csv(n: int, seed: int) -> str:
    """The upload: :func:`bench.bench_first_open.synthetic_csv` with ids unique to the run
    and weekdays only."""
    return first_open_csv(n, seed, id_prefix=f"s{seed}-", days=WEEKDAYS)


def bench_upload(context: Any, url: str, runs: int, n: int, results: Results, shots: Path | None) -> None:
    from explorer.datasets import load as load_dataset

    folder = Path(tempfile.mkdtemp(prefix="bench-upload-"))
    nonce = int(time.time()) % 100_000
    for run in range(runs):
        path = folder / f"upload_{nonce}_{run}.csv"
        path.write_text(synthetic_csv(n, seed=nonce * 100 + run), encoding="utf-8")
        first = load_dataset(path).pairs[0]
        page = new_tab(context)
        page.goto(f"{url}/dataset")
        page.get_by_text("Upload a file").click()
        page.locator('input[type="file"]').set_input_files(str(path))
        started = time.perf_counter()
        # The sidebar names the size, with or without a thousands separator.
        page.wait_for_selector(f"text=/\\(({n}|{n:,}) pairs/", timeout=300_000)
        wait_idle(page, timeout=300_000)
        print(f"    upload {run + 1}: parsed and Dataset page idle after {time.perf_counter() - started:.1f} s", flush=True)
        results.load("upload pair")
        arm(page)
        start = time.perf_counter()
        page.get_by_role("link", name="Pair").click()
        try:
            page.wait_for_selector(strip_done(first.text, first.hypothesis), timeout=WAIT_MS)
            seen = time.perf_counter() - start
            results.add("upload pair", painted(page, first.text, first.hypothesis), seen)
        except Exception as err:
            print(f"    (not reached: {type(err).__name__})", flush=True)
            results.add("upload pair", None)
        # The job's progress comes after the strip in the run: give it a moment to be drawn
        # (its box can be there a moment before its text; every text of it names the cutoffs).
        job = page.locator(".st-key-cutoff_job").filter(has_text="cutoffs")
        try:
            job.first.wait_for(timeout=3000)
        except Exception:
            pass
        background = job.count() > 0
        results.notes.append(f"upload {run + 1}: background cutoff progress shown: {background}"
                             + (f" ({job.first.inner_text()[:160]!r})" if background else ""))
        if run == 0:
            shot(page, shots, "upload")
        page.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per target (default 5)")
    parser.add_argument("--cold-runs", type=int, default=2, help="server starts for the cold target (default 2)")
    parser.add_argument("--upload-pairs", type=int, default=20_000)
    parser.add_argument("--upload-runs", type=int, default=3, help="uploads (default 3; each a fresh fingerprint)")
    parser.add_argument("--only", default="cold,typed,rte2,editor,upload")
    parser.add_argument("--fresh-cutoffs", action="store_true", help="an empty cutoff cache instead of the user's")
    parser.add_argument("--shots", type=Path, help="folder for one screenshot per target")
    args = parser.parse_args(argv)
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
    server_log = ServerLog(Path(tempfile.mkdtemp(prefix="bench-timing-")) / "pair-page.jsonl")
    env[TIMING_ENV] = str(server_log.path)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        if "cold" in only:
            bench_cold(browser, env, args.cold_runs, results, args.shots)
        if only & {"typed", "rte2", "editor", "upload"}:
            with server(env) as url:
                # One browser profile for the warm targets: each page a new tab of it.
                context = browser.new_context(viewport=VIEWPORT)
                context.add_init_script(RECORDER % json.dumps(PROGRESS))
                page = new_tab(context)
                page.goto(url)  # warm the server: imports, resources, kernels
                page.wait_for_selector('.verdict-strip[data-pending="0"]', timeout=300_000)
                wait_idle(page, timeout=300_000)
                print(f"server warm (load {load()})", flush=True)
                if "typed" in only:
                    print("typed pairs", flush=True)
                    bench_typed(page, url, args.runs, results, args.shots, server_log)
                page.close()
                if "rte2" in only:
                    print("RTE2 pairs", flush=True)
                    bench_rte2(browser, context, url, args.runs, results, args.shots, server_log)
                if "editor" in only:
                    print("alignment editor", flush=True)
                    bench_editor(context, url, args.runs, results, args.shots)
                if "upload" in only:
                    print(f"uploads of {args.upload_pairs} pairs", flush=True)
                    bench_upload(context, url, args.upload_runs, args.upload_pairs, results, args.shots)
                context.close()
        browser.close()
    print()
    print(results.table())
    for note in results.notes:
        print(note)
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A hostile typed pair against a real server: ``"h " * N`` in both boxes of the
Pair page, typed in headless Chromium (N = 9999 by default: 20,000 characters a box, the
page's limit, and far past the 2,000-token ``max_tokens`` limit; ``--repeat 300`` stays
under it, so the page scores the pair).

Serves ``app.py`` with the browser tests' server (``tests/e2e/browser.streamlit_server``),
samples the server's resident memory (the process and its children) every 0.1 s while the
browser types the pair, waits until the page has answered it and is idle, and prints: the
peak RSS, the seconds until the page answered (a refusal, or the new pair's verdict strip)
and until it was idle, what the page said, and whether the server still answers. Run:

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_hostile_pair [--repeat 9999]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from explorer.pairs import content_mark  # noqa: E402
from explorer.preprocess import clean_text, tokenize  # noqa: E402
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402

#: The page has answered a pair: a verdict strip for it (``data-pair``, a hash of the pair),
#: or a box whose text names it (the refusal names both sides' token counts).
ANSWERED = """([mark, words]) => [...document.querySelectorAll('.verdict-strip')].some(
        e => e.getAttribute('data-pair') === mark) ||
    [...document.querySelectorAll('[data-testid="stAlert"]')].some(e => e.innerText.includes(words))"""
WAIT_MS = 600_000


def _rss_tree_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants, in MB (from /proc)."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            with open(f"/proc/{p}/task/{p}/children", encoding="ascii") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            continue
    return total / 1024


def mark(text: str, hypothesis: str) -> str:
    """The strip's ``data-pair`` for a typed pair (the page cleans typed text first)."""
    return content_mark(clean_text(text), clean_text(hypothesis))


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


def idle(page: object) -> None:
    """Idle twice: a new pair's figures come in a second run, right after the first."""
    for _ in range(2):
        page.wait_for_timeout(300)  # type: ignore[attr-defined]
        page.wait_for_function(IDLE, timeout=WAIT_MS)  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9999, help="how many 'h ' per box (default 9999)")
    parser.add_argument("--screenshot", help="save the page as PNG here at the end")
    args = parser.parse_args(argv)
    shared = ROOT.parent / "shared" / "nltk_data"
    if shared.is_dir():
        os.environ.setdefault("NLTK_DATA", str(shared))
    from playwright.sync_api import sync_playwright

    env = {"ENTAILMENT_EXPLORER_STORE": str(Path(tempfile.mkdtemp(prefix="bench-store-")) / "store.sqlite3")}
    peak = [0.0]
    stop = threading.Event()
    print(f"load average at start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with streamlit_server(env, timeout=120) as served, sync_playwright() as p:
        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], _rss_tree_mb(served.pid))
                time.sleep(0.1)

        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(served.url)
        page.wait_for_selector('.verdict-strip[data-pending="0"]', timeout=WAIT_MS)  # warm-up done
        idle(page)
        before = _rss_tree_mb(served.pid)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        hostile = "h " * args.repeat
        boxes = page.locator("textarea")
        kept = boxes.nth(1).input_value()
        started = time.monotonic()
        # The text first (the page answers the hostile text with the old hypothesis), then
        # the hypothesis; each until the page has answered that pair and is idle.
        for box, (text, hypothesis) in enumerate(((hostile, kept), (hostile, hostile))):
            boxes.nth(box).fill(hostile)
            boxes.nth(box).press("Control+Enter")
            words = f"{len(tokenize(hypothesis)):,} hypothesis tokens"
            page.wait_for_function(ANSWERED, arg=[mark(text, hypothesis), words], timeout=WAIT_MS)
            answered = time.monotonic() - started
            idle(page)
        seconds = time.monotonic() - started
        stop.set()
        sampler.join()
        if args.screenshot:
            page.screenshot(path=args.screenshot, full_page=True)
        said = [t.strip().replace("\n", " ")[:200] for t in page.locator('[data-testid="stAlert"]').all_inner_texts()]
        strip = page.locator(f'.verdict-strip[data-pair="{mark(hostile, hostile)}"]')
        verdicts = (f"the pair's verdict strip: {strip.first.get_attribute('data-methods')} methods, "
                    f"{strip.first.get_attribute('data-pending')} pending" if strip.count() else "no verdict strip")
        slow_button = page.get_by_role("button", name="Run slow methods").count() > 0
        browser.close()
        healthy = _healthy(served.url)
    print(f"typed pair: {args.repeat} tokens per side ({2 * args.repeat} characters per box)")
    print(f"server RSS before: {before:.0f} MB; peak while answering: {peak[0]:.0f} MB")
    print(f"page answered the whole pair after {answered:.1f} s, idle again after {seconds:.1f} s "
          f"(from typing the text); server answers afterwards: {healthy}")
    print(f"page shows: {verdicts}" + ("; a 'Run slow methods' button" if slow_button else ""))
    for line in said:
        print(f"  page says: {line}")
    print(f"load average at end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

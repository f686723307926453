"""Issue 10's hostile typed pair against a real server: ``"h " * 9999`` in both boxes of the
Pair page (under its 20,000-character limit), typed in headless Chromium.

Starts ``streamlit run app.py`` on a free localhost port, samples the server's resident
memory (the process and its children) every 0.1 s while a browser types the pair, waits
until the page has finished, and prints: the peak RSS, the seconds until the page was
idle again, what the page said (refusals), and whether the server still answers. Run:

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_hostile_pair [--repeat 9999]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
IDLE = """() => !document.querySelector(
    '[data-testid="stStatusWidgetRunningIcon"], [data-testid="stStatusWidgetRunningManIcon"], [data-stale="true"]')"""


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9999, help="how many 'h ' per box (default 9999)")
    parser.add_argument("--screenshot", help="save the page as PNG here at the end")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "ENTAILMENT_EXPLORER_STORE": str(Path(tempfile.mkdtemp()) / "store.sqlite3")}
    log = tempfile.TemporaryFile()
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                               "--server.port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _rss_tree_mb(server.pid))
            time.sleep(0.1)

    try:
        deadline = time.monotonic() + 120
        while not _healthy(url):
            if time.monotonic() > deadline or server.poll() is not None:
                log.seek(0)
                print(log.read().decode(errors="replace"))
                return 1
            time.sleep(0.3)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("textarea", timeout=120_000)
            page.wait_for_function(IDLE, timeout=300_000)
            before = _rss_tree_mb(server.pid)
            threading.Thread(target=sample, daemon=True).start()
            hostile = "h " * args.repeat
            boxes = page.locator("textarea")
            started = time.monotonic()
            for i in range(2):
                boxes.nth(i).fill(hostile)
                boxes.nth(i).press("Control+Enter")
                page.wait_for_timeout(300)
                page.wait_for_function(IDLE, timeout=600_000)
            seconds = time.monotonic() - started
            # Whatever the page draws next: refusals, scores, or nothing if it died.
            page.wait_for_selector('[data-testid="stAlert"], [data-testid="stDataFrame"], [data-testid="stTable"], .verdict-strip', timeout=600_000)
            page.wait_for_function(IDLE, timeout=600_000)
            seconds = time.monotonic() - started
            if args.screenshot:
                page.screenshot(path=args.screenshot, full_page=True)
            said = [t.strip().replace("\n", " ")[:160] for t in page.locator('[data-testid="stAlert"]').all_inner_texts()]
            browser.close()
        stop.set()
        print(f"typed pair: {args.repeat} tokens per side ({2 * args.repeat} characters per box)")
        print(f"server RSS before: {before:.0f} MB; peak while scoring: {peak[0]:.0f} MB")
        print(f"page idle again after {seconds:.1f} s; server answers afterwards: {_healthy(url)}")
        for line in said:
            print(f"  page says: {line}")
        return 0
    finally:
        stop.set()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())

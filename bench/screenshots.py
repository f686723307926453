"""Regenerate the screenshots of the current UI that the README and docs/APP.md show (not a
benchmark: it prints the files it wrote). Starts ``streamlit run app.py`` on a free localhost port with a throwaway
store, drives Debian's Chromium through Playwright, and saves:

- ``pair-verdicts.png``: the Pair page on a typical-sample pair, its verdict strip filled in;
- ``teach-METHOD.png``: the Teach page in its presentation layout at a 1280x720 projector
  size, one per method, each on a step worth showing (BLEU's clipped 2-grams, WER's
  backtrace, an ITG chart row with a split, a MANLI round that replaced an edit and accepted
  a worse alignment, a pPDA lemma match), opened from a prepared link (``?step=``);
- ``evaluate-typical.png``: the Evaluate page on the typical sample (curves and summary);
- ``dataset.png``: the Dataset page's filters and table;
- ``pair-annotation.png``, ``alignment-editor.png``, ``errors.png``: an annotation saved, an
  alignment link added by clicking the grid and saved, the Errors page counting them; the
  end-to-end browser test takes these along its way (``tests/e2e/test_e2e.py`` with
  ``E2E_SCREENSHOTS``), run here on a server of its own.

Run (a few minutes on a quiet machine):

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.screenshots [--out docs/screenshots] [--pair 5] [--only teach,pages,annotation]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

from tests.e2e.browser import chromium, settle, streamlit_server, watch_runs

ROOT = Path(__file__).resolve().parents[1]
#: The verdict strip marks methods not run yet with this hover text.
STRIP_DONE = """() => document.querySelector('span[title*="gold label"], span[title*="no gold label"]') !== null
    && document.querySelectorAll('span[title*="not run yet"]').length === 0"""
WAIT = 180_000  # ms: the first page of a cold server loads WordNet, MANLI's weights, ...
#: True once no element is a placeholder still loading its code (a table, a chart).
NOTHING_LOADING = "() => !document.querySelector('[data-testid=\"stSkeleton\"]')"


def _settle(page) -> None:  # type: ignore[no-untyped-def]
    settle(page, WAIT)


@contextmanager
def _shooting_page(*, width: int, height: int) -> Iterator[Any]:
    """A tab of a fresh Chromium at ``width`` x ``height``, its waits set for screenshots."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": height})
        watch_runs(page)  # settle() follows the page's script runs
        page.set_default_timeout(WAIT)  # a screenshot on a loaded machine takes more than Playwright's 30 s
        yield page


def _main_area(page, path: Path, *, height: int) -> None:  # type: ignore[no-untyped-def]
    """A screenshot of the page from the top, ``height`` pixels tall."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(600)
    _settle(page)
    # Tables and charts come in chunks of their own; until one has loaded, a grey placeholder.
    page.wait_for_function(NOTHING_LOADING, timeout=WAIT)
    page.screenshot(path=str(path))


#: Each Teach method's screenshot: the pair and a test picking the step worth showing.
TEACH_EXAMPLE = ("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle.")
LEMMA_PAIR = ("The old bridge was closed on Monday.", "The bridge is closed.")
SYNONYM_PAIR = ("The chef bought a large car last spring.", "A cook purchased a big automobile.")
TEACH_SHOTS: dict[str, tuple[tuple[str, str], Callable[[Any], bool]]] = {
    "bleu": (TEACH_EXAMPLE, lambda s: s.phase == "clip" and s.n == 2),
    "wer": (TEACH_EXAMPLE, lambda s: s.phase == "backtrace" and "replaced" in s.explain),
    "itg": (TEACH_EXAMPLE, lambda s: s.phase == "span" and ("straight" in s.explain or "inverted" in s.explain)),
    "manli": (TEACH_EXAMPLE, lambda s: "replacing" in s.explain and "accepted by chance" in s.explain
              and s.temperature > 5 and "down 0.0" not in s.explain and "less than" not in s.explain),
    "edit": (LEMMA_PAIR, lambda s: "lemma" in s.explain and s.phase == "op"),
    "embed": (SYNONYM_PAIR, lambda s: s.phase == "links"),
}


def teach(url: str, out: Path) -> list[Path]:
    """The Teach screenshots at 1280x720, one per method (see :data:`TEACH_SHOTS`)."""
    from components.teach_methods import TEACH_METHODS, trace_of
    from explorer.preprocess import analyze_pair, make_pair

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with _shooting_page(width=1280, height=720) as page:
        for method, (pair, wanted) in TEACH_SHOTS.items():
            trace = trace_of(method, None, analyze_pair(make_pair(*pair)))
            step = next(k + 1 for k, s in enumerate(trace.steps) if wanted(s))
            page.goto(f"{url}/teach?presentation=true&teach_method={quote_plus(TEACH_METHODS[method].label)}"
                      f"&teach_text={quote_plus(pair[0])}&teach_hypothesis={quote_plus(pair[1])}&step={step}",
                      wait_until="domcontentloaded")
            page.wait_for_selector(f".tp[data-drawn-step='{step}']", timeout=WAIT)
            _settle(page)
            page.wait_for_selector(f".tp[data-drawn-step='{step}']", timeout=WAIT)
            path = out / f"teach-{method}.png"
            page.screenshot(path=str(path))
            written.append(path)
    return written


def take(url: str, out: Path, pair: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with _shooting_page(width=1400, height=1000) as page:
        page.goto(f"{url}/?dataset=sample%3Atypical.xml&pair={pair}", wait_until="domcontentloaded")
        page.wait_for_selector("h1:has-text('Pair')", timeout=WAIT)
        page.wait_for_function(STRIP_DONE, timeout=WAIT)
        _main_area(page, out / "pair-verdicts.png", height=1250)
        written.append(out / "pair-verdicts.png")

        page.goto(f"{url}/evaluate?dataset=sample%3Atypical.xml", wait_until="domcontentloaded")
        page.wait_for_selector("h1:has-text('Evaluate')", timeout=WAIT)
        page.get_by_text("Accuracy against cutoff").first.wait_for(timeout=WAIT)
        _main_area(page, out / "evaluate-typical.png", height=1500)
        written.append(out / "evaluate-typical.png")

        page.goto(f"{url}/dataset?dataset=sample%3Atypical.xml", wait_until="domcontentloaded")
        page.wait_for_selector("h1:has-text('Dataset')", timeout=WAIT)
        page.get_by_text("Tick a row's box").wait_for(timeout=WAIT)
        _main_area(page, out / "dataset.png", height=1250)
        written.append(out / "dataset.png")
    return written


#: The screenshots the end-to-end browser test takes along its way (:func:`annotation`).
ANNOTATION_SHOTS = ("pair-annotation.png", "alignment-editor.png", "errors.png")
#: The groups ``--only`` can pick.
GROUPS = ("pages", "teach", "annotation")


def annotation(out: Path) -> list[Path]:
    """:data:`ANNOTATION_SHOTS`, by running ``tests/e2e/test_e2e.py`` with ``E2E_SCREENSHOTS``
    (its own server and throwaway store); its output when it fails."""
    out.mkdir(parents=True, exist_ok=True)
    before = {name: (out / name).stat().st_mtime_ns if (out / name).exists() else 0 for name in ANNOTATION_SHOTS}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/e2e/test_e2e.py"],
                         cwd=ROOT, env={**os.environ, "E2E_SCREENSHOTS": str(out.resolve())},
                         capture_output=True, text=True, check=False)
    stale = [n for n in ANNOTATION_SHOTS if not (out / n).exists() or (out / n).stat().st_mtime_ns == before[n]]
    if run.returncode != 0 or stale:
        raise SystemExit(f"the end-to-end test did not write {', '.join(stale) or 'its screenshots'}:\n"
                         f"{run.stdout[-3000:]}{run.stderr[-2000:]}")
    return [out / n for n in ANNOTATION_SHOTS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"), help="folder for the PNGs")
    parser.add_argument("--pair", default="5", help="the typical-sample pair on the Pair page (default 5: the methods disagree)")
    parser.add_argument("--only", default=",".join(GROUPS),
                        help=f"comma-separated groups of screenshots (default all: {','.join(GROUPS)})")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    if only - set(GROUPS):
        parser.error(f"--only takes {', '.join(GROUPS)}")
    scratch = Path(tempfile.mkdtemp(prefix="screenshots-"))
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
           # A fresh store and cutoff cache: the pages as a first visitor sees them (shipped cutoffs).
           "ENTAILMENT_EXPLORER_STORE": str(scratch / "store.sqlite3"), "EXPLORER_UPLOADS_DIR": str(scratch / "uploads"),
           "EXPLORER_CUTOFF_CACHE": str(scratch / "cutoffs"),
           # No background cutoff job: its progress bar would stand in the Pair page's shot.
           "EXPLORER_BACKGROUND_CUTOFFS": "0"}
    if only & {"pages", "teach"}:
        with streamlit_server(env, timeout=120) as served:
            written = take(served.url, Path(args.out), args.pair) if "pages" in only else []
            for path in written + (teach(served.url, Path(args.out)) if "teach" in only else []):
                print(path, flush=True)
    if "annotation" in only:
        for path in annotation(Path(args.out)):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

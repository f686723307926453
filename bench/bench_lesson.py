"""Benchmark: lesson shape and the exported lesson file.

- ``--steps``: every Teach method (each option) on the sample pairs and on the RTE1-3 dev
  pairs inside the teaching limit (``--rte N`` of each file, the longest first): the step
  count (median, max) and how many steps change neither the figure nor the caption's
  numbers (the sentence aside) against the step before;
- ``--file``: the exported file's size per method on the Teach page's example pair and for a
  deck of three, and its time to first figure opened from disk in headless Debian Chromium
  (the player's ``data-first-figure-ms``: from the page's start to the first figure drawn;
  every network request blocked, and counted).

The load average is printed before and after: compare runs only at similar load.

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_lesson --steps [--rte 5]
    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.bench_lesson --file [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from components.figures.teaching import LessonStep
from components.lesson_export import DeckItem, deck_file
from components.teach_methods import TEACH_METHODS, lesson, trace_of
from explorer.datasets import load
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair, make_pair
from explorer.teaching import TEACHING_MAX_TOKENS
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ("Mira sold her old bicycle to a neighbour on Sunday.", "On Sunday, Mira sold a bicycle.")


def still(before: LessonStep, after: LessonStep) -> bool:
    """True when a step changes neither the figure nor the caption (its numbers)."""
    return before["figure"] == after["figure"] and before["caption"] == after["caption"]


def variants() -> list[tuple[str, str | None]]:
    return [(name, value) for name, row in TEACH_METHODS.items()
            for value in (row.option.choices if row.option else [None])]


def teachable(pairs: list[Pair]) -> list[Pair]:
    inside = []
    for pair in pairs:
        analyzed = analyze_pair(pair)
        if 0 < len(analyzed.text) <= TEACHING_MAX_TOKENS and 0 < len(analyzed.hypothesis) <= TEACHING_MAX_TOKENS:
            inside.append(pair)
    return inside


def sample_pairs(rte: int) -> list[Pair]:
    pairs = teachable([*load(ROOT / "sample_data" / "typical.xml").pairs,
                       *load(ROOT / "sample_data" / "blind_spots.xml").pairs])
    folder = Path(os.environ.get("NLTK_DATA", ROOT.parent / "shared" / "nltk_data")) / "corpora" / "rte"
    for name in ("rte1_dev.xml", "rte2_dev.xml", "rte3_dev.xml"):
        inside = teachable(list(load(folder / name).pairs))
        inside.sort(key=lambda p: -(len(p.text.split()) * len(p.hypothesis.split())))
        pairs += inside[:rte]
    return pairs


def measure_steps(rte: int) -> None:
    pairs = [analyze_pair(p) for p in sample_pairs(rte)]
    print(f"{len(pairs)} pairs (sample + {rte} longest teachable of each RTE dev file)")
    for method, option in variants():
        counts, stills = [], []
        for pair in pairs:
            steps = lesson(method, trace_of(method, option, pair), large=False)
            counts.append(len(steps))
            stills.append(sum(still(a, b) for a, b in zip(steps, steps[1:])))
        print(f"{method:6} {option or '-':11} steps median {statistics.median(counts):5.1f} max {max(counts):4d}   "
              f"still steps total {sum(stills):4d} max {max(stills):3d}")


def measure_file(runs: int) -> None:
    from playwright.sync_api import sync_playwright

    pair = make_pair(*EXAMPLE)
    decks = {name: [DeckItem(pair, name, None, "the example pair")] for name in TEACH_METHODS}
    decks["deck of 3 (bleu, manli, itg)"] = [DeckItem(pair, m, None, "the example pair") for m in ("bleu", "manli", "itg")]
    folder = Path(tempfile.mkdtemp(prefix="lesson-bench-"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for name, items in decks.items():
            path = folder / f"{name.split()[0]}.html"
            path.write_text(deck_file(items), encoding="utf-8")
            times, blocked = [], []
            for _ in range(runs):
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.context.route("**/*", lambda route, seen=blocked: route.continue_()
                                   if route.request.url.startswith("file:")
                                   else (seen.append(route.request.url), route.abort()))
                page.goto(path.as_uri())
                page.wait_for_function("() => document.querySelector('.tp') && "
                                       "document.querySelector('.tp').dataset.firstFigureMs", timeout=120_000)
                times.append(float(page.evaluate("document.querySelector('.tp').dataset.firstFigureMs")))
                page.close()
            print(f"{name:30} {path.stat().st_size / 1e6:6.2f} MB   first figure median {statistics.median(times):6.0f} ms "
                  f"max {max(times):6.0f} ms   requests {len(blocked)}")
        browser.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", action="store_true")
    parser.add_argument("--file", action="store_true")
    parser.add_argument("--rte", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    if args.steps:
        measure_steps(args.rte)
    if args.file:
        measure_file(args.runs)
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(json.dumps({"steps": args.steps, "file": args.file, "rte": args.rte, "runs": args.runs}))


if __name__ == "__main__":
    main()

"""The project speaks of itself: docs stay short, and no tracked file says who ran what or
when (run labels of the people or sessions that worked on it, tracker numbers, rounds of
work). Git keeps that story; the files keep what the code does and why.

The label patterns are narrow on purpose: a Streamlit session, an HTML ``h1``, a
hypothesis index ``h0`` or a "first pass" over the data are ordinary words here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]

#: Line limits of the docs a newcomer reads first (longer means a log is growing back).
LINE_LIMITS = {"README.md": 200, "docs/RESULTS.md": 600, "docs/BENCHMARKS.md": 600}

#: Text that names a run, a person's role or a tracker item instead of what the code does.
RUN_LABELS = re.compile(
    "|".join((
        r"\b[Ii]ssue[ -]?#?\d+",  # a tracker item by number
        r"\((?:h\d{1,2}|lead)\)",  # a run label in brackets
        r"\bh\d{1,2} at [0-9a-f]{7}\b",  # a run label pinned to a commit
        r"/tmp/h\d{1,2}\b",  # a run label as a scratch folder
        r"\b(?:session|pass|round) h\d{1,2}\b",
        r"\bh\d{1,2}(?:'s)? (?:session|pass|round|rerun|run)\b",
        r"\b[Tt]he lead\b|\blead's\b",  # the person who merges, as a measurer or decider
        r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth) session\b",  # rounds of work
        r"\bpart[-_]?\d",  # a tracker item's part: part4, part-4
    ))
)

#: A file named after a tracker item or a round of work.
LABELLED_PATH = re.compile(r"(?:issue|part|pass|round)[-_]?\d", re.IGNORECASE)

#: Files whose bytes are not text (screenshots may show such words in rendered UI text).
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".parquet", ".npy", ".gz", ".zip", ".pdf"}


def tracked_files() -> list[Path]:
    """The repository's tracked files; without git (an exported tree), every file but the
    tools' folders."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=DEADLINE)
    except (OSError, subprocess.SubprocessError):
        skip = {".git", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", "__pycache__", "node_modules"}
        return sorted(p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts))
    return [ROOT / name for name in out.stdout.decode("utf-8").split("\0") if name]


def label_hits(text: str) -> list[tuple[int, str]]:
    """(line number, matched text) of every run label in ``text``."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in RUN_LABELS.finditer(text)]


@pytest.mark.parametrize("name, limit", sorted(LINE_LIMITS.items()))
def test_docs_stay_within_their_line_limits(name: str, limit: int) -> None:
    lines = len((ROOT / name).read_text(encoding="utf-8").splitlines())
    assert lines <= limit, f"{name} has {lines} lines (at most {limit}): move detail to docs/APP.md, docs/CLI.md or docs/experiments.md"


def test_no_tracked_file_carries_run_labels() -> None:
    found = []
    for path in tracked_files():
        if path.suffix.lower() in BINARY_SUFFIXES or not path.is_file() or path == Path(__file__).resolve():
            continue  # this file's examples below are labels on purpose
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}:{line}: {hit}" for line, hit in label_hits(text)]
    assert not found, "say what the code does and why, not who ran what or when:\n" + "\n".join(found)


def test_no_tracked_file_is_named_after_a_tracker_item() -> None:
    named = [str(p.relative_to(ROOT)) for p in tracked_files() if LABELLED_PATH.search(p.relative_to(ROOT).as_posix())]
    assert not named, "name files by what they hold or test:\n" + "\n".join(named)


@pytest.mark.parametrize("text", [
    "Quiet machine (lead's rerun)", "the figures of (h18) and (lead)", "as issue 13 asks",
    "Issue 14's timings", "measured by h13 at 49ea94d", "--cache /tmp/h14/cache",
    "the lead decides that step", "a third session's run", "the part4 features", "part-4 notes",
])
def test_the_label_patterns_find_run_labels(text: str) -> None:
    assert label_hits(text)


@pytest.mark.parametrize("text", [
    "kept for the session", "a fresh session reopens it", 'page.wait_for_selector("h1:has-text(\'Pair\')")',
    "p1-2 x h0 is a block", "--cases h90", "features, first pass (cold lexical caches)",
    "the alignment scorers lead", "Figure 1 of the paper", "the second pass over the lattice",
])
def test_the_label_patterns_leave_ordinary_words_alone(text: str) -> None:
    assert not label_hits(text)

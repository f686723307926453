"""Shared test set-up: where the shared data lives, a throwaway annotation store, the
markers each test directory carries, and fixtures for the repository and the shared data.

Tests take what they need as fixtures (``repo_root``, ``shared_file``); nothing is
imported from this file.

Layers (each directory's tests get its marker here, so ``-m unit`` selects a layer):

- ``tests/unit``: the library and the pure figure builders, no Streamlit runtime;
- ``tests/app``: pages, panels and sections under Streamlit's ``AppTest``;
- ``tests/e2e``: the served app in a real browser (Playwright + Debian's Chromium).

``slow`` marks single tests that take seconds (training, whole-corpus runs);
``make test-fast`` runs ``unit and not slow``.

Order: ``--random-order`` shuffles the test files, and the tests within each file (a
file's module-scoped fixtures, e.g. a served app, are still set up once); the header
prints the seed, and ``--random-order-seed N`` replays that order. ``--reverse-order``
runs the collected tests last to first. A test that passes only after another one left
some process-wide state behind fails in one of these orders.
"""

from __future__ import annotations

import gc
import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.pairs import Pair

ROOT = Path(__file__).resolve().parents[1]
UNIT_TESTS = ROOT / "tests" / "unit"
SHARED = ROOT.parent / "shared"
SHARED_NLTK = SHARED / "nltk_data"
#: Test directory -> the marker its tests carry.
LAYERS = {"unit": "unit", "app": "app", "e2e": "e2e"}
#: The seed of a shuffled run (None: the collected order, or reversed).
ORDER_SEED = pytest.StashKey[int | None]()

if SHARED_NLTK.is_dir() and "NLTK_DATA" not in os.environ:
    os.environ["NLTK_DATA"] = str(SHARED_NLTK)

# Cutoffs computed in tests (and their servers) go to a throwaway directory, so a test
# that computes a dataset's cutoffs cannot change what a later run sees.
if "EXPLORER_UPLOADS_DIR" not in os.environ:  # uploads the URL names (components/data.py)
    os.environ["EXPLORER_UPLOADS_DIR"] = tempfile.mkdtemp(prefix="explorer-uploads-")
if "EXPLORER_CUTOFF_CACHE" not in os.environ:
    os.environ["EXPLORER_CUTOFF_CACHE"] = tempfile.mkdtemp(prefix="explorer-cutoffs-")
# Batch results the tests open are written in temporary folders: the app opens results
# only under its roots (components/batch_folders.py), here the system's temporary folder.
os.environ.setdefault("EXPLORER_BATCH_ROOTS", tempfile.gettempdir())
# No background cutoff jobs (runtime/cutoff_jobs.py) unless a test asks for them: a job
# finishing mid-test would change which cutoffs a page shows.
os.environ.setdefault("EXPLORER_BACKGROUND_CUTOFFS", "0")
# Pages score in the test's own process (the worker pool off) unless a test asks for the
# pool: AppTest runs a page in this process, and a pool would warm up a fork server here.
# The apps the browser tests serve run as served apps do, with the pool
# (tests/e2e/browser.py drops this setting for them).
if "EXPLORER_WORKERS" not in os.environ:
    os.environ["EXPLORER_WORKERS"] = "0"
    os.environ["EXPLORER_WORKERS_SET_BY_TESTS"] = "1"
# The app's pages open the annotation store: tests (and the servers they start) use a
# throwaway one, never the user's own.
if "ENTAILMENT_EXPLORER_STORE" not in os.environ:
    os.environ["ENTAILMENT_EXPLORER_STORE"] = str(
        Path(tempfile.mkdtemp(prefix="explorer-store-")) / "store.sqlite3")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("order", "the order the tests run in (tests/conftest.py)")
    group.addoption("--random-order", action="store_true",
                    help="shuffle the test files and the tests within each file; the header prints the seed")
    group.addoption("--random-order-seed", type=int, metavar="N",
                    help="shuffle with this seed (implies --random-order): replays a shuffled run")
    group.addoption("--reverse-order", action="store_true", help="run the collected tests last to first")


def pytest_configure(config: pytest.Config) -> None:
    seed = config.getoption("random_order_seed")
    if seed is None and config.getoption("random_order"):
        seed = random.SystemRandom().randrange(1_000_000)
    config.stash[ORDER_SEED] = seed
    if seed is not None and config.getoption("reverse_order"):
        raise pytest.UsageError("--reverse-order and --random-order: choose one")


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = config.stash.get(ORDER_SEED, None)
    if seed is not None:
        return f"random order: seed {seed} (replay with --random-order-seed {seed})"
    return "reverse order" if config.getoption("reverse_order") else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test with its directory's layer (a test outside the three layers is an
    error: it would escape ``make test-fast`` and the layer selections); then put the tests
    in the order the options ask for."""
    tests_dir = Path(__file__).resolve().parent
    for item in items:
        parts = Path(str(item.path)).resolve().relative_to(tests_dir).parts
        layer = LAYERS.get(parts[0]) if len(parts) > 1 else None
        if layer is None:
            raise pytest.UsageError(f"{item.nodeid}: tests live in tests/unit, tests/app or tests/e2e")
        item.add_marker(layer)
    seed = config.stash.get(ORDER_SEED, None)
    if seed is not None:
        items[:] = shuffled(items, seed)
    elif config.getoption("reverse_order"):
        items.reverse()


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """What collecting a test file imported (libraries, the module itself) is out of the
    garbage collector's reach from here on, so the collections while the next files are
    imported walk only what is new (see :func:`pytest_runtest_teardown`)."""
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """After a test file's last test (its module fixtures torn down), collect what the file
    left as garbage, then freeze what is still alive. A full collection walks every tracked
    object the process holds: once a test has loaded the lexical tables, that is 0.5-1 s of
    CPU each, and the automatic ones came dozens of times a unit run. Frozen objects are
    still freed when nothing refers to them; only a reference cycle that becomes garbage
    later is kept, and a test file's own cycles are collected first. Unit test files only: an
    app test's uploads are counted while alive (``components.uploads.LIVE``), and one kept
    by a frozen cycle would count against the next file's."""
    result = yield
    if UNIT_TESTS in Path(str(item.path)).parents and (nextitem is None or nextitem.path != item.path):
        gc.collect()
        gc.freeze()
    return result


def pytest_unconfigure(config: pytest.Config) -> None:
    """Everything back in the collector's reach for the interpreter's last collection
    (extension modules such as duckdb's report the objects it does not free as leaks)."""
    gc.unfreeze()


def shuffled(items: list[pytest.Item], seed: int) -> list[pytest.Item]:
    """The files in a shuffled order, and each file's tests shuffled (one seeded generator:
    the same seed and the same collection give the same order)."""
    rng = random.Random(seed)
    by_file: dict[Path, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(Path(str(item.path)), []).append(item)
    files = list(by_file.values())
    rng.shuffle(files)
    for tests in files:
        rng.shuffle(tests)
    return [item for tests in files for item in tests]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (where app.py and sample_data/ are)."""
    return ROOT


@pytest.fixture(scope="session")
def shared_file() -> Callable[..., Path]:
    """``shared_file("data", "msr_align", "x.txt")``: a file under ../shared, or a skip
    naming what is missing (the shared corpora are not part of the repository)."""

    def find(*parts: str) -> Path:
        path = SHARED.joinpath(*parts)
        if not path.is_file():
            pytest.skip(f"shared data not present: {path} (place ../shared beside the repository)")
        return path

    return find


@pytest.fixture
def uniform_nist(monkeypatch: pytest.MonkeyPatch) -> None:
    """NIST scorers with uniform weights: tests do not build the Brown table."""
    from explorer.metrics import nist

    monkeypatch.setattr(nist, "default_weights", nist.InformationWeights.uniform_weights)


SUBJECTS = ["the mayor", "a local firm", "the school board", "our neighbour", "the river authority",
            "a young pilot", "the old library", "the city council", "a small bakery", "the football club"]
ACTIONS = ["opened a new office", "repaired the east bridge", "sold the harbour land",
           "bought two electric buses", "closed the night market"]
OTHERS = ["heavy snow blocked every road", "copper prices fell for a week", "the festival drew large crowds",
          "a storm damaged several roofs", "the museum lent out a painting"]


@pytest.fixture(scope="session")
def classifier_pairs() -> tuple[Pair, ...]:
    """50 labelled pairs in two tasks for the MT-metric classifier: entailed hypotheses
    restate the text's event, the others name an unrelated one."""
    pairs = []
    for i, subject in enumerate(SUBJECTS):
        for j, action in enumerate(ACTIONS):
            text = f"On Tuesday {subject} {action} after a long vote."
            if (i + j) % 2:
                hyp, label = f"{subject.capitalize()} {action} on Tuesday.", "entailment"
            else:
                hyp, label = f"{OTHERS[j].capitalize()} yesterday.", "non-entailment"
            pairs.append(Pair(id=f"{i}-{j}", text=text, hypothesis=hyp, label=label, task="AB"[i % 2]))
    return tuple(pairs)

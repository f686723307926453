"""Warming a server's methods once, at start-up, with progress.

The first use of each method pays for things no later use pays for: reading the POS
tagger, WordNet, the Brown information content and PPDB; loading trained models; numba
compiling (or loading from its disk cache) the ITG, MANLI and pFSM/pPDA kernels; building
the figure library's classes (the app adds that step). On a fresh server that is tens of seconds, and without a
warm-up the first visitor's page pays it, blank, method by method.

:class:`Warmup` runs those first uses once per process in a background thread, one
:class:`Step` at a time (every registered scorer and aligner on one tiny invented pair, so
whatever a method needs is loaded the way it will be used), and reports progress
(:meth:`Warmup.status`) for a page to show. A failing step is recorded and the warm-up goes
on: the method it belongs to reports its own error when a page uses it. :func:`start`
returns the process's one warm-up, started on the first call.

Pages wait for it (:meth:`Warmup.wait`) before scoring, so nothing first-loads a resource in
two threads at once (NLTK's lazy corpus readers are not safe for that).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: The pair every method is run on: invented, short, with a number, a name, a synonym and
#: an unaligned word, so each method takes its usual paths.
TEXT = "Ilse Marrow bought a new car in Kettleby on 3 May, her neighbours said."
HYPOTHESIS = "Ilse Marrow purchased an automobile."


@dataclass(frozen=True)
class Step:
    """One first use: ``run()``, shown as ``label``."""

    label: str
    run: Callable[[], object]


@dataclass(frozen=True)
class WarmupStatus:
    """Progress of a warm-up.

    Attributes:
        done: steps finished (failed ones included).
        total: steps in all.
        current: the label of the step running now ("" when none).
        errors: (label, "Type: message") of each failed step.
        seconds: time since the warm-up started (its duration once finished).
        finished: every step has run.
    """

    done: int
    total: int
    current: str
    errors: tuple[tuple[str, str], ...]
    seconds: float
    finished: bool

    @property
    def share(self) -> float:
        return 1.0 if not self.total else self.done / self.total


def default_steps() -> list[Step]:
    """Reading the text pipeline, then every registered scorer and aligner on the tiny pair
    (the app adds its own steps, e.g. the figure library, which this layer does not import)."""
    from explorer.aligners import ALIGNERS, get_aligner
    from explorer.preprocess import analyze_pair, make_pair
    from explorer.scorers import SCORERS, get_scorer

    pair = make_pair(TEXT, HYPOTHESIS)
    steps = [Step("tokenizer, POS tagger and lemmas", lambda: analyze_pair(pair))]
    for name, info in SCORERS.items():
        steps.append(Step(f"{info.label} (scorer)",
                          lambda n=name: get_scorer(n).score(analyze_pair(pair))))  # type: ignore[misc]
    for name, aligner in ALIGNERS.items():
        steps.append(Step(f"{aligner.label} (aligner)",
                          lambda n=name: get_aligner(n).align(analyze_pair(pair))))  # type: ignore[misc]
    return steps


class Warmup:
    """Steps run once, in order, on a background thread; progress readable at any time."""

    def __init__(self, steps: Callable[[], Sequence[Step]] = default_steps) -> None:
        self._make_steps = steps
        self._lock = threading.Lock()
        self._done_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._total = 0
        self._done = 0
        self._current = ""
        self._errors: list[tuple[str, str]] = []
        self._started = 0.0
        self._ended = 0.0

    def start(self) -> Warmup:
        """Start the thread (once; later calls do nothing)."""
        with self._lock:
            if self._thread is None:
                self._started = time.monotonic()
                self._thread = threading.Thread(target=self._run, name="explorer-warmup", daemon=True)
                self._thread.start()
        return self

    @property
    def finished(self) -> bool:
        return self._done_event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every step has run or ``timeout`` seconds passed; whether it finished."""
        return self._done_event.wait(timeout)

    def status(self) -> WarmupStatus:
        with self._lock:
            end = self._ended if self.finished else time.monotonic()
            return WarmupStatus(self._done, self._total, self._current, tuple(self._errors),
                                end - self._started if self._started else 0.0, self.finished)

    def _run(self) -> None:
        try:
            try:
                steps = list(self._make_steps())
            except Exception as err:  # the registries themselves failed: nothing to warm
                with self._lock:
                    self._errors.append(("listing the methods", f"{type(err).__name__}: {err}"))
                return
            with self._lock:
                self._total = len(steps)
            for step in steps:
                with self._lock:
                    self._current = step.label
                try:
                    step.run()
                except Exception as err:  # recorded; the method reports it again when used
                    with self._lock:
                        self._errors.append((step.label, f"{type(err).__name__}: {err}"))
                with self._lock:
                    self._done += 1
        finally:
            with self._lock:
                self._current = ""
                self._ended = time.monotonic()
            self._done_event.set()


_WARMUP: Warmup | None = None
_WARMUP_LOCK = threading.Lock()


def start(steps: Callable[[], Sequence[Step]] = default_steps) -> Warmup:
    """The process's warm-up, started on the first call (``steps`` counts only then)."""
    global _WARMUP
    with _WARMUP_LOCK:
        if _WARMUP is None:
            _WARMUP = Warmup(steps)
        return _WARMUP.start()


def current() -> Warmup | None:
    """The process's warm-up if one was started (None before the first :func:`start`)."""
    return _WARMUP


def replace_for_tests(warmup: Warmup | None) -> Warmup | None:
    """Install another warm-up (tests: fake steps); returns the one it replaced."""
    global _WARMUP
    with _WARMUP_LOCK:
        previous, _WARMUP = _WARMUP, warmup
        return previous

"""Warming a server's methods once, at start-up, with progress.

The first use of each method pays for things no later use pays for: reading the POS
tagger, WordNet, the Brown information content and PPDB; loading trained models; numba
loading the ITG, MANLI and pFSM/pPDA kernels from its disk cache (compiling them when the
cache is cold); building the figure library's classes (the app adds that step). Without a
warm-up the first visitor's page pays it, blank, method by method.

:func:`default_steps` names each of those loads as a step of its own (the resources first,
then every registered scorer and aligner on one tiny invented pair, so whatever a method
needs is loaded the way it will be used), so a progress line says what is being built.
:class:`Warmup` runs the steps once, in order, on a background thread (or, with
:meth:`Warmup.run`, on the caller's: the worker pool's fork server does, see
:mod:`runtime.pool.zygote`), and reports progress (:meth:`Warmup.status`); the fork server
writes it to a small JSON file the server reads (:func:`write_status`, :func:`read_status`).
A failing step is recorded, its traceback logged (the server's log), and the warm-up goes on:
the method it belongs to reports its own error when used. Missing NLTK data is not a failure:
a step that needs a resource NLTK cannot find (:attr:`Step.needs`, or a step that raises NLTK's
``LookupError`` anyway) is skipped and recorded with the resource's name, and once the warm-up
is done it logs one line per missing resource naming the steps it skipped
(:func:`skipped_lines`), never NLTK's thirty-line message with a traceback.
:func:`start` returns the process's one warm-up, started on the first call.

Pages wait for it (:meth:`Warmup.wait`) before scoring in the server's own process, so
nothing first-loads a resource in two threads at once (NLTK's lazy corpus readers are not
safe for that).
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

#: The pair every method is run on: invented, short, with a number, a name, a synonym and
#: an unaligned word, so each method takes its usual paths.
TEXT = "Ilse Marrow bought a new car in Kettleby on 3 May, her neighbours said."
HYPOTHESIS = "Ilse Marrow purchased an automobile."

#: Skipped steps (warnings, one line each) and failed steps (errors, with their traceback).
LOG = logging.getLogger("runtime.warmup")


@dataclass(frozen=True)
class Step:
    """One first use: ``run()``, shown as ``label``; skipped when NLTK cannot find one of
    the resources ``needs`` names (download ids, as in :data:`explorer.resources.RESOURCES`)."""

    label: str
    run: Callable[[], object]
    needs: tuple[str, ...] = ()


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
        timings: (label, wall seconds, CPU seconds of this process) of each step done.
        skipped: (label, NLTK resource id) of each step skipped because that resource is
            missing (counted in ``done``, not an error).
    """

    done: int
    total: int
    current: str
    errors: tuple[tuple[str, str], ...]
    seconds: float
    finished: bool
    timings: tuple[tuple[str, float, float], ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def share(self) -> float:
        return 1.0 if not self.total else self.done / self.total


def scorer_step_label(name: str) -> str:
    """The label of a registered scorer's step ("Bracketing ITG (scorer: numba chart kernel)")."""
    from explorer.scorers import SCORERS

    loads = f": {SCORERS[name].loads}" if SCORERS[name].loads else ""
    return f"{SCORERS[name].label} (scorer{loads})"


def resource_steps() -> list[Step]:
    """The shared resources, one named step each, in the order the methods need them."""
    from explorer import preprocess
    from explorer.aligners.bow import brown_idf
    from explorer.lexical.ppdb import load_ppdb
    from explorer.lexical.wordnet import brown_information_content
    from explorer.metrics.nist import brown_weights

    return [
        Step("NLTK and the tokenizer", lambda: preprocess.tokenize(TEXT)),
        Step("POS tagger (averaged perceptron)", lambda: preprocess.pos_tag(preprocess.tokenize(HYPOTHESIS))),
        Step("WordNet index and lemmatizer", lambda: preprocess.lemma("bought", "VBD")),
        Step("stopwords", preprocess.stopwords),
        Step("Brown information weights (NIST, disk cache)", brown_weights),
        Step("Brown word frequencies (bag-of-words idf, disk cache)", brown_idf),
        Step("WordNet information content from Brown (disk cache)", brown_information_content,
             needs=("brown", "wordnet")),
        Step("PPDB paraphrase table", load_ppdb),
    ]


def default_steps() -> list[Step]:
    """The resources (:func:`resource_steps`), then every registered scorer and aligner on
    the tiny pair (the app adds its own steps, e.g. the figure library, which this layer
    does not import)."""
    from explorer.aligners import ALIGNERS, get_aligner
    from explorer.preprocess import analyze_pair, make_pair
    from explorer.scorers import SCORERS, get_scorer

    pair = make_pair(TEXT, HYPOTHESIS)
    steps = resource_steps()
    for name in SCORERS:
        steps.append(Step(scorer_step_label(name),
                          lambda n=name: get_scorer(n).score(analyze_pair(pair))))  # type: ignore[misc]
    for name, aligner in ALIGNERS.items():
        steps.append(Step(f"{aligner.label} (aligner)",
                          lambda n=name: get_aligner(n).align(analyze_pair(pair))))  # type: ignore[misc]
    return steps


def status_path(server_pid: int) -> Path:
    """Where the warm-up of the worker pool of server process ``server_pid`` writes its
    progress (a per-user folder of the temporary directory)."""
    return Path(tempfile.gettempdir()) / f"entailment-explorer-{os.getuid()}" / f"warmup-{server_pid}.json"


def write_status(path: Path, status: WarmupStatus) -> None:
    """Write ``status`` to ``path`` atomically (a reader never sees half a file); an
    unwritable folder only loses the progress line."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(asdict(status)), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def read_status(path: Path) -> WarmupStatus | None:
    """The status :func:`write_status` left at ``path`` (None when absent or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["errors"] = tuple(tuple(e) for e in data["errors"])
        data["timings"] = tuple(tuple(t) for t in data.get("timings", ()))
        data["skipped"] = tuple(tuple(s) for s in data.get("skipped", ()))
        return WarmupStatus(**data)
    except (OSError, ValueError, TypeError, KeyError):
        return None


class Warmup:
    """Steps run once, in order, on a background thread; progress readable at any time."""

    def __init__(self, steps: Callable[[], Sequence[Step]] = default_steps,
                 on_change: Callable[[WarmupStatus], None] | None = None) -> None:
        self._make_steps = steps
        self._on_change = on_change
        self._lock = threading.Lock()
        self._done_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._total = 0
        self._done = 0
        self._current = ""
        self._errors: list[tuple[str, str]] = []
        self._timings: list[tuple[str, float, float]] = []
        self._skipped: list[tuple[str, str]] = []
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
                                end - self._started if self._started else 0.0, self.finished,
                                tuple(self._timings), tuple(self._skipped))

    def run(self) -> WarmupStatus:
        """Run every step on the calling thread (instead of :meth:`start`); the final status."""
        with self._lock:
            self._started = time.monotonic()
        self._run()
        return self.status()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self.status())

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
                self._changed()
                wall, cpu = time.monotonic(), time.process_time()
                absent = _absent(step.needs)
                try:
                    if absent is None:
                        step.run()
                except LookupError as err:  # NLTK's "resource not found": missing data, not a fault
                    absent = missing_resource(err)
                    if absent is None:
                        self._failed(step.label, err)
                except Exception as err:  # recorded; the method reports it again when used
                    self._failed(step.label, err)
                with self._lock:
                    if absent is not None:
                        self._skipped.append((step.label, absent))
                    self._done += 1
                    self._timings.append((step.label, time.monotonic() - wall, time.process_time() - cpu))
        finally:
            with self._lock:
                self._current = ""
                self._ended = time.monotonic()
                skipped = list(self._skipped)
            for line in skipped_lines(skipped):
                LOG.warning(line)
            self._done_event.set()
            self._changed()

    def _failed(self, label: str, err: Exception) -> None:
        """A step's real failure: recorded for the page, its traceback to the server's log."""
        with self._lock:
            self._errors.append((label, f"{type(err).__name__}: {err}"))
        LOG.error("warm-up step %r failed (its method reports this again when used)", label, exc_info=err)


def _absent(needs: Sequence[str]) -> str | None:
    """The first of ``needs`` NLTK cannot find (None when all are found)."""
    if not needs:
        return None
    from explorer.resources import is_available

    return next((nltk_id for nltk_id in needs if not is_available(nltk_id)), None)


#: NLTK's message names the resource as ``Resource 'brown' not found`` (quotes or colours vary).
_NOT_FOUND = re.compile(r"Resource\W+([\w./-]+?)\W*\s+not found")


def missing_resource(err: LookupError) -> str | None:
    """The resource an NLTK ``LookupError`` says it could not find (None for another
    ``LookupError``, e.g. a ``KeyError``: that one is a real failure)."""
    if isinstance(err, (KeyError, IndexError)):
        return None
    found = _NOT_FOUND.search(str(err))
    return found.group(1) if found else None


def skipped_lines(skipped: Sequence[tuple[str, str]]) -> list[str]:
    """One line per missing resource, naming the steps skipped for it, in order of first skip."""
    steps: dict[str, list[str]] = {}
    for label, nltk_id in skipped:
        steps.setdefault(nltk_id, []).append(label)
    return [f"warm-up: NLTK resource {nltk_id!r} is missing, so {len(labels)} step"
            f"{'s were' if len(labels) != 1 else ' was'} skipped ({'; '.join(labels)}); "
            "the app runs degraded, `make resources` fetches it."
            for nltk_id, labels in steps.items()]


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

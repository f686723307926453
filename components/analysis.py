"""Per-pair results of the methods, kept for the whole server (every session shares them).

The Pair page reruns its script on every widget change (a cutoff slider, a tab, a click in
the alignment editor); scoring the pair again each time would repeat the same work. Results
are kept in a bounded LRU keyed by the scorer's registry entry and the pair's content (text,
hypothesis and any tokens the dataset gives), so a revisited pair, a reload or another
session's identical pair costs a dictionary lookup. Failures are never kept: a method that
raised is tried again on the next run. Results are frozen objects, safe to share.

What is not kept is computed on the server's workers (:mod:`components.workers`), not in
this process: a pair's missing scorers go out as one job, whose results come back one by
one as each scorer finishes and are kept at once (so a job stopped by its time budget
still leaves what it finished). While the workers are still warming up, the Pair page
scores the cheap n-gram scorers here instead (``here=True``; see
:func:`components.warmup.scorers_before_warm`), kept the same way.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TypeVar, cast

from components import workers
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair
from explorer.scorers import SCORERS
from runtime import memory_budget
from runtime.lru import SizedLRU
from runtime.pool import PoolError, cost, tasks
from runtime.pool.tasks import Outcome
from runtime.pool.worker import emitting

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from explorer.api import AlignResult, ScoreResult

T = TypeVar("T")
R = TypeVar("R")

#: How many (method, pair) results are kept (a result of an RTE pair is a few kB: 4,096 is
#: about 170 pairs x 24 scorers) ...
MAX_ENTRIES = 4096
#: ... and how many bytes they may take, pickled (the size they cross from a worker in):
#: a long pair's results are larger (an ITG parse of 2,000 x 2,000 tokens is about 0.5 MB).
MAX_BYTES = 64 * 2**20


def pickled_size(value: object) -> int:
    """``value``'s size pickled (what the LRU counts; 64 kB assumed for what does not pickle)."""
    try:
        return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - a size estimate must never fail a page
        return 64 * 2**10


#: Every method's result on a pair, by (method, pair): see :func:`kept`.
RESULTS: SizedLRU[Hashable, object] = SizedLRU(MAX_BYTES, max_entries=MAX_ENTRIES)
memory_budget.register("method results", lambda: RESULTS.total, RESULTS.clear)


def pair_key(pair: Pair) -> tuple[object, ...]:
    """What a method's result on a pair depends on: its words and the dataset's tokens."""
    return (pair.text, pair.hypothesis, pair.text_tokens, pair.hypothesis_tokens)


def _key(name: str, pair: Pair) -> tuple[object, ...]:
    # id() of the registry entry: a scorer registered again under the same name (tests do)
    # is a different method, and must not be served the old one's results.
    return (name, id(SCORERS.get(name)), *pair_key(pair))


def cached_result(name: str, analyzed: AnalyzedPair) -> ScoreResult | None:
    """The scorer's kept result on this pair, or None (nothing is computed)."""
    return cast("ScoreResult | None", RESULTS.get(_key(name, analyzed.pair)))  # only score_many puts under _key


@dataclass(frozen=True)
class Scored:
    """Scorers' results on one pair: ``results`` by name, each failing scorer's error in
    ``errors``, and ``stopped``: why the job ended before the scorers still missing ran (its
    time budget, a lost worker), or None."""

    results: dict[str, ScoreResult]
    errors: dict[str, BaseException]
    stopped: BaseException | None = None


def score_many(names: Sequence[str], analyzed: AnalyzedPair, *, slot: DeltaGenerator | None = None,
               here: bool = False) -> Scored:
    """Each scorer's result on the pair: the kept ones at once, the rest in one job on the
    server's workers (:mod:`components.workers`; long when the methods' cost model says
    so), or in this process with ``here``, each kept as it arrives. ``slot`` shows the
    job's status while it runs."""
    pair = analyzed.pair
    results = {n: r for n in names if (r := cached_result(n, analyzed)) is not None}
    missing = [n for n in names if n not in results]
    errors: dict[str, BaseException] = {}
    stopped: BaseException | None = None
    if missing:
        arrived: dict[str, Outcome] = {}

        def keep(outcome: Outcome) -> None:
            arrived[outcome.name] = outcome
            if outcome.error is None:
                RESULTS.put(_key(outcome.name, pair), outcome.result, pickled_size(outcome.result))

        labels = ", ".join(SCORERS[n].label for n in missing[:3]) + (" …" if len(missing) > 3 else "")
        try:
            if here:
                with emitting(lambda item: keep(cast(Outcome, item))):  # score_pair emits Outcomes
                    tasks.score_pair(pair, missing)
            else:
                workers.run(tasks.score_pair, pair, missing, what=f"Scoring this pair ({labels})",
                            long=cost.is_long([pair], missing), slot=slot, on_partial=keep)
        except PoolError as err:
            stopped = err
        for name in missing:
            outcome = arrived.get(name)
            if outcome is None:
                continue
            if outcome.error is not None:
                errors[name] = outcome.error
            elif outcome.result is not None:  # exactly one of the two is set
                results[name] = outcome.result
    return Scored({n: results[n] for n in names if n in results}, errors, stopped)


def score(name: str, analyzed: AnalyzedPair) -> ScoreResult:
    """The scorer's result on the pair, computed once and kept.

    Raises:
        The scorer's error, or the pool's (:class:`runtime.pool.PoolError`).
    """
    scored = score_many([name], analyzed)
    if name in scored.results:
        return scored.results[name]
    raise scored.errors.get(name) or scored.stopped or RuntimeError(f"{name} returned nothing")


def align(name: str, analyzed: AnalyzedPair) -> AlignResult:
    """The aligner's result on the pair, computed once (on a worker) and kept (panels
    redraw on every rerun of the page; the alignment does not change)."""
    from explorer.aligners import ALIGNERS

    key = ("align", name, id(ALIGNERS.get(name)), *pair_key(analyzed.pair))
    found = cast("AlignResult | None", RESULTS.get(key))  # what align_pair returned
    if found is None:
        found = workers.run(tasks.align_pair, analyzed.pair, name, what=f"Aligning with {ALIGNERS[name].label}",
                            long=cost.is_long([analyzed.pair], [name]))
        RESULTS.put(key, found, pickled_size(found))
    return found


def score_as(name: str, analyzed: AnalyzedPair, kind: type[R]) -> R:
    """:func:`score`, checked to be the ``kind`` of result whose fields the caller reads."""
    return _checked(score(name, analyzed), kind, name)


def align_as(name: str, analyzed: AnalyzedPair, kind: type[R]) -> R:
    """:func:`align`, checked to be the ``kind`` of result whose fields the caller reads."""
    return _checked(align(name, analyzed), kind, name)


def _checked(result: object, kind: type[R], name: str) -> R:
    if not isinstance(result, kind):
        raise TypeError(f"{name!r} gave a {type(result).__name__}, not a {kind.__name__}")
    return result


def reset() -> None:
    """Forget every kept result (tests: a result an earlier test computed would be shown
    instead of the scores a batch result or the background job stored)."""
    RESULTS.clear()


def kept(key: tuple[object, ...], compute: Callable[[], T]) -> T:
    """``compute()`` kept under ``key`` in the server-wide LRU (failures are not kept)."""
    found = cast("T | None", RESULTS.get(key))  # what compute returned under this key
    if found is None:
        found = compute()
        RESULTS.put(key, found, pickled_size(found))
    return found


def score_each(names: Sequence[str], analyzed: AnalyzedPair,
               attempt: Callable[[Callable[[], None], str], object], *, slot: DeltaGenerator | None = None,
               here: bool = False) -> dict[str, ScoreResult]:
    """Each scorer's result (:func:`score_many`); each failing scorer is reported through
    ``attempt`` (which shows the error and returns None) and left out, and a job stopped
    early (its budget) is reported once, naming the scorers it did not finish."""
    scored = score_many(names, analyzed, slot=slot, here=here)
    for name, error in scored.errors.items():
        attempt(partial(_raise, error), SCORERS[name].label)
    unfinished = [n for n in names if n not in scored.results and n not in scored.errors]
    if scored.stopped is not None and unfinished:
        attempt(partial(_raise, scored.stopped), ", ".join(SCORERS[n].label for n in unfinished))
    return scored.results


def _raise(error: BaseException) -> None:
    raise error

"""Whether a job is long, decided before it starts, from the pair sizes and the methods.

The pool runs long jobs in a lane of its own at a lower priority (:mod:`.scheduler`), so a
long pair cannot hold back other visitors' short ones. A method's CPU time on a pair is
about a fixed part plus a part per text x hypothesis token pair (the growth each method's
cost model in :mod:`explorer.limits` states); each scorer's registry row holds both
(``seconds``), fitted to the CPU seconds measured on an RTE2 pair of 35 x 32 words and on
the 1,999 x 50-token pair on this 2-core machine (``bench/bench_pool.py --only costs``
prints the estimates beside the measured times). A job whose estimate passes
:data:`LONG_SECONDS` is long: no RTE2 dev pair's strip is (the longest takes about 0.55 s
of CPU), the slow methods on the long pair are (about 7.6 s). A Teach lesson's estimate is
its method's row's (``explorer.methods``: the lesson's ``seconds``). Token counts are estimated from white space (the tokenizer splits a little more), since the
estimate must cost nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from explorer.api import DEFAULT_SECONDS
from explorer.pairs import Pair

#: A job estimated above this many CPU seconds goes to the long lane.
LONG_SECONDS = 1.0


def words(pair: Pair) -> tuple[int, int]:
    """Estimated tokens of the text and of the hypothesis."""
    return len(pair.text.split()) + 1, len(pair.hypothesis.split()) + 1


def seconds(method: str) -> tuple[float, float]:
    """A method's estimated CPU seconds per pair and per token pair: its registry row's
    (a scorer's, else an aligner's; a name no row has, the n-gram metrics')."""
    from explorer.aligners import ALIGNERS
    from explorer.scorers import SCORERS

    info = SCORERS.get(method) or ALIGNERS.get(method)
    return info.seconds if info is not None else DEFAULT_SECONDS


def estimate(pairs: Iterable[Pair], methods: Sequence[str]) -> float:
    """Estimated CPU seconds for ``methods`` on every pair."""
    rates = [seconds(m) for m in methods]
    per_pair = sum(r[0] for r in rates)
    per_token_pair = sum(r[1] for r in rates)
    total = 0.0
    for pair in pairs:
        p, h = words(pair)
        total += per_pair + per_token_pair * p * h
    return total


def is_long(pairs: Iterable[Pair], methods: Sequence[str]) -> bool:
    """Whether ``methods`` on ``pairs`` is a long job (:data:`LONG_SECONDS`)."""
    return estimate(pairs, methods) > LONG_SECONDS


def lesson_is_long(pair: Pair, seconds_per_squared_token_pair: float) -> bool:
    """Whether a Teach lesson on ``pair`` is a long job, given its method's CPU seconds per
    squared text x hypothesis token pair (the ITG trace reads every cell of its chart, about
    (p x h)² / 4 of them)."""
    p, h = words(pair)
    return seconds_per_squared_token_pair * (p * h) ** 2 > LONG_SECONDS

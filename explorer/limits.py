"""Cost bounds of every scorer and aligner, checked before a method allocates anything.

Every method's cost grows with the sizes of the pair, some linearly and some with the
product of the two lengths or worse. This module states, per method, how (the *cost
model*: what grows, and an estimate of the memory the method's own arrays take; a method
that runs others, the combined classifier, has theirs in turn, :func:`in_turn`), and
holds the limits a pair must fit before the method starts:

========================  ==========  =====================================================
limit                     default     what it bounds
========================  ==========  =====================================================
``max_tokens``            2,000       tokens on each side, for every method
``max_token_pairs``       100,000     text tokens x hypothesis tokens, for methods that do
                                      slow work for every token pair (the pFSM / pPDA's
                                      Python features and lattices, MANLI); the cheaper
                                      quadratic methods (WER's table, the ITG's and the
                                      bag-of-words' matrices) are bounded by ``max_tokens``
                                      and their memory estimate
``max_word_pairs``        40,000      distinct text words x distinct hypothesis words, for
                                      methods that look up the lexical similarity (WordNet,
                                      PPDB, string resemblance) of every word pair: ``bow``,
                                      ``itg_lex``, ``manli``, ``pfsm``, ``ppda``
``max_candidates``        300,000     MANLI's candidate phrase edits (the upper bound the
                                      pair's sizes allow, see :func:`manli_candidates`)
``max_memory_mb``         600         the method's own arrays, as estimated by its cost
                                      model (the process itself adds about 300 MB)
========================  ==========  =====================================================

A pair past a limit is refused with :class:`LimitError`, which names the method, the
limit, the pair's size and how to raise it. Limits can be raised (or lowered) three ways:

* per call: ``scorer.score(pair, limits=Limits(max_tokens=5_000))`` (every registered
  scorer and aligner takes ``limits=``);
* for a block of code (a CLI command, one request of the app): ``with
  limits.using(max_token_pairs=400_000): ...``;
* from the command line: the options named in :data:`CLI_OPTIONS`.

The defaults keep every registered method on a 300 x 300-token pair under about 10 s
and 1 GB of peak memory, or refuse it at once (see docs/BENCHMARKS.md, "Limits: long pairs").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from explorer.errors import ExplorerError

if TYPE_CHECKING:
    from explorer.preprocess import AnalyzedPair

__all__ = [
    "CLI_OPTIONS", "COST_MODELS", "Cost", "CostModel", "LimitError", "Limits", "check", "cost_model", "cost_model_of",
    "current", "distinct_words", "estimate", "in_turn", "lexical_words", "manli_candidates", "using",
]

MB = 2**20


class LimitError(ExplorerError, ValueError):
    """A pair too large for a method under the current limits.

    Attributes:
        method: the method refusing (``manli``, ``ppda``, ...).
        limit: the :class:`Limits` field that was exceeded.
        value: the pair's measure of that limit; ``maximum``: the limit's value.
    """

    def __init__(self, method: str, limit: str, value: float, maximum: float, what: str, size: str) -> None:
        self.method = method
        self.limit = limit
        self.value = value
        self.maximum = maximum
        self._what, self._size = what, size
        option = CLI_OPTIONS.get(limit, "")
        how = f"limits=Limits({limit}=...) in Python" + (f" or {option} on the command line" if option else "")
        super().__init__(
            f"{method}: the pair ({size}) needs {_fmt(value)} {what}, over the limit of {_fmt(maximum)} "
            f"({limit}); shorten the pair, or raise the limit with {how}"
        )


    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from its fields (the app's worker processes send it back to the server).
        return type(self), (self.method, self.limit, self.value, self.maximum, self._what, self._size)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() or abs(x) >= 100 else f"{x:,.1f}"


@dataclass(frozen=True)
class Limits:
    """The bounds a pair must fit before a method runs (see the module docstring).

    Attributes:
        max_tokens: tokens on each side.
        max_token_pairs: ``|text| * |hypothesis|`` for methods quadratic in the pair.
        max_word_pairs: distinct (lower-cased) text words x distinct hypothesis words, for
            methods that compute a lexical similarity per word pair (cold look-ups in
            WordNet cost up to a few hundred microseconds each).
        max_candidates: MANLI's candidate phrase edits (upper bound from the sizes).
        max_memory_mb: estimated memory of the method's own arrays, in MiB.
    """

    max_tokens: int = 2_000
    max_token_pairs: int = 100_000
    max_word_pairs: int = 40_000
    max_candidates: int = 300_000
    max_memory_mb: float = 600.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0 or value != value:
                raise ValueError(f"{f.name} must be a positive number, not {value!r}")
            if value == float("inf"):
                raise ValueError(f"{f.name} must be finite")

    def replace(self, **changes: float) -> Limits:
        """A copy with some limits changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]


#: The command-line option for each limit (for messages and the CLI's parser).
CLI_OPTIONS: dict[str, str] = {
    "max_tokens": "--max-tokens",
    "max_token_pairs": "--max-token-pairs",
    "max_word_pairs": "--max-word-pairs",
    "max_candidates": "--max-candidates",
    "max_memory_mb": "--max-memory-mb",
}

DEFAULT_LIMITS = Limits()
_CURRENT: ContextVar[Limits] = ContextVar("explorer_limits", default=DEFAULT_LIMITS)


def current() -> Limits:
    """The limits in force (the defaults unless inside :func:`using`)."""
    return _CURRENT.get()


@contextmanager
def using(limits: Limits | None = None, **changes: float) -> Iterator[Limits]:
    """Run a block under other limits: ``limits`` (else the current ones) with ``changes``."""
    chosen = (limits or current()).replace(**changes)
    token = _CURRENT.set(chosen)
    try:
        yield chosen
    finally:
        _CURRENT.reset(token)


# -- cost models ---------------------------------------------------------------------------

def manli_candidates(p_len: int, h_len: int, max_phrase: int = 6) -> int:
    """The most candidate edits MANLI can have: every text phrase of at most
    ``max_phrase`` tokens against every hypothesis phrase of at most ``max_phrase``
    (``sum_m (p - m + 1) * sum_n (h - n + 1)``); the real number is smaller when few
    word pairs are similar."""

    def phrases(n: int) -> int:
        k = min(max_phrase, n)
        return k * (n + 1) - k * (k + 1) // 2

    return phrases(p_len) * phrases(h_len)


@dataclass(frozen=True)
class CostModel:
    """How one method's cost grows with the pair.

    Attributes:
        growth: the cost in words (shown in docs and error messages).
        quadratic: slow work for every text x hypothesis token pair (``max_token_pairs``
            applies).
        memory: estimated bytes of the method's own arrays for ``(p_len, h_len, candidates)``.
        candidates: MANLI's candidate bound for ``(p_len, h_len)`` (``max_candidates``
            applies), else None.
        word_pairs: its methods look up the lexical similarity of every distinct word
            pair and pass their distinct words to :func:`check` (``max_word_pairs``
            applies). The ITG family says no: only its lexical variant counts them, itself.
    """

    growth: str
    quadratic: bool
    memory: Callable[[int, int, int], float]
    candidates: Callable[[int, int], int] | None = None
    word_pairs: bool = False


def _bleu_memory(p: int, h: int, _c: int) -> float:
    # n-gram counters (about 200 bytes per entry, 4 orders, both sides) plus the matched
    # positions the Pair page draws: every hypothesis n-gram lists the text positions of
    # the same n-gram, up to 4 * p * h integers (8 bytes each) when every word is the same.
    return 200.0 * 4 * (p + h) + 8.0 * 4 * p * h


def _linear(bytes_per_token: float) -> Callable[[int, int, int], float]:
    return lambda p, h, _c: bytes_per_token * (p + h)


def _per_pair(bytes_per_pair: float, fixed: float = 0.0) -> Callable[[int, int, int], float]:
    return lambda p, h, _c: bytes_per_pair * (p + 1) * (h + 1) + fixed


#: The cost model of each method family; a scorer's or aligner's registry row names its
#: family (``cost="bleu"``). Bytes per text x hypothesis token pair were
#: measured with bench/bench_limits.py on repeated-word pairs (the worst case) and rounded
#: up: the lexical similarity (float64 matrices, object-array comparisons) ~ 60; WER's two
#: Python tables ~ 50; the pFSM / pPDA's per-cell feature rows, sparse matrices, lattice
#: tables (5 / 37 control states) and Viterbi back-pointers ~ 1,200 / 2,000; MANLI's
#: lexical layers ~ 300, plus ~ 450 per candidate edit; the embedding aligner's float64
#: matrices and masks ~ 80.
COST_MODELS: dict[str, CostModel] = {
    "bleu": CostModel("linear n-gram tables; the matched positions drawn on the Pair page grow up to "
                      "4 |t| |h| for repeated words", False, _bleu_memory),
    "nist": CostModel("linear n-gram tables, |t| + |h| per order", False, _linear(2_000.0)),
    "per": CostModel("linear word counts", False, _linear(200.0)),
    "pos_per": CostModel("linear word counts and tags", False, _linear(500.0)),
    "wer": CostModel("edit-distance table of (|t| + 1)(|h| + 1) cells, filled in Python (about 1 s per "
                     "million cells)", False, _per_pair(50.0)),
    "bow": CostModel("lexical similarity of every distinct word pair, then |t| |h| float matrices", False,
                     _per_pair(60.0), word_pairs=True),
    "itg": CostModel(
        "similarity matrix |t| |h|; chart (|t'| + 1)^2 (|h'| + 1)^2 cells over the words with link "
        "candidates, O(|t'|^3 |h'|^3) time, approximated beyond 3.6 M cells (explorer.aligners.itg)",
        False, _per_pair(80.0, 32 * MB),
    ),
    "manli": CostModel(
        "candidate edits: text x hypothesis phrases of up to 6 tokens, at most about 36 |t| |h|; "
        "features about 450 bytes per candidate; the decoder is linear in the candidates per round",
        True, lambda p, h, c: 300.0 * p * h + 450.0 * c, manli_candidates, word_pairs=True,
    ),
    "embed": CostModel("subword tokens of each word (linear); one |t| x |h| cosine matrix by a matrix product "
                       "and the aligner's masks over it (numpy)", False, _per_pair(80.0)),
    "pfsm": CostModel("edit lattice of (|t| + 1)(|h| + 1) cells x 5 control states, features per cell "
                      "(Python)", True, _per_pair(1_200.0), word_pairs=True),
    "ppda": CostModel("edit lattice of (|t| + 1)(|h| + 1) cells x 37 control states (jumps of up to 5), "
                      "features per cell (Python)", True, _per_pair(2_000.0), word_pairs=True),
}


def cost_model_of(method: str) -> str:
    """The cost model a registered scorer's or aligner's row names (its ``cost``); a name
    no row has is taken as a key of :data:`COST_MODELS` itself."""
    from explorer.aligners import ALIGNERS
    from explorer.scorers import SCORERS

    for registry in (SCORERS, ALIGNERS):
        info = registry.get(method)
        if info is not None and info.cost is not None:
            return info.cost
    return method


def in_turn(models: Sequence[CostModel]) -> CostModel:
    """The cost model of a method that runs others one after another on the same pair
    (the combined classifier): quadratic when one of them is, the largest of their memory
    estimates and candidate bounds (each method's arrays are freed before the next one
    starts), word pairs bounded when one of them bounds them. A pair passes it exactly
    when it passes each of theirs, so checking it once before the first starts refuses
    what one of them would have refused part-way, and nothing else."""
    if not models:
        raise ValueError("a method that runs others names at least one")
    bounded = [m.candidates for m in models if m.candidates is not None]

    def memory(p: int, h: int, c: int) -> float:
        return max(m.memory(p, h, c if m.candidates is not None else 0) for m in models)

    def candidates(p: int, h: int) -> int:
        return max(bound(p, h) for bound in bounded)

    return CostModel("; ".join(dict.fromkeys(m.growth for m in models)), any(m.quadratic for m in models),
                     memory, candidates if bounded else None, word_pairs=any(m.word_pairs for m in models))


def cost_model(method: str) -> CostModel:
    """The cost model of a registered scorer or aligner: the family its row names
    (``cost``), or, for a scorer that runs others (``runs``), theirs run in turn
    (:func:`in_turn`); a name no row has is taken as a key of :data:`COST_MODELS`."""
    from explorer.scorers import SCORERS

    info = SCORERS.get(method)
    if info is not None and info.runs:
        return in_turn([cost_model(name) for name in info.runs])
    return _family(cost_model_of(method))


def _family(key: str) -> CostModel:
    try:
        return COST_MODELS[key]
    except KeyError:
        raise KeyError(f"no cost model {key!r}; choose from {', '.join(COST_MODELS)}") from None


@dataclass(frozen=True)
class Cost:
    """A method's estimated cost on one pair's sizes."""

    method: str
    p_len: int
    h_len: int
    token_pairs: int
    candidates: int | None
    memory_mb: float


def estimate(model: str | CostModel, p_len: int, h_len: int, *, candidates: int | None = None,
             method: str | None = None) -> Cost:
    """The cost model's estimate for a pair of these sizes (no limit applied).

    Args:
        model: a key of :data:`COST_MODELS`, or a cost model (e.g. :func:`cost_model`'s).
        candidates: MANLI's candidate bound when the caller knows a tighter one (another
            phrase length); by default the model's own.
        method: the name to report (a registry name such as ``itg_lex``); ``model`` by default.
    """
    chosen = _family(model) if isinstance(model, str) else model
    if candidates is None and chosen.candidates is not None:
        candidates = chosen.candidates(p_len, h_len)
    memory = chosen.memory(p_len, h_len, candidates or 0)
    name = method or (model if isinstance(model, str) else "")
    return Cost(name, p_len, h_len, p_len * h_len, candidates, memory / MB)


def distinct_words(tokens: tuple[str, ...]) -> int:
    """Distinct lower-cased tokens (linear; the lexical similarity works per distinct word)."""
    return len(set(tokens))


def lexical_words(pair: AnalyzedPair) -> tuple[int, int]:
    """``words=`` for :func:`check`: distinct words of each side of an analysed pair."""
    return distinct_words(pair.text.lower), distinct_words(pair.hypothesis.lower)


def check(method: str, p_len: int, h_len: int, *, model: str | CostModel | None = None,
          limits: Limits | None = None, candidates: int | None = None,
          words: tuple[int, int] | None = None) -> Cost:
    """Refuse a pair that does not fit the limits, before the method allocates anything.

    Args:
        method: the method's name, for the message (``itg_lex``, ``bleu3``, ...).
        p_len, h_len: tokens of the text and of the hypothesis.
        model: its cost model or that model's key in :data:`COST_MODELS` (by default the
            one its registry row gives, :func:`cost_model`).
        limits: the limits to apply; :func:`current` when None.
        candidates: a tighter MANLI candidate bound (see :func:`estimate`).
        words: distinct words of the text and of the hypothesis, for methods that look up
            the lexical similarity of every word pair (``max_word_pairs`` applies).

    Returns:
        The estimated cost.

    Raises:
        LimitError: naming the first limit the pair exceeds.
    """
    lim = limits if limits is not None else current()
    size = f"{p_len:,} x {h_len:,} tokens"
    longest = max(p_len, h_len)
    if longest > lim.max_tokens:
        raise LimitError(method, "max_tokens", longest, lim.max_tokens, "tokens on one side", size)
    chosen = cost_model(method) if model is None else _family(model) if isinstance(model, str) else model
    cost = estimate(chosen, p_len, h_len, candidates=candidates, method=method)
    if chosen.quadratic and cost.token_pairs > lim.max_token_pairs:
        raise LimitError(method, "max_token_pairs", cost.token_pairs, lim.max_token_pairs,
                         "text x hypothesis token pairs", size)
    if words is not None and words[0] * words[1] > lim.max_word_pairs:
        raise LimitError(method, "max_word_pairs", words[0] * words[1], lim.max_word_pairs,
                         "lexical similarities (distinct text x hypothesis words)", size)
    if cost.candidates is not None and cost.candidates > lim.max_candidates:
        raise LimitError(method, "max_candidates", cost.candidates, lim.max_candidates,
                         "candidate edits (phrase pairs)", size)
    if cost.memory_mb > lim.max_memory_mb:
        raise LimitError(method, "max_memory_mb", round(cost.memory_mb), lim.max_memory_mb,
                         "MB of memory by its cost model", size)
    return cost

"""NIST (Doddington 2002) as a sentence-similarity metric.

NIST weights every matched n-gram by its information,

    info(w1..wn) = log2( count(w1..wn-1) / count(w1..wn) )

(``count()`` of the empty prefix = the number of words), counted in a reference
corpus, and sums, over the orders n = 1..N, the information of the candidate's matched
n-grams divided by the number of candidate n-grams: an arithmetic mean per order,
where BLEU takes a geometric mean of plain precisions. The result is multiplied by the
brevity penalty ``exp(beta * ln(min(|s|/|r|, 1))^2)``, with ``beta`` chosen so that the
penalty is 0.5 when the candidate has 2/3 of the reference's words.

Finch, Hwang & Sumita (2005, §2.1) use NIST1..NIST5 (N = 1..5) on sentence pairs, in
both directions, averaged. Matched n-gram counts are clipped (``min`` of the two
sentences' counts), so the information sum is the same both ways; the denominators and
the brevity penalty are not.

Where the information comes from (:class:`InformationWeights`):

* :meth:`InformationWeights.from_sentences` counts a given corpus exactly, with no
  smoothing: what ``nltk.translate.nist_score`` does with the references it is given,
  and what the tests compare against.
* :func:`brown_weights` (the default of the scorers and the classifier features) counts
  the lower-cased Brown corpus (1,161,192 words), n = 1..5. To keep the table small,
  n-grams of order 2 or more seen only once are dropped; counts are add-one smoothed
  (``log2((count(prefix) + 1) / (count(ngram) + 1))``), so an n-gram absent from the
  table, whether unseen or seen once, counts as unseen. The table is built once
  (about 12 s) and cached as gzipped JSON under :func:`cache_dir`. Without the Brown
  corpus every n-gram weighs 1 bit (``source = "uniform"``).
"""

from __future__ import annotations

import gzip
import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from explorer.api import ResultMixin, both_directions
from explorer.limits import Limits, check
from explorer.preprocess import AnalyzedPair

MAX_ORDER = 5
#: ``ln(0.5) / ln(2/3)^2``: the penalty is 0.5 at a length ratio of 2/3.
BETA = math.log(0.5) / math.log(2 / 3) ** 2

Gram = tuple[str, ...]


def brevity_penalty(candidate_length: int, reference_length: int) -> float:
    """NIST's length penalty: 1 from ratio 1 up, 0.5 at 2/3, 0 for an empty candidate."""
    if candidate_length == 0 or reference_length == 0:
        return 0.0 if candidate_length == 0 else 1.0
    ratio = candidate_length / reference_length
    if ratio >= 1.0:
        return 1.0
    return math.exp(BETA * math.log(ratio) ** 2)


@dataclass(frozen=True)
class InformationWeights:
    """N-gram counts of a reference corpus and the information they give.

    Attributes:
        counts: n-gram -> count, every order up to ``max_n``.
        total_words: the corpus' number of words (the count of the empty prefix).
        max_n: the highest order counted.
        source: a name for the corpus ("brown", "uniform", a file name...).
        smoothing: ``k`` of add-k smoothing (0 = NLTK's exact counts).
        uniform: every n-gram weighs 1 bit (no corpus available).
    """

    counts: Mapping[Gram, int] = field(repr=False)
    total_words: int
    max_n: int = MAX_ORDER
    source: str = ""
    smoothing: float = 0.0
    uniform: bool = False

    @classmethod
    def from_sentences(
        cls, sentences: Iterable[Sequence[str]], *, max_n: int = MAX_ORDER, source: str = "",
        smoothing: float = 0.0, min_count: int = 1,
    ) -> InformationWeights:
        """Count every n-gram (n <= max_n) of the sentences; n-grams of order 2 or
        more seen fewer than ``min_count`` times are dropped."""
        counts: Counter[Gram] = Counter()
        total = 0
        for sentence in sentences:
            words = tuple(sentence)
            total += len(words)
            for n in range(1, max_n + 1):
                counts.update(words[i : i + n] for i in range(len(words) - n + 1))
        if min_count > 1:
            counts = Counter({g: c for g, c in counts.items() if len(g) == 1 or c >= min_count})
        return cls(dict(counts), total, max_n, source, smoothing)

    @classmethod
    def uniform_weights(cls, *, max_n: int = MAX_ORDER) -> InformationWeights:
        return cls({}, 0, max_n, "uniform", 0.0, uniform=True)

    def info(self, gram: Gram) -> float:
        """Information of an n-gram in bits (0 for an n-gram the corpus lacks when
        unsmoothed)."""
        if self.uniform:
            return 1.0
        count = self.counts.get(gram, 0)
        prefix = self.counts.get(gram[:-1], 0) if len(gram) > 1 else self.total_words
        k = self.smoothing
        if count + k <= 0 or prefix + k <= 0:
            return 0.0
        return math.log2((prefix + k) / (count + k))


@dataclass(frozen=True)
class NistOrder:
    """One order's information sum over the matched n-grams and the number of
    candidate n-grams in each direction."""

    n: int
    info: float
    matched: int
    text_total: int
    hypothesis_total: int

    @property
    def total(self) -> int:
        """Candidate n-grams with the hypothesis as candidate (BLEU's direction)."""
        return self.hypothesis_total

    @property
    def precision(self) -> float:
        """Clipped matches over the hypothesis' n-grams, unweighted (as BLEU's)."""
        return self.matched / self.hypothesis_total if self.hypothesis_total else 0.0


@dataclass(frozen=True)
class NistResult(ResultMixin):
    """NIST-N of a pair, both directions averaged.

    Attributes:
        value: mean of ``hypothesis_candidate`` and ``text_candidate``.
        hypothesis_candidate: NIST with the hypothesis as candidate, text as reference.
        text_candidate: the other direction.
        orders: per-order breakdown.
        penalty_hypothesis_candidate, penalty_text_candidate: the brevity penalties.
        weights_source: where the information weights come from.
    """

    max_n: int
    value: float
    hypothesis_candidate: float
    text_candidate: float
    orders: tuple[NistOrder, ...]
    penalty_hypothesis_candidate: float
    penalty_text_candidate: float
    weights_source: str

    def detail(self) -> str:
        return both_directions(self.hypothesis_candidate, self.text_candidate)

    def order_score(self, n: int, *, hypothesis_candidate: bool = True) -> float:
        """Order ``n``'s term ``info / #candidate n-grams`` (before the penalty)."""
        order = self.orders[n - 1]
        total = order.hypothesis_total if hypothesis_candidate else order.text_total
        return order.info / total if total else 0.0


def nist_orders(
    p: Sequence[str], h: Sequence[str], weights: InformationWeights, max_n: int = MAX_ORDER
) -> tuple[NistOrder, ...]:
    """Information of the clipped matches and candidate n-gram counts, orders 1..max_n."""
    p, h = tuple(p), tuple(h)
    orders = []
    matched_any = True
    for n in range(1, max_n + 1):
        p_total, h_total = max(len(p) - n + 1, 0), max(len(h) - n + 1, 0)
        info, matched = 0.0, 0
        if matched_any and p_total and h_total:
            overlap = Counter(zip(*(p[i:] for i in range(n)))) & Counter(zip(*(h[i:] for i in range(n))))
            for gram, count in overlap.items():
                info += weights.info(gram) * count
                matched += count
        matched_any = matched > 0  # no n-gram match, no longer match either
        orders.append(NistOrder(n, info, matched, p_total, h_total))
    return tuple(orders)


def combine(orders: Sequence[NistOrder], p_len: int, h_len: int, max_n: int) -> tuple[float, float, float, float]:
    """``(hypothesis-candidate score, text-candidate score, their penalties)`` for N = max_n."""
    h_sum = sum(o.info / o.hypothesis_total for o in orders[:max_n] if o.hypothesis_total)
    p_sum = sum(o.info / o.text_total for o in orders[:max_n] if o.text_total)
    h_bp, p_bp = brevity_penalty(h_len, p_len), brevity_penalty(p_len, h_len)
    return h_sum * h_bp, p_sum * p_bp, h_bp, p_bp


def nist_tokens(
    p: Sequence[str], h: Sequence[str], *, max_n: int = MAX_ORDER,
    weights: InformationWeights | None = None,
) -> NistResult:
    """NIST-``max_n`` of text tokens ``p`` and hypothesis tokens ``h`` (normalised)."""
    if not 1 <= max_n <= MAX_ORDER:
        raise ValueError(f"max_n must be between 1 and {MAX_ORDER}, got {max_n}")
    weights = weights if weights is not None else default_weights()
    orders = nist_orders(p, h, weights, max_n)
    forward, backward, h_bp, p_bp = combine(orders, len(p), len(h), max_n)
    return NistResult(max_n, (forward + backward) / 2, forward, backward, orders, h_bp, p_bp, weights.source)


# -- reference-corpus weights -----------------------------------------------------------

def cache_dir() -> Path:
    """``$EXPLORER_CACHE_DIR``, else ``~/.cache/entailment-explorer``."""
    configured = os.environ.get("EXPLORER_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "entailment-explorer"


BROWN_CACHE_NAME = _BROWN_CACHE = "nist_brown_v1.json.gz"


def _write_cache(path: Path, weights: InformationWeights) -> None:
    payload = {
        "source": weights.source, "total_words": weights.total_words, "max_n": weights.max_n,
        "smoothing": weights.smoothing,
        "counts": {" ".join(g): c for g, c in weights.counts.items()},
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as out:
            json.dump(payload, out)
        tmp.replace(path)
    except OSError:
        pass  # an unwritable cache only costs the rebuild next time


def _read_cache(path: Path) -> InformationWeights | None:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as src:
            payload = json.load(src)
        counts = {tuple(k.split(" ")): int(c) for k, c in payload["counts"].items()}
        return InformationWeights(counts, int(payload["total_words"]), int(payload["max_n"]),
                                  str(payload["source"]), float(payload["smoothing"]))
    except (OSError, ValueError, KeyError, EOFError):
        return None


@lru_cache(maxsize=1)
def brown_weights() -> InformationWeights:
    """Information weights from the lower-cased Brown corpus (see module docstring),
    uniform weights when NLTK's ``brown`` is not installed."""
    from explorer import resources

    path = cache_dir() / _BROWN_CACHE
    cached = _read_cache(path) if path.is_file() else None
    if cached is not None:
        return cached
    if not resources.is_available("brown"):
        return InformationWeights.uniform_weights()
    from nltk.corpus import brown

    sentences = ([w.lower() for w in sentence if " " not in w] for sentence in brown.sents())
    weights = InformationWeights.from_sentences(sentences, source="brown", smoothing=1.0, min_count=2)
    _write_cache(path, weights)
    return weights


def default_weights() -> InformationWeights:
    """The weights scorers use unless given others: :func:`brown_weights`."""
    return brown_weights()


@dataclass(frozen=True)
class NistScorer:
    """Registry scorer: NIST-N on lower-cased tokens, both directions averaged."""

    max_n: int = MAX_ORDER

    @property
    def name(self) -> str:
        return f"nist{self.max_n}"

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> NistResult:
        check(self.name, len(pair.text), len(pair.hypothesis), limits=limits)
        return nist_tokens(pair.text.lower, pair.hypothesis.lower, max_n=self.max_n)

"""Position-independent word error rate (PER) and its POS decomposition.

Finch, Hwang & Sumita (2005, §2.1-2.2). PER ignores word order: with ``diff(a, b)``
the number of words of ``a`` left over after matching them one-to-one (as multisets)
with the words of ``b``,

    PER(s, r) = max(diff(s, r), diff(r, s)) / |r|

The numerator is symmetric, so the two directions differ only in the reference
length; as for WER the pair's rate is the mean of ``m / |text|`` and
``m / |hypothesis|``, with the same empty-reference convention (0 for two empty
sentences, 1 for an empty reference). The scorer's ``value`` is ``1 - rate``.

The POS decomposition (§2.2) splits the matched and unmatched words by their Penn
Treebank tag: for one sentence, ``f+[t]`` is the number of its words tagged ``t`` that
found a partner in the other sentence and ``f-[t]`` the number that did not, each
divided by the sentence's length. The pair's vectors are the mean of the two
sentences' vectors. The paper's two matching options are here:

* ``stem``: nouns and verbs (tags ``NN*``, ``VB*``) are matched on their lemma
  (WordNet lemmatiser; the paper used a stemmer), every other word on its lower-cased
  form;
* ``synonyms``: words still unmatched after exact matching are paired with an unmatched
  word of the same word class (noun or verb) when their WordNet Jiang-Conrath
  similarity reaches a threshold (:mod:`explorer.metrics.jcn`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from explorer.api import ResultMixin
from explorer.limits import Limits, check
from explorer.metrics.wer import error_rate
from explorer.preprocess import Analysis, AnalyzedPair

__all__ = [
    "PENN_TAGS", "PerResult", "PerScorer", "PosPerResult", "PosPerScorer", "SynonymTest", "match_keys", "match_words",
    "per_tokens", "pos_per", "unmatched_count",
]

#: The Penn Treebank tag set as NLTK's tagger emits it; anything else counts as OTHER.
PENN_TAGS: tuple[str, ...] = (
    "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS",
    "NNP", "NNPS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO",
    "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB",
    "$", "#", "``", "''", "(", ")", ",", ".", ":", "OTHER",
)
_TAG_INDEX = {tag: i for i, tag in enumerate(PENN_TAGS)}

#: ``synonym(word_a, word_b, word_class) -> bool`` for word class "n" or "v".
SynonymTest = Callable[[str, str, str], bool]


def unmatched_count(a: Sequence[str], b: Sequence[str]) -> int:
    """``diff(a, b)``: words of ``a`` without a partner in ``b`` (multiset matching)."""
    return len(a) - sum((Counter(a) & Counter(b)).values())


@dataclass(frozen=True)
class PerResult(ResultMixin):
    """PER of a pair in both directions.

    Attributes:
        value: ``1 - rate``.
        rate: mean of the two directional rates.
        unmatched: ``max(diff(text, hyp), diff(hyp, text))``.
        rate_text_reference: ``unmatched / |text|``.
        rate_hypothesis_reference: ``unmatched / |hypothesis|``.
        text_unmatched, hypothesis_unmatched: ``diff`` of each side against the other.
    """

    value: float
    rate: float
    unmatched: int
    rate_text_reference: float
    rate_hypothesis_reference: float
    text_unmatched: int
    hypothesis_unmatched: int
    text_length: int
    hypothesis_length: int

    def detail(self) -> str:
        return (f"PER {self.rate:.4f}: {self.unmatched} unmatched words, "
                f"{self.text_length} text / {self.hypothesis_length} hypothesis words")


def per_tokens(p: Sequence[str], h: Sequence[str]) -> PerResult:
    """PER of text tokens ``p`` and hypothesis tokens ``h`` (already normalised)."""
    p_diff, h_diff = unmatched_count(p, h), unmatched_count(h, p)
    worst = max(p_diff, h_diff)
    forward = error_rate(worst, len(h), len(p))
    backward = error_rate(worst, len(p), len(h))
    rate = (forward + backward) / 2
    return PerResult(1.0 - rate, rate, worst, forward, backward, p_diff, h_diff, len(p), len(h))


@dataclass(frozen=True)
class PerScorer:
    """Registry scorer: PER on lower-cased tokens, both directions averaged."""

    name: str = "per"

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> PerResult:
        check(self.name, len(pair.text), len(pair.hypothesis), limits=limits)
        return per_tokens(pair.text.lower, pair.hypothesis.lower)


# -- POS decomposition ----------------------------------------------------------------

def _word_class(tag: str) -> str | None:
    if tag.startswith("NN"):
        return "n"
    if tag.startswith("VB"):
        return "v"
    return None


def match_keys(sentence: Analysis, *, stem: bool) -> tuple[str, ...]:
    """The form each word is matched on: the lemma for nouns and verbs when ``stem``,
    else the lower-cased word."""
    if not stem:
        return sentence.lower
    return tuple(
        lem if _word_class(tag) else low
        for low, lem, tag in zip(sentence.lower, sentence.lemmas, sentence.pos)
    )


def match_words(
    p_keys: Sequence[str], h_keys: Sequence[str], *,
    p_classes: Sequence[str | None] = (), h_classes: Sequence[str | None] = (),
    synonym: SynonymTest | None = None,
) -> tuple[tuple[int | None, ...], tuple[int | None, ...], frozenset[tuple[int, int]]]:
    """One-to-one word matching: identical keys first (left to right), then synonyms.

    Returns:
        ``(p_partner, h_partner, synonym_links)``: for each text word the index of its
        hypothesis partner or None, the same for hypothesis words, and the ``(p, h)``
        links made by the synonym test.
    """
    p_partner: list[int | None] = [None] * len(p_keys)
    h_partner: list[int | None] = [None] * len(h_keys)
    free: dict[str, list[int]] = {}
    for j, key in enumerate(h_keys):
        free.setdefault(key, []).append(j)
    for i, key in enumerate(p_keys):
        slots = free.get(key)
        if slots:
            j = slots.pop(0)
            p_partner[i], h_partner[j] = j, i
    synonym_links: set[tuple[int, int]] = set()
    if synonym is not None and p_classes and h_classes:
        for i, key in enumerate(p_keys):
            word_class = p_classes[i]
            if p_partner[i] is not None or word_class is None:
                continue
            for j, other in enumerate(h_keys):
                if h_partner[j] is None and h_classes[j] == word_class and synonym(key, other, word_class):
                    p_partner[i], h_partner[j] = j, i
                    synonym_links.add((i, j))
                    break
    return tuple(p_partner), tuple(h_partner), frozenset(synonym_links)


@dataclass(frozen=True)
class PosPerResult(ResultMixin):
    """The POS-decomposed PER vectors of a pair.

    Attributes:
        value: the share of words matched, averaged over the two sentences
            (``sum(matched)``; higher = more similar).
        tags: the tag of each vector component (:data:`PENN_TAGS`).
        matched: ``f+`` per tag, mean of the two sentences.
        unmatched: ``f-`` per tag, mean of the two sentences.
        text_partner, hypothesis_partner: each word's partner index in the other
            sentence, or None.
        synonym_links: ``(p, h)`` pairs matched by the synonym test only.
        text_tags, hypothesis_tags: the tags used.
    """

    value: float
    tags: tuple[str, ...]
    matched: tuple[float, ...]
    unmatched: tuple[float, ...]
    text_partner: tuple[int | None, ...]
    hypothesis_partner: tuple[int | None, ...]
    synonym_links: frozenset[tuple[int, int]]
    text_tags: tuple[str, ...]
    hypothesis_tags: tuple[str, ...]

    def detail(self) -> str:
        return f"{len(self.synonym_links)} matched as synonyms only"

    def features(self) -> dict[str, float]:
        """Named components: ``pos+:NN``, ``pos-:NN``, ..."""
        named = {f"pos+:{t}": v for t, v in zip(self.tags, self.matched)}
        named.update({f"pos-:{t}": v for t, v in zip(self.tags, self.unmatched)})
        return named


def _tag_vectors(tags: Sequence[str], partner: Sequence[int | None]) -> tuple[list[float], list[float]]:
    plus, minus = [0.0] * len(PENN_TAGS), [0.0] * len(PENN_TAGS)
    if not tags:
        return plus, minus
    share = 1.0 / len(tags)
    for tag, other in zip(tags, partner):
        index = _TAG_INDEX.get(tag, _TAG_INDEX["OTHER"])
        if other is None:
            minus[index] += share
        else:
            plus[index] += share
    return plus, minus


def pos_per(
    pair: AnalyzedPair, *, stem: bool = True, synonym: SynonymTest | None = None
) -> PosPerResult:
    """POS-decomposed PER vectors of an analysed pair."""
    p, h = pair.text, pair.hypothesis
    p_tags, h_tags = p.pos, h.pos
    p_partner, h_partner, synonym_links = match_words(
        match_keys(p, stem=stem), match_keys(h, stem=stem),
        p_classes=tuple(_word_class(t) for t in p_tags) if synonym else (),
        h_classes=tuple(_word_class(t) for t in h_tags) if synonym else (),
        synonym=synonym,
    )
    p_plus, p_minus = _tag_vectors(p_tags, p_partner)
    h_plus, h_minus = _tag_vectors(h_tags, h_partner)
    matched = tuple((a + b) / 2 for a, b in zip(p_plus, h_plus))
    unmatched = tuple((a + b) / 2 for a, b in zip(p_minus, h_minus))
    return PosPerResult(
        value=sum(matched),
        tags=PENN_TAGS,
        matched=matched,
        unmatched=unmatched,
        text_partner=p_partner,
        hypothesis_partner=h_partner,
        synonym_links=synonym_links,
        text_tags=tuple(p_tags),
        hypothesis_tags=tuple(h_tags),
    )


@dataclass(frozen=True)
class PosPerScorer:
    """Registry scorer for the POS-decomposed PER (nouns and verbs lemmatised)."""

    name: str = "pos_per"
    stem: bool = True
    synonyms: bool = False

    def score(self, pair: AnalyzedPair, *, limits: Limits | None = None) -> PosPerResult:
        check(self.name, len(pair.text), len(pair.hypothesis), limits=limits)
        synonym = None
        if self.synonyms:
            from explorer.metrics.jcn import jcn_synonym

            synonym = jcn_synonym
        return pos_per(pair, stem=self.stem, synonym=synonym)

"""The pair-level detectors behind :data:`explorer.groups.phenomena.PHENOMENA`.

Each detector reads a :class:`PairFacts` (a pair, its analysis on first use, and an aligner's
alignment on first use) and returns a bool, a number or a text, or None when the method it
needs refuses the pair under the limits in force (:mod:`explorer.limits`): a missing value,
never an error. Word lists come from :mod:`explorer.groups.words`; negations, numbers and
antonyms from :mod:`explorer.lexical.mismatch`, which the combined classifier reads too.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from explorer.groups.words import MODALS, QUANTIFIERS
from explorer.lexical.mismatch import antonym_anywhere, antonym_links, negation_count, unmatched_numbers
from explorer.limits import LimitError, check, lexical_words

if TYPE_CHECKING:
    from explorer.pairs import Pair
    from explorer.preprocess import Analysis, AnalyzedPair

#: A detector's value for one pair (None: the method it needs refused the pair).
Value = bool | float | str | None

#: Tokens after which a capitalised word starts a sentence (and so may be no name).
_SENTENCE_END = frozenset({".", "!", "?", "``", '"', "''", ":", ";"})


class PairFacts:
    """One pair as the detectors see it. The analysis (tokens, tags, lemmas) is made on
    first use and shared by every detector; each aligner runs at most once per pair."""

    def __init__(self, pair: Pair) -> None:
        self.pair = pair
        self._alignments: dict[str, frozenset[tuple[int, int]] | None] = {}

    @cached_property
    def analysed(self) -> AnalyzedPair:
        from explorer.preprocess import analyze_pair

        return analyze_pair(self.pair)

    @property
    def text(self) -> Analysis:
        return self.analysed.text

    @property
    def hypothesis(self) -> Analysis:
        return self.analysed.hypothesis

    @cached_property
    def hypothesis_content(self) -> tuple[int, ...]:
        """Positions of the hypothesis words that are neither stopwords nor punctuation."""
        hyp = self.hypothesis
        return tuple(j for j in range(len(hyp)) if not (hyp.stop[j] or hyp.is_punct[j]))

    def links(self, aligner: str) -> frozenset[tuple[int, int]] | None:
        """The registered aligner's token links ``(text index, hypothesis index)`` for the
        pair, or None when it refuses the pair under the current limits."""
        if aligner not in self._alignments:
            from explorer.aligners import get_aligner

            try:
                found: frozenset[tuple[int, int]] | None = get_aligner(aligner).align(self.analysed).alignment.links
            except LimitError:
                found = None
            self._alignments[aligner] = found
        return self._alignments[aligner]


# -- one side only ---------------------------------------------------------------------

def negation_only_in_h(facts: PairFacts) -> bool:
    return negation_count(facts.hypothesis.lower) > 0 and negation_count(facts.text.lower) == 0


def negation_only_in_t(facts: PairFacts) -> bool:
    return negation_count(facts.text.lower) > 0 and negation_count(facts.hypothesis.lower) == 0


def _found(words: frozenset[str], analysis: Analysis) -> set[str]:
    """The words of the list in one side; a capitalised "May" inside a sentence is the month."""
    return {w for j, (w, token) in enumerate(zip(analysis.lower, analysis.tokens))
            if w in words and not (token == "May" and j > 0 and analysis.tokens[j - 1] not in _SENTENCE_END)}


def _one_side(words: frozenset[str], facts: PairFacts) -> bool:
    return bool(_found(words, facts.text) ^ _found(words, facts.hypothesis))


def quantifier_one_side(facts: PairFacts) -> bool:
    return _one_side(QUANTIFIERS, facts)


def modal_one_side(facts: PairFacts) -> bool:
    return _one_side(MODALS, facts)


def number_mismatch(facts: PairFacts) -> bool:
    return unmatched_numbers(facts.text.lower, facts.hypothesis.lower) > 0


# -- names -----------------------------------------------------------------------------

def _bare(token: str) -> str:
    return token.replace(".", "").lower()


def _is_name(analysis: Analysis, j: int) -> bool:
    """A capitalised word that is no stopword, tagged a proper noun or not at the start of
    a sentence (where any word is capitalised)."""
    token = analysis.tokens[j]
    if not token[:1].isupper() or analysis.stop[j]:
        return False
    starts = j == 0 or analysis.tokens[j - 1] in _SENTENCE_END
    return analysis.pos[j].startswith("NNP") or not starts


def _capitalised_runs(analysis: Analysis) -> list[list[str]]:
    """Maximal runs of capitalised tokens (``United Nations``), for acronyms."""
    runs: list[list[str]] = []
    current: list[str] = []
    for token in analysis.tokens:
        if token[:1].isupper() or (current and token.lower() in ("of", "the", "for", "and")):
            current.append(token)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def absent_names(facts: PairFacts) -> list[str]:
    """Hypothesis names (:func:`_is_name`) the text has neither as a word nor as a name
    variant (an acronym of a capitalised run, ``UN`` / ``United Nations``)."""
    from explorer.lexical import name_similarity

    text, hyp = facts.text, facts.hypothesis
    words = {_bare(t) for t in text.tokens}
    runs = _capitalised_runs(text)
    out = []
    for j in range(len(hyp)):
        if not _is_name(hyp, j) or _bare(hyp.tokens[j]) in words:
            continue
        token = hyp.tokens[j]
        if not any(name_similarity([token], run) > 0 for run in runs):
            out.append(token)
    return out


def name_absent(facts: PairFacts) -> bool:
    return bool(absent_names(facts))


# -- WordNet ---------------------------------------------------------------------------

def antonym_pair(facts: PairFacts) -> bool | None:
    """Looks up every text x hypothesis word pair, so it is bounded like the bag-of-words
    aligner (``max_word_pairs``); None past the limit."""
    from explorer.lexical import default_similarity

    analysed = facts.analysed
    try:
        check("antonym_pair", len(analysed.text), len(analysed.hypothesis), model="bow",
              words=lexical_words(analysed))
    except LimitError:
        return None
    return antonym_anywhere(analysed, default_similarity())


# -- overlap and lengths ---------------------------------------------------------------

def overlap(facts: PairFacts) -> float:
    """Share of the hypothesis content words whose word or lemma the text has (1.0 for a
    hypothesis of stopwords only)."""
    text, hyp = facts.text, facts.hypothesis
    content = facts.hypothesis_content
    if not content:
        return 1.0
    seen = set(text.lower) | set(text.lemmas)
    return sum(hyp.lower[j] in seen or hyp.lemmas[j] in seen for j in content) / len(content)


def h_length(facts: PairFacts) -> float:
    return float(len(facts.hypothesis))


def length_ratio(facts: PairFacts) -> float:
    return len(facts.hypothesis) / max(len(facts.text), 1)


def task(facts: PairFacts) -> str:
    return facts.pair.task or ""


# -- per aligner -----------------------------------------------------------------------

def unaligned_positions(facts: PairFacts, aligner: str) -> tuple[int, ...] | None:
    """Positions of the hypothesis content words no link of the aligner touches, in order
    (None: the aligner refused the pair)."""
    links = facts.links(aligner)
    if links is None:
        return None
    linked = {h for _, h in links}
    return tuple(j for j in facts.hypothesis_content if j not in linked)


def unaligned_h_content(facts: PairFacts, aligner: str) -> float | None:
    positions = unaligned_positions(facts, aligner)
    return None if positions is None else float(len(positions))


def antonym_aligned(facts: PairFacts, aligner: str) -> bool | None:
    """Whether the aligner links two WordNet antonyms (None: it refused the pair)."""
    from explorer.lexical import default_similarity

    links = facts.links(aligner)
    if links is None:
        return None
    return antonym_links(facts.analysed, links, default_similarity()) > 0

"""Mismatches between the two sides of a pair: negations, numbers and antonyms.

The combined classifier's ``lex:`` features (:mod:`explorer.combined`) and the phenomenon
detectors (:mod:`explorer.groups.phenomena`) both read them from here, so a pair's
"number mismatch" is the same wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from explorer.lexical.numbers import number_value

if TYPE_CHECKING:
    from explorer.lexical.similarity import LexicalSimilarity
    from explorer.preprocess import AnalyzedPair

#: Words that negate (lower case; ``n't`` is NLTK's token for a contracted "not").
NEGATIONS = frozenset({
    "not", "n't", "no", "never", "none", "nobody", "nothing", "neither", "nor", "nowhere",
    "without", "cannot", "hardly", "fail", "failed", "fails", "deny", "denied", "denies",
})


def negation_count(tokens: Sequence[str]) -> int:
    """How many of the (lower-case) tokens are negation words (:data:`NEGATIONS`)."""
    return sum(t in NEGATIONS for t in tokens)


def numbers(tokens: Sequence[str]) -> list[float]:
    """The values of the tokens that are numbers (:func:`explorer.lexical.number_value`)."""
    return [v for v in (number_value(t) for t in tokens) if v is not None]


def unmatched_numbers(text: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Hypothesis numbers equal to no number of the text (tokens, lower case)."""
    found = set(numbers(text))
    return sum(v not in found for v in numbers(hypothesis))


def antonym_anywhere(pair: AnalyzedPair, similarity: LexicalSimilarity) -> bool:
    """Whether some hypothesis content word has a WordNet antonym among the text's
    non-stopwords (False when the similarity has antonyms off)."""
    text, hyp = pair.text, pair.hypothesis
    if not similarity.effective.antonyms:
        return False
    content = [j for j in range(len(hyp)) if not (hyp.stop[j] or hyp.is_punct[j])]
    return any(
        similarity.antonym(text.lemmas[i], text.pos[i], hyp.lemmas[j], hyp.pos[j])
        for j in content for i in range(len(text)) if not text.stop[i]
    )


def antonym_links(pair: AnalyzedPair, links: Iterable[tuple[int, int]], similarity: LexicalSimilarity) -> int:
    """How many of the token links ``(text index, hypothesis index)`` join antonyms."""
    text, hyp = pair.text, pair.hypothesis
    return sum(similarity.antonym(text.lemmas[i], text.pos[i], hyp.lemmas[j], hyp.pos[j]) for i, j in links)


__all__ = ["NEGATIONS", "antonym_anywhere", "antonym_links", "negation_count", "numbers", "unmatched_numbers"]

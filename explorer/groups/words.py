"""Closed word classes shared by the phenomenon detectors and the rewrite rules.

Lower-case tokens as :mod:`explorer.preprocess` produces them (``n't`` is NLTK's token for a
contracted "not"). The lists are short on purpose: a detector built on them says what it
looks for, and a word missing from a list is a missed pair, never a wrong one.
"""

from __future__ import annotations

from explorer.lexical.mismatch import NEGATIONS

#: Words that quantify a noun phrase: how many or how much of it is meant.
QUANTIFIERS = frozenset({
    "all", "every", "each", "some", "any", "many", "most", "few", "several", "both",
    "much", "more", "less", "fewer", "least", "only", "either",
})

#: Modal verbs and adverbs: the sentence says what may, must or should be, not what is.
MODALS = frozenset({
    "can", "could", "may", "might", "must", "shall", "should", "will", "would", "ought",
    "possibly", "probably", "perhaps", "maybe", "likely", "allegedly", "reportedly",
})

__all__ = ["MODALS", "NEGATIONS", "QUANTIFIERS"]

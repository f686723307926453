"""Word edits of a pair's text or hypothesis, and the edits the rewrite rules make.

An edit names tokens by position (as :mod:`explorer.preprocess` tokenises the side) and
says what each becomes: another word, or nothing. It is applied to the side's *string*,
at each token's span, so everything the edit does not touch stays exactly as written
(spacing, punctuation, the rest of a contraction); tokens the dataset gave are edited
alongside. Each ``*_edit`` function below finds one rule's edit on one side, or None
when the rule does not apply; :mod:`explorer.groups.rewrites` turns them into rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from explorer.errors import ExplorerError
from explorer.groups.words import NEGATIONS, QUANTIFIERS
from explorer.preprocess import Analysis

#: Token index -> the word it becomes ("" deletes it).
Edit = Mapping[int, str]

#: How the treebank tokeniser writes double quotes, and what they were in the text.
_QUOTE_TOKENS = {"``": ('"', "“"), "''": ('"', "”")}


class EditError(ExplorerError, ValueError):
    """An edit that cannot be placed in the side's string."""


def token_spans(text: str, tokens: Sequence[str]) -> list[tuple[int, int]]:
    """Each token's ``(start, end)`` in ``text``, found left to right.

    Raises:
        EditError: when a token cannot be found where the tokeniser put it.
    """
    spans = []
    cursor = 0
    for token in tokens:
        found = -1
        for form in (token, *_QUOTE_TOKENS.get(token, ())):
            found = text.find(form, cursor)
            if found >= 0 and not text[cursor:found].strip():
                token = form
                break
            found = -1
        if found < 0:
            raise EditError(f"the token {token!r} is not where it was read in {text[:60]!r}")
        spans.append((found, found + len(token)))
        cursor = found + len(token)
    return spans


def _match_case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def apply_edit(text: str, tokens: Sequence[str], edit: Edit) -> tuple[str, tuple[str, ...]]:
    """The side's string and tokens after ``edit``.

    A replacement keeps the replaced word's capital; a deleted word takes one space with
    it (the one before it, or after it at the start), none when it was written joined to
    its neighbour (``n't``); a deleted first word passes its capital to the next.

    Raises:
        EditError: when a token cannot be placed in the string.
    """
    spans = token_spans(text, tokens)
    out = text
    for index in sorted(edit, reverse=True):  # right to left: earlier spans stay valid
        start, end = spans[index]
        word = edit[index]
        if word:
            out = out[:start] + _match_case(word, tokens[index]) + out[end:]
            continue
        if start == 0:
            while end < len(out) and out[end].isspace():
                end += 1
            rest = out[end:]
            out = _match_case(rest, tokens[index]) if tokens[index][:1].isupper() else rest
        else:
            while start > 0 and out[start - 1].isspace():
                start -= 1
            out = out[:start] + out[end:]
    kept: list[str] = []
    for i, token in enumerate(tokens):
        word = edit.get(i, token)
        kept += _match_case(word, token).split() if i in edit else [token]
    return out, tuple(kept)


@dataclass(frozen=True)
class SideEdit:
    """One rule's edit of one side: the edit, and a few words on what it changed."""

    edit: Edit
    change: str


# -- drop the negation -------------------------------------------------------------------

#: Negation words deleted outright: the rest of the clause is left as it stands, so an
#: auxiliary stays ("did not win" -> "did win", "is n't" -> "is").
_DELETED = frozenset({"not", "n't", "never", "hardly"})
#: Negation words that have a positive counterpart.
_REPLACED = {"no": "some", "nobody": "somebody", "nothing": "something", "none": "some",
             "nowhere": "somewhere", "without": "with", "cannot": "can"}
#: The first half of a contraction whose negation is dropped ("ca n't" -> "can").
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}


def drop_negation_edit(side: Analysis) -> SideEdit | None:
    """Drop every negation word of the side: ``not``, ``n't``, ``never``, ``hardly``
    deleted (``ca n't`` -> ``can``, ``wo n't`` -> ``will``), ``no`` -> ``some`` (``no
    longer`` -> ``still``), ``nobody``/``nothing``/``nowhere``/``none`` -> ``some...``,
    ``without`` -> ``with``. None when the side has no negation, or one of another kind
    (``fail``, ``deny``, ``neither``, ``nor``): that one would stay, and the side would
    still be negated."""
    lower = side.lower
    edit: dict[int, str] = {}
    for i, word in enumerate(lower):
        if word not in NEGATIONS:
            continue
        if word in _DELETED:
            edit[i] = ""
            if word == "n't" and i > 0 and lower[i - 1] in _CONTRACTED:
                edit[i - 1] = _CONTRACTED[lower[i - 1]]
        elif word == "no" and i + 1 < len(lower) and lower[i + 1] == "longer":
            edit[i], edit[i + 1] = "still", ""
        elif word in _REPLACED:
            edit[i] = _REPLACED[word]
        else:
            return None
    if not edit:
        return None
    dropped = [side.tokens[i] for i in sorted(edit) if side.lower[i] in NEGATIONS]
    return SideEdit(edit, "dropped " + ", ".join(repr(w) for w in dropped))


# -- change a number -------------------------------------------------------------------

_DIGITS = re.compile(r"^\d+(?:\.(\d+))?$")
_GROUPED = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                 "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                 "eighteen", "nineteen", "twenty")
#: Words after which a larger number can still follow from the smaller ("fewer than 3").
_BOUNDED_ABOVE = frozenset({"fewer", "less", "under", "below", "most", "within", "to", "maximum"})


def cardinal(token: str) -> float | None:
    """The value of a cardinal number written in digits (``12``, ``1,500``, ``2.5``) or as
    a word up to twenty; None for anything else (ordinals, dates, mixed tokens)."""
    if _DIGITS.match(token) or _GROUPED.match(token):
        return float(token.replace(",", ""))
    word = token.lower()
    return float(_NUMBER_WORDS.index(word)) if word in _NUMBER_WORDS else None


def _written_like(value: float, token: str) -> str:
    if token.lower() in _NUMBER_WORDS and value < len(_NUMBER_WORDS):
        return _NUMBER_WORDS[int(value)]
    if _GROUPED.match(token):
        return f"{int(value):,}"
    decimals = _DIGITS.match(token)
    if decimals and decimals.group(1):
        return f"{value:.{len(decimals.group(1))}f}"
    return str(int(value))


@dataclass(frozen=True)
class NumberEdit(SideEdit):
    """The number changed: its value before, and whether a bound word precedes it."""

    value: float = 0.0
    bounded_above: bool = False


def change_number_edit(hypothesis: Analysis, text: Analysis) -> NumberEdit | None:
    """Raise the hypothesis' first cardinal number to the next whole value the text does
    not mention (``3`` -> ``4``, ``1,500`` -> ``1,501``, ``three`` -> ``four``), written
    the way the original was. None when the hypothesis has no cardinal number."""
    from explorer.lexical.mismatch import numbers

    in_text = set(numbers(text.tokens))
    for i, token in enumerate(hypothesis.tokens):
        value = cardinal(token)
        if value is None:
            continue
        new = float(int(value)) + 1
        while new in in_text:
            new += 1
        word = _written_like(new, token)
        before = set(hypothesis.lower[max(0, i - 2):i])
        return NumberEdit({i: word}, f"{token} -> {word}", value=value, bounded_above=bool(before & _BOUNDED_ABOVE))
    return None


# -- WordNet antonyms and hypernyms -------------------------------------------------------

def _base_form(side: Analysis, i: int) -> bool:
    """A content word written in its base form (so a WordNet lemma can replace it as is)."""
    return not side.stop[i] and side.lower[i] == side.lemmas[i] and side.tokens[i].isalpha()


def antonym_edit(side: Analysis) -> SideEdit | None:
    """Replace the side's first content word in its base form that WordNet gives an
    antonym (its senses in WordNet's order, each sense's first antonym) with that
    antonym. None when no word has one."""
    from nltk.corpus import wordnet as wn

    from explorer.lexical.wordnet import wordnet_class

    for i, tag in enumerate(side.pos):
        wn_class = wordnet_class(tag)
        if not wn_class or tag.startswith("NNP") or not _base_form(side, i):
            continue
        for synset in wn.synsets(side.lower[i], pos=wn_class):
            for lemma in synset.lemmas():
                if lemma.name().lower() != side.lower[i] or not lemma.antonyms():
                    continue
                word = lemma.antonyms()[0].name().replace("_", " ")
                return SideEdit({i: word}, f"{side.tokens[i]} -> {word}")
    return None


#: Words under which a more general word may not follow from the more specific one
#: ("no dog" does not give "no animal", "every dog" does not give "every animal").
_NOT_UPWARD = NEGATIONS | QUANTIFIERS


def upward(side: Analysis) -> bool:
    """Whether the side has no negation and no quantifier: then a word replaced by a more
    general one still follows from the text wherever the original did."""
    return not any(word in _NOT_UPWARD for word in side.lower)


def hypernym_edit(side: Analysis) -> SideEdit | None:
    """Replace the side's first singular common noun in its base form with the first
    lemma of the first hypernym of its first WordNet sense (``car`` -> ``motor vehicle``), and a
    preceding ``a``/``an`` to match. None when no noun has one."""
    from nltk.corpus import wordnet as wn

    for i, tag in enumerate(side.pos):
        if tag != "NN" or not _base_form(side, i):
            continue
        senses = wn.synsets(side.lower[i], pos="n")
        hypernyms = senses[0].hypernyms() if senses else []
        names = [lemma.name().replace("_", " ") for h in hypernyms for lemma in h.lemmas()]
        word = next((n for n in names if n.lower() != side.lower[i]), None)
        if word is None:
            continue
        edit = {i: word}
        if i > 0 and side.lower[i - 1] in ("a", "an"):
            edit[i - 1] = "an" if word[:1].lower() in "aeiou" else "a"
        return SideEdit(edit, f"{side.tokens[i]} -> {word}")
    return None


# -- words an aligner left unaligned ------------------------------------------------------

_ARTICLES = frozenset({"a", "an", "the"})

def unaligned_edit(hypothesis: Analysis, unaligned: Sequence[int], aligner: str) -> SideEdit | None:
    """Delete the hypothesis' content words at ``unaligned`` (the positions of those the
    aligner left unaligned: :func:`explorer.groups.detectors.unaligned_positions`), and an
    article left with no content word after it (``a blue car`` without ``blue`` and
    ``car``). None when there are none, or when they are every content word of the
    hypothesis (nothing of it would be left)."""
    dropped = sorted(unaligned)
    content = [i for i in range(len(hypothesis)) if not hypothesis.stop[i]]
    if not dropped or set(content) <= set(dropped):
        return None
    words = ", ".join(repr(hypothesis.tokens[i]) for i in dropped)
    edit = {i: "" for i in dropped}
    runs = [[i] for i in dropped if i - 1 not in edit]  # runs of consecutive deleted words
    for run in runs:
        while run[-1] + 1 in edit:
            run.append(run[-1] + 1)
        orphaned = run[-1] + 1 >= len(hypothesis) or hypothesis.stop[run[-1] + 1]
        if orphaned and run[0] > 0 and hypothesis.lower[run[0] - 1] in _ARTICLES:
            edit[run[0] - 1] = ""
    return SideEdit(edit, f"deleted {words} ({aligner} left them unaligned)")


__all__ = ["Edit", "EditError", "NumberEdit", "SideEdit", "antonym_edit", "apply_edit", "cardinal",
           "change_number_edit", "drop_negation_edit", "hypernym_edit",
           "token_spans", "unaligned_edit", "upward"]

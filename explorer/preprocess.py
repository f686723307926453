"""Preprocessing: Penn-Treebank-style tokens, lower case, POS tags, lemmas, stopwords.

Tokens given by a dataset are kept as they are. Texts are split into sentences on
``.!?`` followed by white space and an upper-case letter or quote before Treebank
tokenisation, so sentence-internal full stops are split off as NLTK's
``word_tokenize`` would, without needing the Punkt model. POS tags come from NLTK's
averaged perceptron tagger, lemmas from the WordNet lemmatizer with the tag's word
class. Tags and lemmas are computed lazily: the BLEU family never pays for them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from explorer import resources
from explorer.errors import ExplorerError

__all__ = [
    "MAX_CHARS", "Analysis", "AnalyzedPair", "InputError", "analyze", "analyze_pair", "clean_text", "lemma",
    "make_pair", "pos_tag", "split_sentences", "stopwords", "tokenize", "wordnet_pos",
]

if TYPE_CHECKING:
    from explorer.pairs import Pair

#: Sentences longer than this many characters are refused: they are almost certainly
#: a pasted document, and the quadratic and cubic methods would stall on them.
MAX_CHARS = 20_000

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`(\[])")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st mt gen gov sen rep col lt sgt capt cmdr adm rev "
    "inc corp co ltd bros dept univ vs etc no jan feb mar apr jun jul aug sep sept "
    "oct nov dec u.s a.m p.m e.g i.e".split()
)
_WHITESPACE = re.compile(r"\s+")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PUNCT = re.compile(r"^\W+$")

_FALLBACK_STOPWORDS = frozenset(
    "a an the of to in on at by for with from and or but not no is are was were be "
    "been being am do does did has have had it its this that these those he she they "
    "we you i his her their our your as if than then so such there here".split()
)


class InputError(ExplorerError, ValueError):
    """Text the explorer cannot process; the message says what to change."""


def clean_text(text: str) -> str:
    """Normalise Unicode (NFC), drop control characters, collapse white space."""
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}")
    # Fast paths with the same result (loaders clean every sentence of a corpus): a
    # printable string has no control, format or separator character but the ASCII space
    # (str.isprintable), so only runs of spaces and the ends need work, and ASCII needs
    # no NFC; other ASCII has only C0 and DEL as control characters.
    if text.isprintable():
        if not text.isascii() and not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
        if "  " in text:
            text = _WHITESPACE.sub(" ", text)
        return text.strip(" ")
    if text.isascii():
        return _WHITESPACE.sub(" ", _ASCII_CONTROL.sub(" ", text)).strip()
    text = unicodedata.normalize("NFC", text)
    text = "".join(
        ch if not unicodedata.category(ch).startswith("C") or ch in "\t\n" else " "
        for ch in text
    )
    return _WHITESPACE.sub(" ", text).strip()


@lru_cache(maxsize=1)
def _tokenizer():  # type: ignore[no-untyped-def]
    resources.import_nltk()  # the first NLTK import of most processes: a light one
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer()


def split_sentences(text: str) -> list[str]:
    """Split at ``.!?`` + space + capital, except after abbreviations and initials."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_BREAK.finditer(text):
        words = text[start : match.start()].split()
        last = words[-1].rstrip(".").lower() if words else ""
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        sentences.append(text[start : match.start()])
        start = match.end()
    sentences.append(text[start:])
    return [s for s in sentences if s]


def tokenize(text: str) -> tuple[str, ...]:
    """Penn-Treebank-style tokens of a text.

    Raises:
        InputError: if the text is longer than :data:`MAX_CHARS`.
    """
    text = clean_text(text)
    if len(text) > MAX_CHARS:
        raise InputError(
            f"text of {len(text):,} characters is longer than the {MAX_CHARS:,} allowed; "
            "split it into sentences or shorten it"
        )
    tokenizer = _tokenizer()
    tokens: list[str] = []
    for sentence in split_sentences(text):
        tokens.extend(tokenizer.tokenize(sentence))
    # The Treebank tokenizer turns straight double quotes into `` and ''; keep them.
    return tuple(tokens)


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """English stopwords from NLTK, or a small built-in list when they are missing."""
    if resources.is_available("stopwords"):
        from nltk.corpus import stopwords as corpus

        return frozenset(corpus.words("english"))
    return _FALLBACK_STOPWORDS


@lru_cache(maxsize=1)
def _tagger():  # type: ignore[no-untyped-def]
    from nltk.tag.perceptron import PerceptronTagger

    return PerceptronTagger()


def pos_tag(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Penn Treebank POS tags; all ``NN`` when the tagger resource is missing."""
    if not tokens:
        return ()
    if not resources.is_available("averaged_perceptron_tagger_eng"):
        return tuple("NN" for _ in tokens)
    return tuple(tag for _, tag in _tagger().tag(list(tokens)))


def wordnet_pos(tag: str) -> str:
    """The WordNet word class (n, v, a, r) of a Penn Treebank tag; n by default."""
    if tag.startswith("V"):
        return "v"
    if tag.startswith("J"):
        return "a"
    if tag.startswith("R"):
        return "r"
    return "n"


@lru_cache(maxsize=1)
def _lemmatizer():  # type: ignore[no-untyped-def]
    from nltk.stem import WordNetLemmatizer

    resources.prepare_wordnet()
    return WordNetLemmatizer()


@lru_cache(maxsize=200_000)
def lemma(word: str, tag: str) -> str:
    """The WordNet lemma of a lower-cased word with its Penn tag (the word itself when
    WordNet is missing or knows no lemma)."""
    if not resources.is_available("wordnet") or not word.isalpha():
        return word
    return str(_lemmatizer().lemmatize(word, wordnet_pos(tag)))


@dataclass(frozen=True)
class Analysis:
    """One sentence (or short text), analysed.

    ``tokens`` and ``lower`` are computed at once; ``pos``, ``lemmas`` and ``stop``
    on first use.
    """

    text: str
    tokens: tuple[str, ...]
    lower: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lower", tuple(t.lower() for t in self.tokens))

    def __len__(self) -> int:
        return len(self.tokens)

    @cached_property
    def pos(self) -> tuple[str, ...]:
        return pos_tag(self.tokens)

    @cached_property
    def lemmas(self) -> tuple[str, ...]:
        return tuple(lemma(w, t) for w, t in zip(self.lower, self.pos))

    @cached_property
    def stop(self) -> tuple[bool, ...]:
        words = stopwords()
        return tuple(w in words or bool(_PUNCT.match(w)) for w in self.lower)

    @cached_property
    def is_punct(self) -> tuple[bool, ...]:
        return tuple(bool(_PUNCT.match(w)) for w in self.tokens)


@lru_cache(maxsize=4096)
def analyze(text: str, tokens: tuple[str, ...] | None = None) -> Analysis:
    """Analyse a text, keeping dataset-given tokens when there are any."""
    if tokens is None:
        tokens = tokenize(text)
    return Analysis(text=text, tokens=tuple(tokens))


@dataclass(frozen=True)
class AnalyzedPair:
    """A pair with both sides analysed: what every scorer and aligner takes."""

    pair: Pair
    text: Analysis
    hypothesis: Analysis


def analyze_pair(pair: Pair) -> AnalyzedPair:
    """Analyse both sides of a pair."""
    return AnalyzedPair(
        pair,
        analyze(pair.text, pair.text_tokens),
        analyze(pair.hypothesis, pair.hypothesis_tokens),
    )


def make_pair(text: str, hypothesis: str, *, pair_id: str = "typed") -> Pair:
    """A pair typed by a user, checked: both sides must have at least one token.

    Raises:
        InputError: for an empty side or an over-long text.
    """
    from explorer.pairs import Pair

    for name, value in (("text", text), ("hypothesis", hypothesis)):
        cleaned = clean_text(value)
        if not cleaned:
            raise InputError(f"the {name} is empty; type at least one word")
        if len(cleaned) > MAX_CHARS:
            raise InputError(
                f"the {name} has {len(cleaned):,} characters; the limit is {MAX_CHARS:,}"
            )
    return Pair(id=pair_id, text=clean_text(text), hypothesis=clean_text(hypothesis), source="typed")

"""Lexical similarity of words and short phrases, in [0, 1], from switchable components.

MacCartney, Galley & Manning (2008, §4.2) score a substitution edit with a lexical
similarity that is a max over several resources. This module builds that max from:

* ``levenshtein`` — ``1 - lev(a, b) / max(|a|, |b|)`` on lemmas (also the similarity of
  the bag-of-words baseline, §5);
* ``wordnet_synonyms`` — the two lemmas share a WordNet synset;
* ``hypernyms`` — one lemma's synset is a WordNet hypernym of the other's, scored by
  the number of steps (1 to :data:`MAX_HYPERNYM_DISTANCE`);
* ``derivation`` — WordNet derivational relatedness or pertainymy (invade / invasion);
* ``ic_measure`` — Lin's information-content similarity (Lin 1998) over the most
  frequent senses, with information content counted on the Brown corpus the way
  ``nltk``'s ``wn.ic(brown)`` does it, computed once and cached on disk
  (:mod:`explorer.cache`) because it takes ~25 s;
* ``ppdb`` — the pair is in the PPDB 1.0 XXXL lexical synonym list (NLTK ``mwa_ppdb``);
* ``names`` — name variants: ``Lennon`` / ``John Lennon``, ``Nike Inc.`` / ``Nike``,
  ``U.S.`` / ``US``, acronyms (``UN`` / ``United Nations``);
* ``numbers`` — numerals normalised to values (``five`` / ``5``, ``1,000`` / ``1000``,
  ``2.5 million`` / ``2,500,000``), months (``Oct.`` / ``October``) and dates.

``antonyms`` is a separate boolean feature (WordNet antonymy), never part of the
similarity: antonyms are distributionally similar but contradict.

Identical lemmas always score 1, whatever is switched off. Stopwords and light verbs
(be, have, do, 's) get only identity, Levenshtein and number evidence: their WordNet
senses and PPDB paraphrases match almost anything. Every component can be
turned off (:meth:`LexicalConfig.without`), so an ablation is one flag. Components
whose NLTK resource is missing are off, and :func:`unavailable_components` says why.
The constructor does no IO: resources are read on first use and kept.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer import resources
from explorer.sequences import edit_distance

if TYPE_CHECKING:
    from explorer.preprocess import Analysis

#: The switchable components, in display order.
COMPONENTS: tuple[str, ...] = (
    "levenshtein",
    "wordnet_synonyms",
    "hypernyms",
    "derivation",
    "ic_measure",
    "antonyms",
    "ppdb",
    "names",
    "numbers",
)

#: The NLTK resources each component needs.
NEEDS: dict[str, tuple[str, ...]] = {
    "wordnet_synonyms": ("wordnet",),
    "hypernyms": ("wordnet",),
    "derivation": ("wordnet",),
    "ic_measure": ("wordnet", "brown"),
    "antonyms": ("wordnet",),
    "ppdb": ("mwa_ppdb",),
}

# Scores given by each resource. They order the evidence (identity > synonym/number >
# name variant/paraphrase > derivation > hypernym > weak string or IC resemblance);
# MANLI's learned weights scale them, so only the order and rough spacing matter.
SYNONYM = 0.9
PPDB = 0.85
DERIVATION = 0.8
NAME_VARIANT = 0.9
NAME_PARTIAL = 0.8  # a first name alone, or a name inside a longer one
NUMBER = 1.0
DATE_PARTIAL = 0.8  # dates that agree on every field both give
MAX_HYPERNYM_DISTANCE = 4
HYPERNYM_ONE_STEP = 0.85  # a direct hypernym; each further step costs HYPERNYM_PER_STEP
HYPERNYM_PER_STEP = 0.15
IC_SCALE = 0.8  # Lin similarity is scaled so it never outranks a synonym
IC_FLOOR = 0.25  # below this Lin similarity mostly reflects very general subsumers
IC_SENSES = 3  # most frequent senses per lemma compared by Lin

#: Cache entry name for the Brown information content (WordNet 3.0, smoothing 1).
IC_CACHE_NAME = "ic-brown-wordnet-smooth1.json"


@dataclass(frozen=True)
class LexicalConfig:
    """Which components take part (all on by default)."""

    levenshtein: bool = True
    wordnet_synonyms: bool = True
    hypernyms: bool = True
    derivation: bool = True
    ic_measure: bool = True
    antonyms: bool = True
    ppdb: bool = True
    names: bool = True
    numbers: bool = True

    @classmethod
    def without(cls, *names: str) -> LexicalConfig:
        """Every component on except ``names``.

        Raises:
            ValueError: for a name that is not one of :data:`COMPONENTS`.
        """
        _check_names(names)
        return cls(**{name: name not in names for name in COMPONENTS})

    @classmethod
    def only(cls, *names: str) -> LexicalConfig:
        """Only ``names`` on (identity still scores 1)."""
        _check_names(names)
        return cls(**{name: name in names for name in COMPONENTS})

    def disable(self, *names: str) -> LexicalConfig:
        """This configuration with ``names`` also off."""
        _check_names(names)
        return dataclasses.replace(self, **{name: False for name in names})

    @property
    def enabled(self) -> tuple[str, ...]:
        return tuple(name for name in COMPONENTS if getattr(self, name))


def _check_names(names: Iterable[str]) -> None:
    unknown = [n for n in names if n not in COMPONENTS]
    if unknown:
        raise ValueError(f"unknown lexical component(s) {unknown}; choose from: {', '.join(COMPONENTS)}")


def unavailable_components() -> dict[str, str]:
    """Components whose NLTK resource is missing, with the missing resource ids."""
    out: dict[str, str] = {}
    for component, needed in NEEDS.items():
        missing = [r for r in needed if not resources.is_available(r)]
        if missing:
            out[component] = ", ".join(missing)
    return out


# -- string similarity ---------------------------------------------------------------

@lru_cache(maxsize=500_000)
def levenshtein(a: str, b: str) -> int:
    """Character edit distance (unit costs), memoised: MANLI asks for the same lemma
    pairs many times per decode."""
    return edit_distance(a, b)


def levenshtein_similarity(a: str, b: str) -> float:
    """``1 - lev(a, b) / max(|a|, |b|)``; 1 for two empty strings."""
    if a == b:
        return 1.0
    return 1.0 - levenshtein(a, b) / max(len(a), len(b))


# -- numbers and dates ---------------------------------------------------------------

_UNITS = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 10**12}
_ORDINALS = {
    w: i + 1 for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
    )
}
_MONTHS: dict[str, int] = {}
for _i, _m in enumerate(
    "january february march april may june july august september october november december".split(), start=1
):
    _MONTHS[_m] = _i
    _MONTHS[_m[:3]] = _i
_MONTHS["sept"] = 9
del _MONTHS["may"]  # "may" is far more often the modal verb; the full month is matched below
_NUMERAL = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
_ORDINAL_DIGITS = re.compile(r"^(\d+)(st|nd|rd|th)$")
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})$")


def number_value(token: str) -> float | None:
    """The numeric value of one token (``5``, ``1,000``, ``2.5``, ``five``, ``5th``,
    ``fifth``), or None."""
    word = token.lower().rstrip(".") if not _NUMERAL.match(token) else token
    if _NUMERAL.match(word):
        return float(word.replace(",", ""))
    if word in _UNITS:
        return float(_UNITS[word])
    if word in _TENS:
        return float(_TENS[word])
    if word in _ORDINALS:
        return float(_ORDINALS[word])
    match = _ORDINAL_DIGITS.match(word)
    if match:
        return float(match.group(1))
    if "-" in word:  # twenty-five
        parts = word.split("-")
        if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS and _UNITS[parts[1]] < 10:
            return float(_TENS[parts[0]] + _UNITS[parts[1]])
    return None


def month_of(token: str) -> int | None:
    """The month number of a month name or abbreviation (``Oct.``, ``october``)."""
    word = token.lower().rstrip(".")
    if word == "may" and token[:1] == "M":
        return 5
    return _MONTHS.get(word)


def phrase_number(tokens: Sequence[str]) -> float | None:
    """The value of a numeral phrase (``2.5 million``, ``two hundred thousand``,
    ``twenty five``), or None when any token is not part of a number."""
    words = [t.lower() for t in tokens if t != "and"]
    if not words:
        return None
    total = 0.0
    current: float | None = None
    for word in words:
        if word in _SCALES:
            base = 1.0 if current is None else current
            if _SCALES[word] >= 1000:
                total += base * _SCALES[word]
                current = None
            else:
                current = base * _SCALES[word]
            continue
        value = number_value(word)
        if value is None:
            return None
        current = value if current is None else current + value
    return total + (current or 0.0)


def phrase_date(tokens: Sequence[str]) -> tuple[int | None, int | None, int | None] | None:
    """``(year, month, day)`` of a date phrase (``October 17 , 2001``, ``17 Oct. 2001``,
    ``10/17/01``, ``October 2001``), None fields when absent; None if not a date."""
    year = month = day = None
    for token in tokens:
        if token in (",", "the", "of"):
            continue
        slash = _SLASH_DATE.match(token)
        if slash:
            m, d, y = (int(g) for g in slash.groups())
            year = y + (2000 if y < 50 else 1900) if y < 100 else y
            month, day = m, d
            continue
        found_month = month_of(token)
        if found_month is not None:
            month = found_month
            continue
        value = number_value(token)
        if value is None or value != int(value):
            return None
        if 1000 <= value <= 2100 and token.isdigit():
            year = int(value)
        elif 1 <= value <= 31:
            day = int(value)
        else:
            return None
    if month is None:
        return None
    return year, month, day


# -- names -----------------------------------------------------------------------------

_NAME_DROP = frozenset(
    "mr mrs ms miss dr prof sir inc corp co ltd llc plc corporation company incorporated "
    "the 's".split()
)
_ACRONYM_SKIP = frozenset("of the for and on in".split())


def _name_tokens(tokens: Sequence[str]) -> list[str] | None:
    """The content of a name phrase (capitalised words, titles and company suffixes
    dropped, full stops removed), or None when the phrase does not look like a name."""
    kept: list[str] = []
    for token in tokens:
        bare = token.replace(".", "")
        if not bare:
            continue
        if bare.lower() in _NAME_DROP:
            continue
        if not bare[0].isupper():
            if bare.lower() in _ACRONYM_SKIP:
                continue
            return None
        kept.append(bare.lower())
    return kept or None


def _acronym(tokens: Sequence[str]) -> str:
    return "".join(t.replace(".", "")[0].lower() for t in tokens if t.replace(".", "") and t.lower() not in _ACRONYM_SKIP)


def name_similarity(a_tokens: Sequence[str], b_tokens: Sequence[str]) -> float:
    """Name-variant similarity of two cased phrases; 0 when they are not variants."""
    a, b = _name_tokens(a_tokens), _name_tokens(b_tokens)
    if a is None or b is None:
        return 0.0
    if a == b:
        return 1.0 if len(a_tokens) == len(b_tokens) else NAME_VARIANT
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if len(short) < len(long):
        if long[-len(short):] == short:  # Lennon / John Lennon
            return NAME_VARIANT
        if long[: len(short)] == short or _is_subsequence(short, long):  # John / John Lennon
            return NAME_PARTIAL
    for one, other, other_raw in ((a, b, b_tokens), (b, a, a_tokens)):
        if len(one) == 1 and len(other) > 1 and len(one[0]) > 1 and one[0] == _acronym(
            [t for t in other_raw if t.replace(".", "").lower() not in _NAME_DROP]
        ):
            return NAME_VARIANT
    return 0.0


def _is_subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    it = iter(long)
    return all(any(s == x for x in it) for s in short)


# -- WordNet ---------------------------------------------------------------------------

_LIGHT_EXTRA = frozenset("'s 're 'm 've 'd 'll n't be have do".split())


@lru_cache(maxsize=1)
def _light_words() -> frozenset[str]:
    """Stopwords (NLTK's list, or the built-in fallback) and light-verb lemmas."""
    from explorer.preprocess import stopwords

    return stopwords() | _LIGHT_EXTRA

_CONTENT_POS = {"N": "n", "V": "v", "J": "a", "R": "r"}


def wordnet_class(tag: str | None) -> str | None:
    """WordNet class of a tag: Penn tags (``NNS`` -> ``n``) or WordNet letters pass;
    ``""`` for function-word tags (no WordNet lookup); None for unknown (any class)."""
    if tag is None:
        return None
    if tag in ("n", "v", "a", "r", "s"):
        return "a" if tag == "s" else tag
    if tag.startswith("NNP"):
        return "n"
    return _CONTENT_POS.get(tag[:1], "")


@dataclass
class _Profile:
    """What WordNet says about one (lemma, class), computed once."""

    synsets: tuple[Any, ...]
    ancestors: dict[Any, int]  # hypernym synset -> fewest steps up (1..MAX)
    related: frozenset[str]  # derivationally related and pertainym lemma names
    antonyms: frozenset[str]


class LexicalSimilarity:
    """Lexical similarity with the components of a :class:`LexicalConfig`.

    Args:
        config: the components to use (all on by default).
        ic: an information-content table ``{pos: {offset: count}}`` to use instead of
            the Brown one (tests pass a tiny one).
    """

    def __init__(self, config: LexicalConfig | None = None, *, ic: dict[str, dict[int, float]] | None = None) -> None:
        self.config = config or LexicalConfig()
        self._ic = ic
        self._effective: LexicalConfig | None = None
        self._word_cache: dict[tuple[str, str | None, str, str | None], float] = {}
        self._phrase_cache: dict[tuple[tuple[str, ...], ...], float] = {}
        self._profiles: dict[tuple[str, str | None], _Profile] = {}
        self._ppdb: dict[str, frozenset[str]] | None = None
        self._lin_cache: dict[tuple[Any, Any], float] = {}
        self._ancestor_ic: dict[Any, dict[Any, float]] = {}

    # -- configuration -------------------------------------------------------------

    @property
    def effective(self) -> LexicalConfig:
        """The configuration with components whose resources are missing turned off."""
        if self._effective is None:
            off = [c for c in unavailable_components() if getattr(self.config, c)]
            if self._ic is not None and "ic_measure" in off and resources.is_available("wordnet"):
                off.remove("ic_measure")
            self._effective = self.config.disable(*off) if off else self.config
        return self._effective

    # -- words -----------------------------------------------------------------------

    def word(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> float:
        """Similarity of two lemmas (lower case) with Penn or WordNet tags (None: any)."""
        a_class, b_class = wordnet_class(a_pos), wordnet_class(b_pos)
        key = (a_lemma, a_class, b_lemma, b_class)
        cached = self._word_cache.get(key)
        if cached is None:
            cached = max(self.breakdown(a_lemma, a_pos, b_lemma, b_pos).values(), default=0.0)
            if len(self._word_cache) > 2_000_000:
                self._word_cache.clear()
            self._word_cache[key] = cached
            self._word_cache[(b_lemma, b_class, a_lemma, a_class)] = cached
        return cached

    def breakdown(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> dict[str, float]:
        """Each enabled component's score for two lemmas (``identity`` first); the
        similarity is their max. For display and for feature-rich scorers."""
        config = self.effective
        a, b = a_lemma.lower(), b_lemma.lower()
        out: dict[str, float] = {"identity": 1.0 if a == b else 0.0}
        if a == b:
            return out
        if config.levenshtein:
            out["levenshtein"] = levenshtein_similarity(a, b)
        if config.numbers:
            out["numbers"] = self._number_score(a, b)
        if config.names:
            out["names"] = 1.0 if ("." in a or "." in b) and a.replace(".", "") == b.replace(".", "") and len(a.replace(".", "")) > 1 else 0.0
        if a in _light_words() or b in _light_words():
            # Function words and light verbs (be, have, do, 's) have WordNet senses and
            # PPDB paraphrases that match almost anything ("be" ~ "cost", "'s" ~ "of");
            # only identity and spelling count for them.
            return out
        if config.ppdb:
            out["ppdb"] = PPDB if b in self._ppdb_table().get(a, ()) else 0.0
        a_class, b_class = wordnet_class(a_pos), wordnet_class(b_pos)
        if a_class == "" or b_class == "" or not (config.wordnet_synonyms or config.hypernyms or config.derivation or config.ic_measure):
            return out
        pa, pb = self._profile(a, a_class), self._profile(b, b_class)
        if not pa.synsets or not pb.synsets:
            if config.derivation:
                out["derivation"] = DERIVATION if b in pa.related or a in pb.related else 0.0
            return out
        if config.wordnet_synonyms:
            out["wordnet_synonyms"] = SYNONYM if set(pa.synsets) & set(pb.synsets) else 0.0
        if config.hypernyms:
            steps = min(
                [pa.ancestors[s] for s in pb.synsets if s in pa.ancestors]
                + [pb.ancestors[s] for s in pa.synsets if s in pb.ancestors],
                default=0,
            )
            out["hypernyms"] = HYPERNYM_ONE_STEP - HYPERNYM_PER_STEP * (steps - 1) if steps else 0.0
        if config.derivation:
            out["derivation"] = DERIVATION if b in pa.related or a in pb.related else 0.0
        if config.ic_measure:
            out["ic_measure"] = self._lin(pa, pb)
        return out

    def hypernym_steps(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> int:
        """Directed WordNet hypernymy, for entailment features: ``+k`` when ``b`` is a
        hypernym of ``a`` ``k`` steps up (a more specific: dog -> animal), ``-k`` when
        ``a`` is a hypernym of ``b``, 0 when neither (within
        :data:`MAX_HYPERNYM_DISTANCE`, or when ``hypernyms`` is off)."""
        if not self.effective.hypernyms:
            return 0
        a_class, b_class = wordnet_class(a_pos), wordnet_class(b_pos)
        a, b = a_lemma.lower(), b_lemma.lower()
        if a == b or a_class == "" or b_class == "" or a in _light_words() or b in _light_words():
            return 0
        pa, pb = self._profile(a, a_class), self._profile(b, b_class)
        up = min((pa.ancestors[s] for s in pb.synsets if s in pa.ancestors), default=0)
        down = min((pb.ancestors[s] for s in pa.synsets if s in pb.ancestors), default=0)
        if up and (not down or up <= down):
            return up
        return -down if down else 0

    def antonym(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> bool:
        """Whether WordNet lists the two lemmas as antonyms (also through an adjective
        satellite's head); False when ``antonyms`` is off."""
        if not self.effective.antonyms:
            return False
        a_class, b_class = wordnet_class(a_pos), wordnet_class(b_pos)
        if a_class == "" or b_class == "":
            return False
        a, b = a_lemma.lower(), b_lemma.lower()
        return b in self._profile(a, a_class).antonyms or a in self._profile(b, b_class).antonyms

    # -- phrases ---------------------------------------------------------------------

    def phrase(
        self,
        a_tokens: Sequence[str],
        b_tokens: Sequence[str],
        *,
        a_pos: Sequence[str] | None = None,
        b_pos: Sequence[str] | None = None,
    ) -> float:
        """Similarity of two phrases given as cased tokens (tags optional: tagged on the
        fly). A max over: the word similarity of single tokens or WordNet multi-word
        lemmas (``United States``), name variants, equal numbers and dates, and a
        compositional score (the mean, over the content tokens of both sides, of each
        token's best match on the other side)."""
        from explorer.preprocess import pos_tag

        if not a_tokens or not b_tokens:
            return 0.0
        a_tags = tuple(a_pos) if a_pos is not None else pos_tag(tuple(a_tokens))
        b_tags = tuple(b_pos) if b_pos is not None else pos_tag(tuple(b_tokens))
        key = (tuple(a_tokens), a_tags, tuple(b_tokens), b_tags)
        cached = self._phrase_cache.get(key)
        if cached is None:
            cached = self._phrase(tuple(a_tokens), a_tags, tuple(b_tokens), b_tags)
            if len(self._phrase_cache) > 500_000:
                self._phrase_cache.clear()
            self._phrase_cache[key] = cached
        return cached

    def _phrase(
        self, a_tokens: tuple[str, ...], a_tags: tuple[str, ...], b_tokens: tuple[str, ...], b_tags: tuple[str, ...]
    ) -> float:
        from explorer.preprocess import lemma

        a_lem = [lemma(t.lower(), g) for t, g in zip(a_tokens, a_tags)]
        b_lem = [lemma(t.lower(), g) for t, g in zip(b_tokens, b_tags)]
        if len(a_lem) == 1 and len(b_lem) == 1:
            single = self.word(a_lem[0], a_tags[0], b_lem[0], b_tags[0])
            if self.effective.names:
                single = max(single, name_similarity(a_tokens, b_tokens))
            return single
        if a_lem == b_lem:
            return 1.0
        config = self.effective
        best = 0.0
        joined_a, joined_b = "_".join(a_lem), "_".join(b_lem)
        if len(a_lem) > 1 or len(b_lem) > 1:
            # WordNet and PPDB know some multi-word lemmas (united_states, take_off).
            best = max(best, self.word(joined_a, None, joined_b, None) if joined_a != joined_b else 1.0)
        if config.names:
            best = max(best, name_similarity(a_tokens, b_tokens))
        if config.numbers:
            va, vb = phrase_number(a_tokens), phrase_number(b_tokens)
            if va is not None and vb is not None and math.isclose(va, vb):
                best = max(best, NUMBER)
            da, db = phrase_date(a_tokens), phrase_date(b_tokens)
            if da is not None and db is not None:
                agree = all(x == y for x, y in zip(da, db) if x is not None and y is not None)
                if agree and da == db:
                    best = max(best, NUMBER)
                elif agree:
                    best = max(best, DATE_PARTIAL)
        best = max(best, self._compositional(a_lem, a_tags, b_lem, b_tags))
        return min(best, 1.0)

    def _compositional(self, a_lem: list[str], a_tags: Sequence[str], b_lem: list[str], b_tags: Sequence[str]) -> float:
        from explorer.preprocess import stopwords

        stop = stopwords()
        a_idx = [i for i, w in enumerate(a_lem) if w not in stop and any(c.isalnum() for c in w)] or list(range(len(a_lem)))
        b_idx = [j for j, w in enumerate(b_lem) if w not in stop and any(c.isalnum() for c in w)] or list(range(len(b_lem)))
        sims = np.array([[self.word(a_lem[i], a_tags[i], b_lem[j], b_tags[j]) for j in b_idx] for i in a_idx])
        return float((sims.max(axis=1).sum() + sims.max(axis=0).sum()) / (len(a_idx) + len(b_idx)))

    # -- matrices --------------------------------------------------------------------

    def matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        """Word similarity of every text token (rows) to every hypothesis token
        (columns), on lemmas with their POS tags, and 1 wherever the lower-cased tokens
        are identical: shape ``(len(text), len(hypothesis))``."""
        t_keys = list(zip(text.lemmas, text.pos))
        h_keys = list(zip(hypothesis.lemmas, hypothesis.pos))
        t_unique = list(dict.fromkeys(t_keys))
        h_unique = list(dict.fromkeys(h_keys))
        small = np.array([[self.word(a, ap, b, bp) for (b, bp) in h_unique] for (a, ap) in t_unique], dtype=float)
        if small.size == 0:
            return np.zeros((len(t_keys), len(h_keys)))
        t_pos = {k: i for i, k in enumerate(t_unique)}
        h_pos = {k: j for j, k in enumerate(h_unique)}
        rows = np.array([t_pos[k] for k in t_keys], dtype=int)
        cols = np.array([h_pos[k] for k in h_keys], dtype=int)
        full = small[np.ix_(rows, cols)]
        # The same word tagged differently on the two sides ("sat" as VBD and as NN)
        # gets different lemmas; its identical surface form still makes it a match.
        same = np.equal.outer(np.array(text.lower, dtype=object), np.array(hypothesis.lower, dtype=object))
        full[same.astype(bool)] = 1.0
        return full

    def antonym_matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        """Boolean matrix: text token i and hypothesis token j are antonyms."""
        out = np.zeros((len(text), len(hypothesis)), dtype=bool)
        if not self.effective.antonyms:
            return out
        for i, (a, ap) in enumerate(zip(text.lemmas, text.pos)):
            for j, (b, bp) in enumerate(zip(hypothesis.lemmas, hypothesis.pos)):
                out[i, j] = self.antonym(a, ap, b, bp)
        return out

    # -- resources -------------------------------------------------------------------

    def _number_score(self, a: str, b: str) -> float:
        va, vb = number_value(a), number_value(b)
        if va is not None and vb is not None and va == vb:
            return NUMBER
        ma, mb = month_of(a), month_of(b)
        if ma is not None and ma == mb:
            return NUMBER
        return 0.0

    def _ppdb_table(self) -> dict[str, frozenset[str]]:
        if self._ppdb is None:
            self._ppdb = load_ppdb()
        return self._ppdb

    def _profile(self, lemma_: str, wn_class: str | None) -> _Profile:
        key = (lemma_, wn_class)
        profile = self._profiles.get(key)
        if profile is None:
            profile = _build_profile(lemma_, wn_class)
            self._profiles[key] = profile
        return profile

    def _lin(self, pa: _Profile, pb: _Profile) -> float:
        best = 0.0
        for sa in pa.synsets[:IC_SENSES]:
            for sb in pb.synsets[:IC_SENSES]:
                if sa.pos() != sb.pos() or sa.pos() not in ("n", "v"):
                    continue
                key = (sa, sb) if sa.name() <= sb.name() else (sb, sa)
                value = self._lin_cache.get(key)
                if value is None:
                    value = self._lin_synsets(*key)
                    self._lin_cache[key] = value
                best = max(best, value)
        return IC_SCALE * best if best >= IC_FLOOR else 0.0

    def _ancestors_ic(self, synset: Any) -> dict[Any, float]:
        table = self._ancestor_ic.get(synset)
        if table is None:
            ic = self._ic_table()
            counts = ic.get(synset.pos(), {})
            root = counts.get(0, 0.0)
            table = {}
            for ancestor in synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms()):
                table[ancestor] = _information_content(counts.get(ancestor.offset(), 0.0), root)
            table[synset] = _information_content(counts.get(synset.offset(), 0.0), root)
            self._ancestor_ic[synset] = table
        return table

    def _lin_synsets(self, sa: Any, sb: Any) -> float:
        ta, tb = self._ancestors_ic(sa), self._ancestors_ic(sb)
        ic_a, ic_b = ta[sa], tb[sb]
        if ic_a + ic_b <= 0 or math.isinf(ic_a) or math.isinf(ic_b):
            return 0.0
        shared = [ta[s] for s in ta.keys() & tb.keys()]
        subsumer = max(shared, default=0.0)
        return max(0.0, min(1.0, 2.0 * subsumer / (ic_a + ic_b)))

    def _ic_table(self) -> dict[str, dict[int, float]]:
        if self._ic is None:
            self._ic = brown_information_content()
        return self._ic


def _information_content(count: float, root: float) -> float:
    if count <= 0 or root <= 0:
        return math.inf
    return -math.log(count / root)


def _build_profile(lemma_: str, wn_class: str | None) -> _Profile:
    from nltk.corpus import wordnet as wn

    name = lemma_.replace(" ", "_")
    synsets: list[Any] = list(wn.synsets(name, pos=wn_class)) if wn_class else []
    if wn_class == "a":
        synsets += [s for s in wn.synsets(name, pos="s") if s not in synsets]
    if not synsets:
        synsets = list(wn.synsets(name))
    ancestors: dict[Any, int] = {}
    frontier = list(synsets)
    for depth in range(1, MAX_HYPERNYM_DISTANCE + 1):
        upper = []
        for s in frontier:
            for h in s.hypernyms() + s.instance_hypernyms():
                if h not in ancestors:
                    ancestors[h] = depth
                    upper.append(h)
        frontier = upper
    related: set[str] = set()
    antonyms: set[str] = set()
    for s in synsets:
        heads = [s] + (s.similar_tos() if s.pos() == "s" else [])
        for head in heads:
            for lem in head.lemmas():
                if head is s and lem.name().lower() != name:
                    continue
                for ant in lem.antonyms():
                    antonyms.add(ant.name().lower().replace("_", " "))
        for lem in s.lemmas():
            if lem.name().lower() != name:
                continue
            for rel in lem.derivationally_related_forms() + lem.pertainyms():
                related.add(rel.name().lower())
    # Antonyms are stored with spaces for multi-word lemmas; lookups use the lemma form.
    antonyms |= {a.replace(" ", "_") for a in antonyms}
    return _Profile(tuple(synsets), ancestors, frozenset(related), frozenset(antonyms))


# -- resource loading (once per process; the IC table also on disk) ---------------------

@lru_cache(maxsize=1)
def load_ppdb() -> dict[str, frozenset[str]]:
    """PPDB 1.0 XXXL lexical synonyms as a symmetric lower-cased word -> words table
    (empty when the ``mwa_ppdb`` resource is missing)."""
    import nltk

    if not resources.is_available("mwa_ppdb"):
        return {}
    table: dict[str, set[str]] = {}
    root = nltk.data.find("misc/mwa_ppdb")
    path = getattr(root, "path", str(root))
    import os

    files = [os.path.join(path, f) for f in sorted(os.listdir(path))] if os.path.isdir(path) else []
    for file in files:
        with open(file, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 2:
                    continue
                a, b = parts[0].strip().lower(), parts[1].strip().lower()
                if a and b and a != b:
                    table.setdefault(a, set()).add(b)
                    table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


def compute_information_content(words: Iterable[str], *, smoothing: float = 1.0) -> dict[str, dict[int, float]]:
    """WordNet information-content counts from a word stream, as ``nltk``'s
    ``wn.ic(corpus, weight_senses_equally=False, smoothing)`` computes them: every
    noun and verb synset starts at ``smoothing``; each word's count is split over its
    synsets and added to each synset and all its hypernyms; offset 0 holds the root
    total."""
    from collections import Counter

    from nltk.corpus import wordnet as wn

    counts = Counter(words)
    ic: dict[str, dict[int, float]] = {"n": {0: smoothing}, "v": {0: smoothing}}
    if smoothing > 0:
        for synset in wn.all_synsets():
            if synset.pos() in ic:
                ic[synset.pos()][synset.offset()] = smoothing
    for word, count in counts.items():
        synsets = wn.synsets(word)
        if not synsets:
            continue
        weight = count / len(synsets)
        for synset in synsets:
            table = ic.get(synset.pos())
            if table is None:
                continue
            for level in synset._iter_hypernym_lists():
                for hyper in level:
                    table[hyper.offset()] = table.get(hyper.offset(), 0.0) + weight
            table[0] += weight
    return ic


@lru_cache(maxsize=1)
def brown_information_content() -> dict[str, dict[int, float]]:
    """Brown-corpus information content for nouns and verbs, from the on-disk cache or
    computed (~25 s) and stored there."""
    from explorer import cache

    def compute() -> dict[str, dict[str, float]]:
        from nltk.corpus import brown

        ic = compute_information_content(brown.words())
        return {pos: {str(k): v for k, v in table.items()} for pos, table in ic.items()}

    stored = cache.cached_json(IC_CACHE_NAME, compute)
    return {pos: {int(k): float(v) for k, v in table.items()} for pos, table in stored.items()}


@lru_cache(maxsize=1)
def default_similarity() -> LexicalSimilarity:
    """The shared all-components instance (its caches warm up across calls)."""
    return LexicalSimilarity(LexicalConfig())


@lru_cache(maxsize=64)
def similarity_for(config: LexicalConfig) -> LexicalSimilarity:
    """A shared instance per configuration (ablations reuse their caches)."""
    if config == LexicalConfig():
        return default_similarity()
    return LexicalSimilarity(config)

"""The combined lexical similarity (:class:`LexicalSimilarity`): the max over the
switched-on components of :mod:`explorer.lexical`, with per-lemma caches, and the
shared instances per configuration."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from explorer import resources
from explorer.lexical.config import (
    DATE_PARTIAL,
    DERIVATION,
    EMBEDDING_FLOOR,
    EMBEDDING_SCALE,
    HYPERNYM_ONE_STEP,
    HYPERNYM_PER_STEP,
    IC_FLOOR,
    IC_SCALE,
    IC_SENSES,
    NUMBER,
    PPDB,
    SYNONYM,
    LexicalConfig,
    unavailable_components,
)
from explorer.lexical.names import name_similarity
from explorer.lexical.numbers import month_of, number_value, phrase_date, phrase_number
from explorer.lexical.ppdb import load_ppdb
from explorer.lexical.strings import levenshtein_similarity
from explorer.lexical.wordnet import (
    _build_profile,
    _information_content,
    _light_words,
    _Profile,
    brown_information_content,
    wordnet_class,
)

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

    from explorer.lexical.embedding import StaticEmbeddings
    from explorer.preprocess import Analysis


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
        self._lin_cache: dict[tuple[Synset, Synset], float] = {}
        self._ancestor_ic: dict[Synset, dict[Synset, float]] = {}
        self._embedding_cache: dict[tuple[str, str], float] = {}
        self._embeddings: StaticEmbeddings | None = None

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
        classic = self._classic_word(a_lemma, a_pos, b_lemma, b_pos)
        if not self.effective.embedding:
            return classic
        return max(classic, self._embedding_score(a_lemma.lower(), b_lemma.lower()))

    def _classic_word(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> float:
        """The max over every enabled component but ``embedding`` (kept per lemma pair)."""
        a_class, b_class = wordnet_class(a_pos), wordnet_class(b_pos)
        key = (a_lemma, a_class, b_lemma, b_class)
        cached = self._word_cache.get(key)
        if cached is None:
            cached = max(self._classic_breakdown(a_lemma, a_pos, b_lemma, b_pos).values(), default=0.0)
            if len(self._word_cache) > 2_000_000:
                self._word_cache.clear()
            self._word_cache[key] = cached
            self._word_cache[(b_lemma, b_class, a_lemma, a_class)] = cached
        return cached

    def breakdown(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> dict[str, float]:
        """Each enabled component's score for two lemmas (``identity`` first); the
        similarity is their max. For display and for feature-rich scorers."""
        out = self._classic_breakdown(a_lemma, a_pos, b_lemma, b_pos)
        a, b = a_lemma.lower(), b_lemma.lower()
        if self.effective.embedding and a != b:
            out["embedding"] = self._embedding_score(a, b)
        return out

    def source(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> str:
        """The component that gives two lemmas their similarity (the first of the
        breakdown's maxima), or ``""`` when every component scores 0."""
        parts = self.breakdown(a_lemma, a_pos, b_lemma, b_pos)
        best = max(parts.values(), default=0.0)
        if best <= 0.0:
            return ""
        return next(name for name, value in parts.items() if value == best)

    def _classic_breakdown(self, a_lemma: str, a_pos: str | None, b_lemma: str, b_pos: str | None) -> dict[str, float]:
        a, b = a_lemma.lower(), b_lemma.lower()
        out: dict[str, float] = {"identity": 1.0 if a == b else 0.0}
        if a == b:
            return out
        out.update(self._spelling_parts(a, b))
        if a in _light_words() or b in _light_words():
            # Function words and light verbs (be, have, do, 's) have WordNet senses and
            # PPDB paraphrases that match almost anything ("be" ~ "cost", "'s" ~ "of");
            # only identity and spelling count for them.
            return out
        if self.effective.ppdb:
            out["ppdb"] = PPDB if b in self._ppdb_table().get(a, ()) else 0.0
        out.update(self._wordnet_parts(a, a_pos, b, b_pos))
        return out

    def _spelling_parts(self, a: str, b: str) -> dict[str, float]:
        """The enabled components that read two lower-cased words' spelling: edit
        distance, equal numbers, name variants (``U.S.`` ~ ``US``)."""
        config = self.effective
        out: dict[str, float] = {}
        if config.levenshtein:
            out["levenshtein"] = levenshtein_similarity(a, b)
        if config.numbers:
            out["numbers"] = self._number_score(a, b)
        if config.names:
            out["names"] = 1.0 if ("." in a or "." in b) and a.replace(".", "") == b.replace(".", "") and len(a.replace(".", "")) > 1 else 0.0
        return out

    def _wordnet_parts(self, a: str, a_pos: str | None, b: str, b_pos: str | None) -> dict[str, float]:
        """The enabled WordNet components: none unless both words have a WordNet class;
        derivation alone when either word has no synsets."""
        config = self.effective
        a_class, b_class = wordnet_class(a_pos), wordnet_class(b_pos)
        if a_class == "" or b_class == "" or not (config.wordnet_synonyms or config.hypernyms or config.derivation or config.ic_measure):
            return {}
        pa, pb = self._profile(a, a_class), self._profile(b, b_class)
        if not pa.synsets or not pb.synsets:
            return {"derivation": _derivation_score(a, pa, b, pb)} if config.derivation else {}
        out: dict[str, float] = {}
        if config.wordnet_synonyms:
            out["wordnet_synonyms"] = SYNONYM if set(pa.synsets) & set(pb.synsets) else 0.0
        if config.hypernyms:
            out["hypernyms"] = _hypernym_score(pa, pb)
        if config.derivation:
            out["derivation"] = _derivation_score(a, pa, b, pb)
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
        small = np.array([[self._classic_word(a, ap, b, bp) for (b, bp) in h_unique] for (a, ap) in t_unique], dtype=float)
        if small.size == 0:
            return np.zeros((len(t_keys), len(h_keys)))
        if self.effective.embedding:
            # One matrix product for every lemma pair of the sentence pair at once.
            small = np.maximum(small, self._embedding_matrix([a.lower() for a, _ in t_unique],
                                                             [b.lower() for b, _ in h_unique]))
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

    def source_matrix(self, text: Analysis, hypothesis: Analysis) -> list[list[str]]:
        """Which component gives each cell of :meth:`matrix` its value (:meth:`source`;
        ``identity`` where the lower-cased tokens are equal, ``""`` where nothing matches),
        as rows of text tokens. For display: one breakdown per distinct lemma pair."""
        t_keys = list(zip(text.lemmas, text.pos))
        h_keys = list(zip(hypothesis.lemmas, hypothesis.pos))
        found: dict[tuple[tuple[str, str], tuple[str, str]], str] = {}
        out: list[list[str]] = []
        for i, (a, ap) in enumerate(t_keys):
            row = []
            for j, (b, bp) in enumerate(h_keys):
                if text.lower[i] == hypothesis.lower[j]:
                    row.append("identity")
                    continue
                key = ((a, ap), (b, bp))
                if key not in found:
                    found[key] = self.source(a, ap, b, bp)
                row.append(found[key])
            out.append(row)
        return out

    def antonym_matrix(self, text: Analysis, hypothesis: Analysis) -> np.ndarray:
        """Boolean matrix: text token i and hypothesis token j are antonyms."""
        out = np.zeros((len(text), len(hypothesis)), dtype=bool)
        if not self.effective.antonyms:
            return out
        for i, (a, ap) in enumerate(zip(text.lemmas, text.pos)):
            for j, (b, bp) in enumerate(zip(hypothesis.lemmas, hypothesis.pos)):
                out[i, j] = self.antonym(a, ap, b, bp)
        return out

    # -- embeddings ------------------------------------------------------------------

    @property
    def embeddings(self) -> StaticEmbeddings:
        """The static embeddings the ``embedding`` component reads (shared, loaded on first use)."""
        if self._embeddings is None:
            from explorer.lexical.embedding import shared_embeddings

            self._embeddings = shared_embeddings()
        return self._embeddings

    def _embedding_score(self, a: str, b: str) -> float:
        """The ``embedding`` component for two lower-cased lemmas (see :func:`embedding_scores`)."""
        key = (a, b) if a <= b else (b, a)
        cached = self._embedding_cache.get(key)
        if cached is None:
            cached = float(self._embedding_matrix([a], [b])[0, 0])
            if len(self._embedding_cache) > 2_000_000:
                self._embedding_cache.clear()
            self._embedding_cache[key] = cached
        return cached

    def _embedding_matrix(self, a_words: Sequence[str], b_words: Sequence[str]) -> np.ndarray:
        cosine = self.embeddings.similarity(a_words, b_words)
        return embedding_scores(cosine, a_words, b_words)

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

    def _ancestors_ic(self, synset: Synset) -> dict[Synset, float]:
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

    def _lin_synsets(self, sa: Synset, sb: Synset) -> float:
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


def _hypernym_score(pa: _Profile, pb: _Profile) -> float:
    """Hypernymy either way, less per step up from the nearer word (0 when neither is an
    ancestor of the other within the profiles' reach)."""
    steps = min(
        [pa.ancestors[s] for s in pb.synsets if s in pa.ancestors]
        + [pb.ancestors[s] for s in pa.synsets if s in pb.ancestors],
        default=0,
    )
    return HYPERNYM_ONE_STEP - HYPERNYM_PER_STEP * (steps - 1) if steps else 0.0


def _derivation_score(a: str, pa: _Profile, b: str, pb: _Profile) -> float:
    """Whether either word is a derivationally related form of the other."""
    return DERIVATION if b in pa.related or a in pb.related else 0.0


def embedding_scores(cosine: np.ndarray, a_words: Sequence[str], b_words: Sequence[str]) -> np.ndarray:
    """The ``embedding`` component from a matrix of cosines between lower-cased lemmas:
    ``EMBEDDING_SCALE * cosine`` where the cosine reaches :data:`EMBEDDING_FLOOR`, else 0;
    1 for identical lemmas; 0 in the rows and columns of function words and light verbs,
    whose vectors resemble every other function word's (as their WordNet senses do)."""
    out = np.where(cosine >= EMBEDDING_FLOOR, EMBEDDING_SCALE * cosine, 0.0)
    light = _light_words()
    out[np.array([w in light for w in a_words], dtype=bool), :] = 0.0
    out[:, np.array([w in light for w in b_words], dtype=bool)] = 0.0
    same = np.equal.outer(np.array(a_words, dtype=object), np.array(b_words, dtype=object)).astype(bool)
    out[same] = 1.0
    return out


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

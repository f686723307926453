"""Edit-operation features of one sentence pair (Wang & Cer 2012, §2.2).

Every operation the edit machines may apply to a pair gets a short list of named
features: the substitution class of a word pair (exact word, lemma, punctuation,
PPDB paraphrase, lexical similarity from :mod:`explorer.lexical`, anything else) with
refinements (stop words, numbers, shared prefixes, the similarity value); deletions and
insertions with the word itself (lexicalised; rare ones are pruned at training time),
its coarse part of speech and whether it is a stop word or punctuation; and bigram
blocks (one-to-two, two-to-one, two-to-two tokens) whose joined spellings agree, such as
``can not`` / ``cannot`` or ``e - mail`` / ``email``.

Features are data: :class:`PairFeatures` holds, per table (``sub``, ``b12``, ``b21``,
``b22``, ``ins``, ``del``), a row per cell and its ``(name, value)`` pairs. The model
turns names into columns with a :class:`FeatureIndex`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import sparse

from explorer.edit_distance.states import C_LEMMA, C_OTHER, C_PARA, C_PUNC, C_SYN, C_WORD, CLASSES
from explorer.lexical import LexicalSimilarity, load_ppdb
from explorer.preprocess import Analysis, AnalyzedPair

TABLES = ("sub", "b12", "b21", "b22", "ins", "del")

#: Word pairs whose lexical similarity reaches this are the S_SYN class.
SYNONYM_THRESHOLD = 0.5

#: Lexical components left out: string resemblance has its own prefix feature here,
#: and Lin's information content is slow (it dominated scoring time) and counts loosely
#: related words as synonyms.
LEXICAL_OFF = ("levenshtein", "ic_measure", "antonyms")

_NUMBER = re.compile(r"^[+-]?\d[\d,.]*%?$")
_JOIN_STRIP = re.compile(r"[-'`’_/]")

Row = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class PairFeatures:
    """The operation features of one pair.

    Attributes:
        n: text length; m: hypothesis length.
        sub_class: ``n * m`` substitution classes (indices into ``automaton.CLASSES``),
            row-major ``[i * m + j]``.
        rows: table name -> one feature tuple per cell (``n * m`` for ``sub`` and the
            blocks, ``m`` for ``ins``, ``n`` for ``del``); an empty tuple for a block
            cell means the block is not allowed there.
    """

    n: int
    m: int
    sub_class: np.ndarray
    rows: dict[str, tuple[Row, ...]]


def lexical_similarity(*, embedding: bool = False) -> LexicalSimilarity:
    """The shared lexical similarity without :data:`LEXICAL_OFF` (:mod:`explorer.lexical`:
    WordNet synonyms, hypernyms and derivations, PPDB, names, numbers), with the opt-in
    static-embedding component when ``embedding`` (compared across files; not shipped)."""
    from explorer.lexical import LexicalConfig, similarity_for

    config = LexicalConfig.without(*LEXICAL_OFF)
    return similarity_for(config.enable("embedding") if embedding else config)


def similarity_matrix(pair: AnalyzedPair, *, embedding: bool = False) -> np.ndarray | None:
    """Lexical similarity of every text/hypothesis token pair (:func:`lexical_similarity`)."""
    return np.asarray(lexical_similarity(embedding=embedding).matrix(pair.text, pair.hypothesis), dtype=float)


def coarse_pos(tag: str) -> str:
    """Noun, verb, adjective, adverb, number, punctuation or other."""
    if tag.startswith("NN"):
        return "N"
    if tag.startswith("VB") or tag == "MD":
        return "V"
    if tag.startswith("JJ"):
        return "J"
    if tag.startswith("RB"):
        return "R"
    if tag == "CD":
        return "CD"
    if not tag[:1].isalpha():
        return "PUNCT"
    return "O"


def _joined(words: Iterable[str]) -> str:
    return _JOIN_STRIP.sub("", "".join(words))


def substitution_class(
    t: Analysis, h: Analysis, i: int, j: int, *, similarity: float | None,
    ppdb: dict[str, frozenset[str]],
) -> int:
    """The paper's substitution state for text token ``i`` and hypothesis token ``j``."""
    tw, hw = t.lower[i], h.lower[j]
    if tw == hw:
        return C_WORD
    if t.lemmas[i] == h.lemmas[j]:
        return C_LEMMA
    if t.is_punct[i] and h.is_punct[j]:
        return C_PUNC
    if hw in ppdb.get(tw, ()):
        return C_PARA
    if similarity is not None and similarity >= SYNONYM_THRESHOLD:
        return C_SYN
    return C_OTHER


def _token_row(op: str, a: Analysis, i: int) -> Row:
    feats: list[tuple[str, float]] = [(op, 1.0), (f"{op}:w={a.lower[i]}", 1.0),
                                      (f"{op}:pos={coarse_pos(a.pos[i])}", 1.0)]
    if a.is_punct[i]:
        feats.append((f"{op}:punct", 1.0))
    elif a.stop[i]:
        feats.append((f"{op}:stop", 1.0))
    return tuple(feats)


@dataclass(frozen=True)
class _Tokens:
    """Per-token properties computed once per sentence."""

    lower: tuple[str, ...]
    stop: tuple[bool, ...]
    number: tuple[bool, ...]
    capital: tuple[bool, ...]
    pos: tuple[str, ...]

    @classmethod
    def of(cls, a: Analysis) -> _Tokens:
        return cls(a.lower, a.stop, tuple(bool(_NUMBER.match(w)) for w in a.lower),
                   tuple(w[:1].isupper() for w in a.tokens), tuple(coarse_pos(tag) for tag in a.pos))


def _sub_row(cls: int, t: _Tokens, h: _Tokens, i: int, j: int, similarity: float | None) -> Row:
    name = CLASSES[cls]
    feats: list[tuple[str, float]] = [(f"sub:{name}", 1.0)]
    t_stop, h_stop = t.stop[i], h.stop[j]
    if cls == C_WORD:
        if t_stop:
            feats.append(("sub:S_WORD:stop", 1.0))
        elif t.number[i]:
            feats.append(("sub:S_WORD:number", 1.0))
        elif t.capital[i] and h.capital[j]:
            feats.append(("sub:S_WORD:capitalised", 1.0))
    elif cls == C_OTHER:
        if t_stop and h_stop:
            feats.append(("sub:S_OTHER:both_stop", 1.0))
        elif t_stop or h_stop:
            feats.append(("sub:S_OTHER:one_stop", 1.0))
        if t.number[i] and h.number[j]:
            feats.append(("sub:S_OTHER:numbers", 1.0))
        tw, hw = t.lower[i], h.lower[j]
        if len(tw) >= 4 and len(hw) >= 4 and tw[:4] == hw[:4]:
            feats.append(("sub:S_OTHER:prefix", 1.0))
        if t.pos[i] == h.pos[j]:
            feats.append((f"sub:S_OTHER:pos={t.pos[i]}", 1.0))
    if similarity is not None and cls in (C_SYN, C_OTHER, C_PARA):
        feats.append((f"sub:{name}:similarity", float(similarity)))
    return tuple(feats)


def pair_features(pair: AnalyzedPair, *, similarity: np.ndarray | None = None) -> PairFeatures:
    """Every operation's features for one pair.

    Args:
        pair: the analysed pair (text = the sentence edited, hypothesis = the target).
        similarity: an ``n x m`` lexical similarity matrix; by default
            :func:`similarity_matrix`.
    """
    t, h = pair.text, pair.hypothesis
    n, m = len(t), len(h)
    if similarity is None:
        similarity = similarity_matrix(pair)
    if similarity is not None and similarity.shape != (n, m):
        raise ValueError(f"similarity matrix of shape {similarity.shape} for a {n} x {m} pair")
    ppdb = load_ppdb()
    t_props, h_props = _Tokens.of(t), _Tokens.of(h)
    sub_class = np.empty(n * m, dtype=np.int64)
    sub_rows: list[Row] = []
    for i in range(n):
        for j in range(m):
            sim = None if similarity is None else float(similarity[i, j])
            cls = substitution_class(t, h, i, j, similarity=sim, ppdb=ppdb)
            sub_class[i * m + j] = cls
            sub_rows.append(_sub_row(cls, t_props, h_props, i, j, sim))
    blocks: dict[str, list[Row]] = {name: [()] * (n * m) for name in ("b12", "b21", "b22")}
    for i in range(n):
        for j in range(m):
            for name, (dt, dh) in (("b12", (1, 2)), ("b21", (2, 1)), ("b22", (2, 2))):
                if i + dt > n or j + dh > m:
                    continue
                t_words, h_words = t.lower[i : i + dt], h.lower[j : j + dh]
                if t_words == h_words:
                    continue
                joined = _joined(t_words)
                if joined and joined == _joined(h_words):
                    blocks[name][i * m + j] = ((f"block:{name}", 1.0),)
    rows: dict[str, tuple[Row, ...]] = {
        "sub": tuple(sub_rows),
        "ins": tuple(_token_row("ins", h, j) for j in range(m)),
        "del": tuple(_token_row("del", t, i) for i in range(n)),
        **{name: tuple(value) for name, value in blocks.items()},
    }
    return PairFeatures(n=n, m=m, sub_class=sub_class, rows=rows)


@dataclass(frozen=True)
class FeatureIndex:
    """Feature names -> columns (the model's emission weights are in this order)."""

    names: tuple[str, ...]

    @classmethod
    def fit(cls, encoded: Sequence[PairFeatures], *, min_count: int = 5) -> FeatureIndex:
        """Keep features that fire in at least ``min_count`` cells of the training data
        (the paper drops features seen fewer than five times)."""
        counts: Counter[str] = Counter()
        for feats in encoded:
            for table in TABLES:
                for row in feats.rows[table]:
                    counts.update(name for name, _ in row)
        return cls(tuple(sorted(name for name, c in counts.items() if c >= min_count)))

    def columns(self) -> dict[str, int]:
        return {name: k for k, name in enumerate(self.names)}

    def matrix(self, encoded: Sequence[PairFeatures], table: str) -> tuple[sparse.csr_matrix, np.ndarray]:
        """The stacked feature matrix of one table over many pairs, and a mask of rows
        whose operation is allowed (block cells without features are not)."""
        cols = self.columns()
        indptr = [0]
        indices: list[int] = []
        data: list[float] = []
        allowed: list[bool] = []
        for feats in encoded:
            for row in feats.rows[table]:
                allowed.append(bool(row) or table not in ("b12", "b21", "b22"))
                for name, value in row:
                    k = cols.get(name)
                    if k is not None:
                        indices.append(k)
                        data.append(value)
                indptr.append(len(indices))
        shape = (len(indptr) - 1, len(self.names))
        matrix = sparse.csr_matrix((np.array(data, dtype=float), np.array(indices, dtype=np.int64),
                                    np.array(indptr, dtype=np.int64)), shape=shape)
        return matrix, np.array(allowed, dtype=bool)


def _rename(rows: tuple[Row, ...], old: str, new: str) -> tuple[Row, ...]:
    return tuple(tuple((new + name[len(old):] if name.startswith(old) else name, v) for name, v in row)
                 for row in rows)


def _transpose(rows: Sequence[Row], n: int, m: int) -> tuple[Row, ...]:
    """Cell rows stored ``[i * m + j]`` re-stored ``[j * n + i]``."""
    return tuple(rows[i * m + j] for j in range(m) for i in range(n))


def swap_sides(feats: PairFeatures) -> PairFeatures:
    """The features of the same pair read the other way (hypothesis edited into text):
    substitution cells transposed, insertions and deletions exchanged, one-to-two and
    two-to-one blocks exchanged. Similarity data are symmetric, so scoring both
    directions and averaging gives a direction-free score."""
    n, m = feats.n, feats.m
    sub_class = feats.sub_class.reshape(n, m).T.ravel().copy()
    rows = {
        "sub": _transpose(feats.rows["sub"], n, m),
        "b22": _transpose(feats.rows["b22"], n, m),
        # a b12 cell (text i, hypothesis j..j+1) is the b21 cell (text j..j+1, hypothesis i)
        "b21": _rename(_transpose(feats.rows["b12"], n, m), "block:b12", "block:b21"),
        "b12": _rename(_transpose(feats.rows["b21"], n, m), "block:b21", "block:b12"),
        "ins": _rename(feats.rows["del"], "del", "ins"),
        "del": _rename(feats.rows["ins"], "ins", "del"),
    }
    return PairFeatures(n=m, m=n, sub_class=sub_class, rows=rows)


def tie_gaps(feats: PairFeatures) -> PairFeatures:
    """Insertion and deletion features under one name (``gap``, ``gap:w=...``), so a word
    costs the same to insert or to delete (the transitions still tell them apart)."""
    rows = dict(feats.rows)
    rows["ins"] = _rename(feats.rows["ins"], "ins", "gap")
    rows["del"] = _rename(feats.rows["del"], "del", "gap")
    return PairFeatures(n=feats.n, m=feats.m, sub_class=feats.sub_class, rows=rows)


@njit(cache=True)
def lcs_table(same: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Longest common subsequence lengths of every prefix pair (``same``: n x m)."""
    n, m = same.shape
    table = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            if same[i, j]:
                table[i + 1, j + 1] = table[i, j] + 1
            else:
                table[i + 1, j + 1] = max(table[i, j + 1], table[i + 1, j])
    return table


def reorder_by_matches(same: np.ndarray) -> tuple[int, ...]:
    """A reading order of the hypothesis that follows the text: ``same[i, j]`` says text
    token ``i`` and hypothesis token ``j`` are the same word. The longest in-order run of
    same words stays; every other hypothesis word that occurs in the text (unused) moves
    to that word's text position; words found nowhere in the text travel with the word
    before them. Returns hypothesis positions in the new order (identity when nothing moves)."""
    n, m = same.shape
    table = lcs_table(np.ascontiguousarray(same, dtype=np.bool_))
    anchor: dict[int, int] = {}
    i, j = n, m
    while i and j:
        if same[i - 1, j - 1] and table[i, j] == table[i - 1, j - 1] + 1:
            anchor[j - 1] = i - 1
            i, j = i - 1, j - 1
        elif table[i - 1, j] >= table[i, j - 1]:
            i -= 1
        else:
            j -= 1
    used = set(anchor.values())
    for j in range(m):
        if j in anchor:
            continue
        free = [i for i in np.flatnonzero(same[:, j]).tolist() if i not in used]
        if free:
            anchor[j] = free[0]
            used.add(free[0])
    keys: list[tuple[float, int]] = []
    key = -1.0
    for j in range(m):
        key = float(anchor[j]) if j in anchor else key
        keys.append((key, j))
    return tuple(j for _, j in sorted(keys))


#: The substitution classes that count as the same word when ``soft`` ordering: exact
#: word, lemma, PPDB paraphrase, lexical similarity (WordNet, names, numbers).
SOFT_MATCH_CLASSES = (C_WORD, C_LEMMA, C_PARA, C_SYN)


def reorder_hypothesis(feats: PairFeatures, *, soft: bool = False) -> tuple[PairFeatures, tuple[int, ...]]:
    """The features of the pair with its hypothesis read in :func:`reorder_by_matches`
    order, and that order (``order[k]`` = the original position of the ``k``-th word
    read). Words are the same when they match exactly (the S_WORD class); with ``soft``,
    a hypothesis word and a text word that have no exact match anywhere are also the same
    when they share a lemma, are PPDB paraphrases or lexically similar (S_LEMMA, S_PARA,
    S_SYN). Made from the pair's own features, so every cell keeps its features; a block
    over two hypothesis words is kept only where the two words stay side by side."""
    n, m = feats.n, feats.m
    same = (feats.sub_class == C_WORD).reshape(n, m)
    if soft:
        similar = np.isin(feats.sub_class, SOFT_MATCH_CLASSES).reshape(n, m)
        same = same | (similar & ~same.any(axis=0)[None, :] & ~same.any(axis=1)[:, None])
    order = reorder_by_matches(same)
    if order == tuple(range(m)):
        return feats, order
    cells = np.array([i * m + order[j] for i in range(n) for j in range(m)], dtype=np.int64)
    adjacent = [j + 1 < m and order[j + 1] == order[j] + 1 for j in range(m)]
    two_words = {name: tuple(feats.rows[name][i * m + order[j]] if adjacent[j] else ()
                             for i in range(n) for j in range(m)) for name in ("b12", "b22")}
    rows = {
        "sub": tuple(feats.rows["sub"][c] for c in cells),
        "b21": tuple(feats.rows["b21"][c] for c in cells),
        **two_words,
        "ins": tuple(feats.rows["ins"][j] for j in order),
        "del": feats.rows["del"],
    }
    return PairFeatures(n=n, m=m, sub_class=feats.sub_class[cells], rows=rows), order

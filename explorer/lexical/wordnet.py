"""WordNet: content-word classes, per-lemma profiles (senses, hypernyms, related
forms, antonyms) and Brown information content for Lin similarity."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from explorer import resources
from explorer.lexical.config import IC_CACHE_NAME, MAX_HYPERNYM_DISTANCE

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset

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

    synsets: tuple[Synset, ...]
    ancestors: dict[Synset, int]  # hypernym synset -> fewest steps up (1..MAX)
    related: frozenset[str]  # derivationally related and pertainym lemma names
    antonyms: frozenset[str]


def _information_content(count: float, root: float) -> float:
    if count <= 0 or root <= 0:
        return math.inf
    return -math.log(count / root)


def _build_profile(lemma_: str, wn_class: str | None) -> _Profile:
    from nltk.corpus import wordnet as wn

    resources.prepare_wordnet()

    name = lemma_.replace(" ", "_")
    synsets: list[Synset] = list(wn.synsets(name, pos=wn_class)) if wn_class else []
    if wn_class == "a":
        synsets += [s for s in wn.synsets(name, pos="s") if s not in synsets]
    if not synsets:
        synsets = list(wn.synsets(name))
    ancestors: dict[Synset, int] = {}
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


def compute_information_content(words: Iterable[str], *, smoothing: float = 1.0) -> dict[str, dict[int, float]]:
    """WordNet information-content counts from a word stream, as ``nltk``'s
    ``wn.ic(corpus, weight_senses_equally=False, smoothing)`` computes them: every
    noun and verb synset starts at ``smoothing``; each word's count is split over its
    synsets and added to each synset and all its hypernyms; offset 0 holds the root
    total."""
    from collections import Counter

    from nltk.corpus import wordnet as wn

    resources.prepare_wordnet()

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

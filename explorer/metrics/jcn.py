"""WordNet Jiang-Conrath similarity as a synonym test for the POS-decomposed PER.

Jiang & Conrath (1997): ``sim(c1, c2) = 1 / (IC(c1) + IC(c2) - 2 IC(lcs(c1, c2)))``
with information content ``IC(c) = -log p(c)`` estimated from the Brown corpus (NLTK's
``wn.ic(brown)``). Finch, Hwang & Sumita (2005, §2.2) match otherwise unmatched nouns
and verbs when their Jiang-Conrath similarity passes a threshold; the paper does not
print its threshold, so :data:`THRESHOLD` is ours: 0.5 keeps pairs such as
kill/murder (1.28), drop/fall (1.34) and words sharing a synset (buy/purchase), and
refuses loose relatives such as car/truck (0.57 passes, dog/cat at 0.44 does not) and the
frequent-verb pairs that Brown information content makes look close (say/be 0.31,
have/be 0.32). Stopwords are never matched as synonyms. Two words are compared through
the most similar pair of their senses in the given word class.

Computing the information content takes about 25 s, so it is pickled under
:func:`explorer.metrics.nist.cache_dir` on first use.
"""

from __future__ import annotations

import pickle
from functools import lru_cache

#: Similarity from which two words count as synonyms (identical senses give 1e300).
THRESHOLD = 0.5

_IC_CACHE = "wordnet_ic_brown_v1.pickle"


@lru_cache(maxsize=1)
def information_content() -> dict[str, dict[int, float]] | None:
    """Brown information content for WordNet (NLTK's: part of speech -> synset offset ->
    count, offset 0 the total), or None without WordNet or Brown."""
    from explorer import resources
    from explorer.metrics.nist import cache_dir

    if not (resources.is_available("wordnet") and resources.is_available("brown")):
        return None
    path = cache_dir() / _IC_CACHE
    if path.is_file():
        try:
            with path.open("rb") as src:
                return pickle.load(src)  # type: ignore[no-any-return]
        except (OSError, pickle.UnpicklingError, EOFError):
            pass
    from nltk.corpus import brown
    from nltk.corpus import wordnet as wn

    resources.prepare_wordnet()

    ic: dict[str, dict[int, float]] = wn.ic(brown, False, 0.0)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as out:
            pickle.dump(ic, out)
    except OSError:
        pass
    return ic


@lru_cache(maxsize=200_000)
def jcn_similarity(word_a: str, word_b: str, word_class: str) -> float:
    """The best Jiang-Conrath similarity between senses of two words of one word class
    (``"n"`` or ``"v"``); 0 when either word has no sense or WordNet is missing."""
    if word_a == word_b:
        return float("inf")
    from explorer.preprocess import stopwords

    if word_a in stopwords() or word_b in stopwords():
        return 0.0
    ic = information_content()
    if ic is None or word_class not in ("n", "v"):
        return 0.0
    from nltk.corpus import wordnet as wn

    from explorer import resources

    resources.prepare_wordnet()
    best = 0.0
    for sa in wn.synsets(word_a, pos=word_class):
        for sb in wn.synsets(word_b, pos=word_class):
            try:
                best = max(best, float(sa.jcn_similarity(sb, ic)))
            except Exception:  # noqa: BLE001 -- NLTK raises assorted errors on IC gaps
                continue
    return best


def jcn_synonym(word_a: str, word_b: str, word_class: str) -> bool:
    """Whether two words pass :data:`THRESHOLD`."""
    return jcn_similarity(word_a, word_b, word_class) >= THRESHOLD

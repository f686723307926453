"""Finding, reporting and downloading the NLTK resources the explorer uses.

On a user's machine the resources come from ``nltk.download``; set ``NLTK_DATA`` to
use a local copy. Every method still runs when a resource is missing, in the degraded
way listed in :data:`RESOURCES`, and the CLI and UI say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Resource:
    """An NLTK resource: its download id, where ``nltk.data.find`` looks, and what
    degrades without it."""

    nltk_id: str
    locations: tuple[str, ...]
    used_for: str
    without_it: str


RESOURCES: tuple[Resource, ...] = (
    Resource(
        "averaged_perceptron_tagger_eng",
        ("taggers/averaged_perceptron_tagger_eng/",),
        "POS tags (lemmatisation, POS-decomposed PER, MANLI features)",
        "every token is tagged NN; lemmas and POS features lose precision",
    ),
    Resource(
        "wordnet",
        ("corpora/wordnet", "corpora/wordnet.zip"),
        "lemmas and lexical similarity (synonyms, hypernyms)",
        "lemmas fall back to lower-cased tokens; no WordNet similarity",
    ),
    Resource(
        "stopwords",
        ("corpora/stopwords", "corpora/stopwords.zip"),
        "stopword flags (ITG stoplist variant, MANLI features)",
        "a small built-in list of English function words is used instead",
    ),
    Resource(
        "brown",
        ("corpora/brown", "corpora/brown.zip"),
        "word information content and idf (NIST, Jiang-Conrath, bag-of-words aligner)",
        "information weights fall back to uniform values; the Lin (IC) lexical similarity is off",
    ),
    Resource(
        "rte",
        ("corpora/rte", "corpora/rte.zip"),
        "the PASCAL RTE1-3 datasets offered on the Dataset page",
        "only the built-in sample and uploaded files can be browsed",
    ),
    Resource(
        "mwa_ppdb",
        ("misc/mwa_ppdb", "misc/mwa_ppdb.zip"),
        "PPDB lexical paraphrases for lexical similarity",
        "no paraphrase-table similarity",
    ),
)


@cache
def is_available(nltk_id: str) -> bool:
    """Whether NLTK can find the resource with this download id."""
    import nltk

    resource = next((r for r in RESOURCES if r.nltk_id == nltk_id), None)
    if resource is None:
        raise KeyError(f"unknown resource {nltk_id!r}")
    for location in resource.locations:
        try:
            nltk.data.find(location)
            return True
        except LookupError:
            continue
    return False


def missing() -> list[Resource]:
    """The resources NLTK cannot find, in :data:`RESOURCES` order."""
    return [r for r in RESOURCES if not is_available(r.nltk_id)]


def describe() -> list[dict[str, str]]:
    """One row per resource: id, status, what it is used for, what degrades without it."""
    return [
        {
            "resource": r.nltk_id,
            "status": "found" if is_available(r.nltk_id) else "missing",
            "used for": r.used_for,
            "without it": r.without_it,
        }
        for r in RESOURCES
    ]


def download(ids: list[str] | None = None, *, quiet: bool = False) -> dict[str, bool]:
    """Download resources with ``nltk.download`` (all missing ones by default).

    Returns:
        For each id, whether it is available afterwards.
    """
    import nltk

    wanted = ids if ids is not None else [r.nltk_id for r in missing()]
    results = {}
    for nltk_id in wanted:
        nltk.download(nltk_id, quiet=quiet, raise_on_error=False)
        is_available.cache_clear()
        results[nltk_id] = is_available(nltk_id)
    return results

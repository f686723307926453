"""Which lexical components are on (:class:`LexicalConfig`), what each needs, and the
scores each resource gives."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from explorer import resources

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
    "embedding",
)
#: Components off unless asked for (``LexicalConfig(embedding=True)``, :meth:`LexicalConfig.enable`):
#: each method keeps one on only where it transferred across sets (docs/RESULTS.md).
OPT_IN: tuple[str, ...] = ("embedding",)

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
# Static embeddings (explorer.lexical.embedding): a cosine below the floor is no evidence
# (on the MSR RTE2 dev and Edinburgh++ train gold, content-word pairs of different lemmas
# that are gold links make up 24-32% of those with cosine >= 0.3 and 40-44% of those with
# cosine >= 0.5, and no more above it); above it the cosine is scaled so it never outranks
# a WordNet synonym.
EMBEDDING_FLOOR = 0.5
EMBEDDING_SCALE = 0.85

#: Cache entry name for the Brown information content (WordNet 3.0, smoothing 1).
IC_CACHE_NAME = "ic-brown-wordnet-smooth1.json"


@dataclass(frozen=True)
class LexicalConfig:
    """Which components take part: every one by default except those in :data:`OPT_IN`."""

    levenshtein: bool = True
    wordnet_synonyms: bool = True
    hypernyms: bool = True
    derivation: bool = True
    ic_measure: bool = True
    antonyms: bool = True
    ppdb: bool = True
    names: bool = True
    numbers: bool = True
    embedding: bool = False

    @classmethod
    def without(cls, *names: str) -> LexicalConfig:
        """The default components except ``names`` (opt-in components stay off).

        Raises:
            ValueError: for a name that is not one of :data:`COMPONENTS`.
        """
        _check_names(names)
        return cls(**{name: name not in names and name not in OPT_IN for name in COMPONENTS})

    @classmethod
    def only(cls, *names: str) -> LexicalConfig:
        """Only ``names`` on (identity still scores 1)."""
        _check_names(names)
        return cls(**{name: name in names for name in COMPONENTS})

    def disable(self, *names: str) -> LexicalConfig:
        """This configuration with ``names`` also off."""
        _check_names(names)
        return dataclasses.replace(self, **{name: False for name in names})

    def enable(self, *names: str) -> LexicalConfig:
        """This configuration with ``names`` also on."""
        _check_names(names)
        return dataclasses.replace(self, **{name: True for name in names})

    @property
    def enabled(self) -> tuple[str, ...]:
        return tuple(name for name in COMPONENTS if getattr(self, name))


def _check_names(names: Iterable[str]) -> None:
    unknown = [n for n in names if n not in COMPONENTS]
    if unknown:
        raise ValueError(f"unknown lexical component(s) {unknown}; choose from: {', '.join(COMPONENTS)}")


def unavailable_components() -> dict[str, str]:
    """Components whose resource is missing (an NLTK resource, or the embedding table's
    package), with what is missing."""
    out: dict[str, str] = {}
    for component, needed in NEEDS.items():
        missing = [r for r in needed if not resources.is_available(r)]
        if missing:
            out[component] = ", ".join(missing)
    from explorer.lexical.embedding import PACKAGE, is_available

    if not is_available():
        out["embedding"] = PACKAGE
    return out

"""The scorer registry: one plain dict read by the CLI and the UI alike.

A scorer turns an analysed pair into a frozen result whose ``value`` is a float where
higher means "more likely entailed / more similar"; the rest of the result is the
breakdown the UI draws. A row here describes a method whole: how to build it, what it
needs, its cost model and CPU estimate, what its first run loads, the breakdown a batch
stores and the Teach method that steps through it. Adding a method is one module and one row here
(docs/ARCHITECTURE.md, "How to add").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import cast

from explorer.api import Registry, Scorer, ScorerInfo, UnknownNameError, caps, lazy

# What each family needs (declared, so the UI and CLI can filter instead of failing).
_TAGGED = caps("tagger", "wordnet", interactive=False)
_BROWN = caps("brown")
_SLOW = caps(interactive=False)
_LEXICAL_EMBEDDINGS = caps("tagger", "wordnet", "ppdb", "embeddings", interactive=False)
_TRAINED = caps("tagger", "wordnet", "ppdb", "model", interactive=False)


#: Breakdown columns of a batch (scalars only; n-gram positions, alignments and trees stay
#: on the Pair page).
_BLEU_FIELDS = ("p1", "p2", "p3", "p4", "brevity_penalty", "hypothesis_length", "text_length")
_BOTH_WAYS = ("hypothesis_candidate", "text_candidate")
_ITG_FIELDS = ("cost", "null_cost", "inversions")
# CPU seconds (per pair, per text x hypothesis token pair) for the worker pool's long
# lane, fitted on an RTE2 pair of 35 x 32 words and a 1,999 x 50-token pair
# (``bench/bench_pool.py --only costs``); the n-gram metrics keep the default.
_ITG_SECONDS = (0.02, 9e-7)


def _bleu(variant: str) -> Callable[[], Scorer]:
    return lazy("explorer.metrics.bleu:BleuScorer", variant=variant)


def _itg(variant: str) -> Callable[[], Scorer]:
    return lazy("explorer.aligners.itg:ItgScorer", variant)


def _edit_distance(kind: str) -> Callable[[], Scorer]:
    return lazy("explorer.edit_distance.scoring:EditDistanceScorer", kind)


_ENTRIES: list[ScorerInfo] = [
    ScorerInfo("bleu", "BLEU", "Papineni BLEU-4: geometric mean, brevity penalty", _bleu("bleu"),
               cost="bleu", breakdown=_BLEU_FIELDS, teach="bleu"),
    ScorerInfo("mbleu", "Modified BLEU", "Szymanski: linear mean, no brevity penalty", _bleu("mbleu"),
               cost="bleu", breakdown=_BLEU_FIELDS, teach="bleu"),
    ScorerInfo("bleu_pa", "BLEU (Pérez & Alfonseca)", "linear mean with brevity penalty", _bleu("bleu_pa"),
               cost="bleu", breakdown=_BLEU_FIELDS, teach="bleu"),
    ScorerInfo("wer", "1 - WER", "Finch et al.: 1 - word error rate, both directions averaged", lazy("explorer.metrics.wer:WerScorer"),
               cost="wer", seconds=(2e-4, 6.4e-7), breakdown=("rate", "distance", "text_length", "hypothesis_length"), teach="wer"),
    ScorerInfo("per", "1 - PER", "Finch et al.: 1 - position-independent error rate, both directions", lazy("explorer.metrics.per:PerScorer"),
               cost="per", breakdown=("rate", "unmatched", "text_length", "hypothesis_length")),
    ScorerInfo("pos_per", "POS-decomposed PER", "Finch et al.: share of matched words, split by POS tag", lazy("explorer.metrics.per:PosPerScorer"), capabilities=_TAGGED,
               cost="pos_per", seconds=(0.01, 1e-6)),
    *(ScorerInfo(f"bleu{n}", f"BLEU-{n} (no BP)", f"Finch et al.: geometric mean of orders 1-{n}, no brevity penalty, both directions", lazy("explorer.metrics.bleu:BleuNScorer", n=n),
                 cost="bleu", breakdown=_BOTH_WAYS) for n in range(1, 5)),
    *(ScorerInfo(f"nist{n}", f"NIST-{n}", f"Finch et al.: NIST up to order {n}, Brown information weights, both directions", lazy("explorer.metrics.nist:NistScorer", max_n=n), capabilities=_BROWN,
                 cost="nist", breakdown=_BOTH_WAYS) for n in range(1, 6)),
    ScorerInfo("bow", "Bag-of-words alignment", "idf-weighted log similarity (Levenshtein or static embeddings) of each hypothesis word's best text match, per hypothesis word", lazy("explorer.aligners.bow:BowScorer"), capabilities=caps("brown", "wordnet", "embeddings"),
               cost="bow", seconds=(0.01, 5.3e-6)),
    ScorerInfo("itg", "Bracketing ITG", "Wu 2005: best biparse, unit costs, exact matches", _itg("itg"), capabilities=_SLOW,
               cost="itg", seconds=_ITG_SECONDS, loads="numba chart kernel", breakdown=_ITG_FIELDS, teach="itg"),
    ScorerInfo("itg_stop", "Bracketing ITG (stoplist)", "ITG with stopwords and punctuation left out of the lexical rules", _itg("itg_stop"), capabilities=_SLOW,
               cost="itg", seconds=_ITG_SECONDS, breakdown=_ITG_FIELDS, teach="itg"),
    ScorerInfo("itg_entail", "Bracketing ITG (cheap text nulls)", "ITG where unaligned text words cost 0.1", _itg("itg_entail"), capabilities=_SLOW,
               cost="itg", seconds=_ITG_SECONDS, breakdown=_ITG_FIELDS, teach="itg"),
    ScorerInfo("itg_lex", "Bracketing ITG (lexical similarity)", "ITG whose links use the shared WordNet/PPDB similarity and static embeddings", _itg("itg_lex"), capabilities=_LEXICAL_EMBEDDINGS,
               cost="itg", seconds=(0.067, 2e-5), loads="lexical similarity", breakdown=_ITG_FIELDS, teach="itg"),
    ScorerInfo("manli", "MANLI entailment score", "MANLI alignment (MacCartney et al. 2008): share of hypothesis content words aligned + 0.1 x hypothesis-side score per hypothesis token", lazy("explorer.aligners.manli:ManliScorer"), capabilities=_TRAINED, model="manli_rte2dev.json",
               cost="manli", seconds=(2e-4, 1.25e-4), loads="model and numba search kernels", breakdown=("total", "n_tokens"), teach="manli"),
    ScorerInfo("pfsm", "Probabilistic edit distance (pFSM)", "Wang & Cer 2012: log-sum over edit sequences, regressed on STS 2012 + SICK scores; the hypothesis is read in the text's order", _edit_distance("pfsm"), capabilities=_TRAINED, model="pfsm_sts_sick.json",
               cost="pfsm", seconds=(0.066, 2.2e-5), loads="model and numba lattice kernels", teach="edit"),
    # The combined classifier runs the scorers its shipped model's features need
    # (explorer.combined.scorers_run): its cost model and CPU estimate are theirs.
    ScorerInfo("combined", "Combined classifier", "logistic regression over bag-of-words, NIST-3, BLEU-1, hypothesis names MANLI leaves unaligned and the static-embedding cosine (features chosen by cross-set transfer), trained on RTE1-3 dev: probability of entailment", lazy("explorer.combined:CombinedScorer"), capabilities=_TRAINED, model="combined_rte.json", cutoff=0.5,
               runs=("manli", "bow", "nist3", "bleu1", "embed"), loads="model"),
    ScorerInfo("ppda", "Probabilistic edit distance with jumps (pPDA)", "Wang & Cer 2012: pFSM plus forward/backward jumps of up to 5 tokens, regressed on STS 2012 + SICK; the hypothesis is read in the text's order", _edit_distance("ppda"), capabilities=_TRAINED, model="ppda_sts_sick.json",
               cost="ppda", seconds=(0.05, 2.7e-5), loads="model", teach="edit"),
    ScorerInfo("embed", "Static embeddings (cosine)", "cosine of the two sentences' mean static token vectors (WordLlama's shipped table): how alike they are, not whether one follows", lazy("explorer.aligners.embed:EmbedScorer"), capabilities=caps("embeddings"),
               cost="embed", teach="embed"),
]


def _running_others(rows: list[ScorerInfo]) -> list[ScorerInfo]:
    """The rows, a scorer that runs others (``runs``) with their CPU estimates added up
    (it runs them one after another on the pair) and their needs added to its own (a
    resource one of them lacks is the combined scorer's missing resource too)."""
    by_name = {row.name: row for row in rows}

    def running(row: ScorerInfo) -> ScorerInfo:
        parts = [by_name[n] for n in row.runs]
        needs = row.capabilities.needs.union(*(p.capabilities.needs for p in parts))
        return replace(row, seconds=(math.fsum(p.seconds[0] for p in parts), math.fsum(p.seconds[1] for p in parts)),
                       capabilities=replace(row.capabilities, needs=needs))

    return [running(row) if row.runs else row for row in rows]


class UnknownScorerError(UnknownNameError):
    """A scorer name the registry does not have."""


SCORERS: Registry[ScorerInfo] = Registry("scorer", _running_others(_ENTRIES), error=UnknownScorerError)


def get_scorer(name: str) -> Scorer:
    """The scorer registered under ``name`` (built once).

    Raises:
        UnknownScorerError: naming the known scorers.
    """
    return cast(Scorer, SCORERS.build(name))


def parse_scorer_names(spec: str) -> list[str]:
    """Split ``"bleu,mbleu"`` (or ``"all"``) and check every name."""
    names = list(SCORERS) if spec.strip() == "all" else [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise UnknownScorerError("no scorer named; give e.g. --scorer mbleu,bleu")
    for name in names:
        SCORERS.info(name)
    return names


__all__ = ["SCORERS", "UnknownScorerError", "get_scorer", "parse_scorer_names"]

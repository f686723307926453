"""The aligner registry: one plain dict read by the CLI (``align-eval``) and the UI.

An aligner turns an analysed pair into a frozen result carrying an
:class:`explorer.alignment.Alignment` (``alignment``) and the number compared to a
cutoff (``value``), plus whatever breakdown the UI draws. The contracts live in
:mod:`explorer.api`. A row names how to build it, what it needs and its cost model;
adding an aligner is one module and one row.
"""

from __future__ import annotations

from typing import cast

from explorer.api import Aligner, AlignerInfo, Registry, UnknownNameError, caps, lazy

_LEXICAL_EMBEDDINGS = caps("tagger", "wordnet", "ppdb", "embeddings", interactive=False)
_TRAINED = caps("tagger", "wordnet", "ppdb", "model", interactive=False)


class UnknownAlignerError(UnknownNameError):
    """An aligner name the registry does not have."""


ALIGNERS: Registry[AlignerInfo] = Registry("aligner", [
    AlignerInfo("bow", "Bag of words", "each hypothesis word to its most similar text word (Levenshtein on lemmas, or static embeddings)", lazy("explorer.aligners.bow:BowAligner"), caps("brown", "wordnet", "embeddings"), cost="bow"),
    AlignerInfo("itg", "Bracketing ITG", "links of the best Bracketing ITG biparse (exact matches)", lazy("explorer.aligners.itg:ItgAligner", "itg"), caps(interactive=False), cost="itg"),
    AlignerInfo("itg_lex", "Bracketing ITG (lexical similarity)", "ITG links using the shared WordNet/PPDB similarity and static embeddings", lazy("explorer.aligners.itg:ItgAligner", "itg_lex"), _LEXICAL_EMBEDDINGS, cost="itg"),
    AlignerInfo("manli", "MANLI", "phrase-based NLI aligner (MacCartney et al. 2008), simulated annealing, trained weights", lazy("explorer.aligners.manli:ManliAligner"), _TRAINED, "manli_rte2dev.json", cost="manli"),
    AlignerInfo("embed", "Static embeddings (SimAlign-style)", "mutual argmax over the cosines of static word vectors (WordLlama's shipped table), links of cosine >= 0.6 (SimAlign's argmax; settings chosen on the MSR gold)", lazy("explorer.aligners.embed:EmbedAligner"), caps("embeddings"), cost="embed"),
    AlignerInfo("pfsm", "pFSM edit sequence", "Viterbi edit sequence of the probabilistic edit-distance FSM (Wang & Cer 2012)", lazy("explorer.edit_distance.scoring:EditDistanceScorer", "pfsm"), _TRAINED, "pfsm_sts_sick.json", cost="pfsm"),
    AlignerInfo("ppda", "pPDA edit sequence", "Viterbi edit sequence of the pPDA, with jumps (Wang & Cer 2012)", lazy("explorer.edit_distance.scoring:EditDistanceScorer", "ppda"), _TRAINED, "ppda_sts_sick.json", cost="ppda"),
], error=UnknownAlignerError)


def get_aligner(name: str) -> Aligner:
    """The aligner registered under ``name`` (built once).

    Raises:
        UnknownAlignerError: naming the known aligners.
    """
    return cast(Aligner, ALIGNERS.build(name))


__all__ = ["ALIGNERS", "UnknownAlignerError", "get_aligner"]

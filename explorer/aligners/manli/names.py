"""MANLI's feature names, in weight-vector order, and the constants that name columns.

A model's weights file maps these names to numbers (:class:`explorer.aligners.manli.model.ManliModel`);
:data:`INDEX` gives each name's column in a feature row.
"""

from __future__ import annotations

ALIGNED_FEATURES: tuple[str, ...] = (
    "sub:bias",
    "sub:eq",
    "sub:sim_max",
    "sub:sim_cover_h",
    "sub:sim_cover_p",
    "sub:sim_exact",
    "sub:sim_zero",
    "sub:antonym",
    "sub:p_extra",
    "sub:h_extra",
    "sub:size_diff",
    "sub:multi",
    "sub:p_nonconstituent",
    "sub:h_nonconstituent",
    "sub:p_stop",
    "sub:h_stop",
    "sub:stop_both",
    "sub:pos_match",
    "sub:best_for_h",
    "sub:best_for_p",
    "sub:eq_content",
    "sub:sim_partial",
    "sub:punct_both",
    "sub:proper_both",
    "sub:lex_identity",
    "sub:lex_levenshtein",
    "sub:lex_numbers",
    "sub:lex_names",
    "sub:lex_ppdb",
    "sub:lex_wordnet_synonyms",
    "sub:lex_hypernyms",
    "sub:lex_derivation",
    "sub:lex_ic_measure",
    "sub:lex_embedding",
    # contextual
    "sub:distortion",
    "sub:left_match",
    "sub:right_match",
    "sub:both_match",
    "sub:stop_distortion",
    "sub:stop_left_match",
    "sub:stop_right_match",
    "sub:anchor_left",
    "sub:anchor_right",
    "sub:anchor_both",
    "sub:stop_anchor",
    # support features: function words, `be`, numbers and context (see _support_features)
    "sub:stop_unsupported",
    "sub:be_mixed",
    "sub:be_unsupported",
    "sub:num_mismatch",
    "sub:num_one_side",
    "sub:context2",
    "sub:rival",
    "sub:rival_unsupported",
    "sub:weak_excess",
    # numbers in other formats read as one value
    "sub:num_value_eq",
    "sub:num_value_clash",
)
DEL_FEATURES: tuple[str, ...] = ("del:bias", "del:stop", "del:punct", "del:best_sim", "del:excess")
INS_FEATURES: tuple[str, ...] = ("ins:bias", "ins:stop", "ins:punct", "ins:best_sim", "ins:excess")
#: Every feature's name, in weight-vector order.
FEATURES: tuple[str, ...] = ALIGNED_FEATURES + DEL_FEATURES + INS_FEATURES
INDEX: dict[str, int] = {name: i for i, name in enumerate(FEATURES)}
CONTEXTUAL: tuple[str, ...] = (
    "sub:distortion", "sub:left_match", "sub:right_match", "sub:both_match",
    "sub:stop_distortion", "sub:stop_left_match", "sub:stop_right_match",
    "sub:anchor_left", "sub:anchor_right", "sub:anchor_both", "sub:stop_anchor",
    "sub:stop_unsupported", "sub:be_unsupported", "sub:context2", "sub:rival", "sub:rival_unsupported",
)
#: Anchors: content-word pairs at least this similar. An edit with an anchor just
#: before (after) it on both sides, at consistent offsets, sits in a matching context.
ANCHOR_SIM = 0.9
ANCHOR_WINDOW = 3
N_FEATURES = len(FEATURES)
#: Rows of the feature matrix scored at a time (:meth:`PairFeatures.aligned_scores`).
SCORE_CHUNK = 65_536
DEL0 = len(ALIGNED_FEATURES)
INS0 = DEL0 + len(DEL_FEATURES)

#: Lexical components whose scores become features of their own (block maximum).
LEXICAL_COMPONENTS: tuple[str, ...] = (
    "identity", "levenshtein", "numbers", "names", "ppdb",
    "wordnet_synonyms", "hypernyms", "derivation", "ic_measure", "embedding",
)
#: A string resemblance below this is not evidence of a match (``the`` / ``he``).
LEVENSHTEIN_FLOOR = 0.5

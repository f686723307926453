"""The probabilistic finite-state edit machine, pFSM (Wang & Cer 2012, §2).

States are edit operations: Insert, Delete and the substitution classes S_word,
S_lemma, S_punc, S_para (PPDB), S_syn (lexical similarity), S_other, plus bigram
blocks; a sequence's score adds transition weights between consecutive classes and
log-linear word features (:mod:`explorer.edit_distance.features`). The automaton has
a single mode; the control state only remembers the previous operation's class.
"""

from __future__ import annotations

from explorer.edit_distance.automaton import Automaton, build_automaton
from explorer.edit_distance.scoring import EditDistanceScorer


def automaton() -> Automaton:
    """The pFSM's control states (previous-class memory only, no jumps)."""
    return build_automaton("pfsm", 0)


def scorer() -> EditDistanceScorer:
    """The ``pfsm`` scorer with the shipped STS 2012 model."""
    return EditDistanceScorer("pfsm")

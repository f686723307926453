"""The probabilistic pushdown edit machine, pPDA (Wang & Cer 2012, §3).

The pFSM plus long-distance jumps in the text: the machine may jump forward up to
``max_jump`` tokens (default 5), remembering where it left; right after the jump only
substitutions are allowed; after at least one substitution it may jump back to the
remembered position; right after that backward jump no deletion is allowed until a
substitution has been made; and when it reaches the point where it had landed it
continues from where it jumped back. A word swap such as ``A B`` / ``B A`` thus costs
two substitutions and two jumps instead of a deletion and an insertion.

Readings we had to choose (the paper's description is short):

* the stack holds one excursion at a time (no nested jumps);
* the backward jump obeys the same distance limit: the whole excursion (skipped tokens
  plus tokens consumed after landing) spans at most ``max_jump`` text tokens, so the
  smallest useful limit is 2 (two adjacent words swapped);
* the return to the remembered end is automatic and has no weight of its own;
* jumps move in the text only; the hypothesis is read left to right;
* inside an excursion the previous-operation memory is the single class JUMP, which
  keeps the lattice at 37 control states for ``max_jump = 5``.

See :func:`explorer.edit_distance.automaton.build_automaton` for the state table.
"""

from __future__ import annotations

from explorer.edit_distance.automaton import Automaton, build_automaton
from explorer.edit_distance.scoring import EditDistanceScorer

DEFAULT_MAX_JUMP = 5


def automaton(max_jump: int = DEFAULT_MAX_JUMP) -> Automaton:
    """The pPDA's control states for jumps of up to ``max_jump`` text tokens."""
    if max_jump < 2:
        raise ValueError("the pPDA needs a maximum jump distance of at least 2 (a swap of two words)")
    return build_automaton("ppda", max_jump)


def scorer() -> EditDistanceScorer:
    """The ``ppda`` scorer with the shipped STS 2012 model."""
    return EditDistanceScorer("ppda")

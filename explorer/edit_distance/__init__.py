"""Probabilistic edit distance for sentence similarity (Wang & Cer, SemEval-2012).

* :mod:`~explorer.edit_distance.states` — control states of both machines
  (:func:`~explorer.edit_distance.states.build_automaton`: ``"pfsm"`` has one mode,
  ``"ppda"`` adds jump modes);
* :mod:`~explorer.edit_distance.automaton` — the numba forward / backward / Viterbi
  kernels over them (linear, and log-space twins for long pairs);
* :mod:`~explorer.edit_distance.features` — operation features of a pair;
* :mod:`~explorer.edit_distance.model` — the log-linear model, its regression
  objective, L-BFGS training and JSON files;
* :mod:`~explorer.edit_distance.scoring` — the ``pfsm`` / ``ppda`` scorers and aligners;
* :mod:`~explorer.edit_distance.training` — ``python -m explorer train pfsm|ppda``.

The pFSM (§2): states are edit operations (Insert, Delete, the substitution classes
S_word, S_lemma, S_punc, S_para (PPDB), S_syn (lexical similarity), S_other, and bigram
blocks); a sequence's score adds transition weights between consecutive classes and
log-linear word features. Its control state only remembers the previous class.

The pPDA (§3) is the pFSM plus long-distance jumps in the text: the machine may jump
forward up to ``max_jump`` tokens (default 5), remembering where it left; right after the
jump only substitutions are allowed; after at least one substitution it may jump back to
the remembered position; right after that backward jump no deletion is allowed until a
substitution has been made; and when it reaches the point where it had landed it
continues from where it jumped back. A word swap such as ``A B`` / ``B A`` thus costs two
substitutions and two jumps instead of a deletion and an insertion.

Readings we had to choose (the paper's description is short):

* the stack holds one excursion at a time (no nested jumps);
* the backward jump obeys the same distance limit: the whole excursion (skipped tokens
  plus tokens consumed after landing) spans at most ``max_jump`` text tokens, so the
  smallest useful limit is 2 (two adjacent words swapped);
* the return to the remembered end is automatic and has no weight of its own;
* jumps move in the text only; the hypothesis is read left to right;
* inside an excursion the previous-operation memory is the single class JUMP, which
  keeps the lattice at 37 control states for ``max_jump = 5``.
"""

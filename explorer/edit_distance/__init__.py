"""Probabilistic edit distance for sentence similarity (Wang & Cer, SemEval-2012).

* :mod:`~explorer.edit_distance.automaton` — control states and numba forward /
  backward / Viterbi kernels shared by both machines;
* :mod:`~explorer.edit_distance.pfsm` and :mod:`~explorer.edit_distance.ppda` — the
  finite-state machine and the pushdown machine with jumps;
* :mod:`~explorer.edit_distance.features` — operation features of a pair;
* :mod:`~explorer.edit_distance.model` — the log-linear model, its regression
  objective, L-BFGS training and JSON files;
* :mod:`~explorer.edit_distance.scoring` — the ``pfsm`` / ``ppda`` scorers and aligners;
* :mod:`~explorer.edit_distance.training` — ``python -m explorer train pfsm|ppda``.
"""

"""The one home of "which cutoff does a scorer use here", and how well it decides.

A thresholded scorer judges a pair entailed when ``score > cutoff``. Every caller (the Pair
page, the Evaluate page, ``evaluate``, a batch result) gets a scorer's cutoff from
:func:`explorer.decision.resolve.resolve_cutoff`, by one precedence (given > the model's
own > a development set by the default rule > the data's own > the shipped default).

* :mod:`~explorer.decision.measures`: accuracy, the cutoff sweep, CWS, average precision,
  correlations, the classification and graded reports;
* :mod:`~explorer.decision.rules`: the cutoff rules (``DEFAULT_RULE``, ``OWN_RULE``), the
  transfer table, bootstraps;
* :mod:`~explorer.decision.resolve`: the precedence, :class:`~explorer.decision.resolve.Scored`;
* :mod:`~explorer.decision.cutoffs`: the record (``CutoffChoice``), cutoffs of whole data
  sets cached on disk, the shipped defaults;
* :mod:`~explorer.decision.pair_scores`: every labelled pair's score, kept beside them;
* :mod:`~explorer.decision.evaluation`: a dataset scored and evaluated (``evaluate``).

The app's background job that fills the cutoff cache lives with the server's machinery
(``runtime.cutoff_jobs``), outside the library.

Nothing is imported here: importing a submodule stays as cheap as the submodule.
"""

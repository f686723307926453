"""Groups of pairs: what kind of pair a method gets wrong, whether that is real, and what a
rewrite of the pairs would change.

- :mod:`~explorer.groups.words`: the closed word classes the detectors and rewrites share
  (negations, quantifiers, modals).
- :mod:`~explorer.groups.phenomena`: PHENOMENA, the registry of pair-level detectors (a name,
  one line on what it finds, a bool or number per pair); a dataset's table, cached on disk.
- :mod:`~explorer.groups.detectors`: the detectors themselves, over :class:`PairFacts` (a pair
  analysed once, each aligner run at most once).
- :mod:`~explorer.groups.frame`: one row per pair with its phenomena, scores, verdicts (by the
  one resolver), gold label, task and tags: what a slice filters.
- :mod:`~explorer.groups.language`: the slice language (a whitelist parser; never ``eval``).
- :mod:`~explorer.groups.stats`: accuracy of a slice with its 95% interval, against the whole set.
- :mod:`~explorer.groups.rewrites`: REWRITES, the registry of what-if rewrite rules, and
  rewrite_run (originals and rewrites decided with one cutoff per scorer);
- :mod:`~explorer.groups.edits`: the word edits the rules make, placed in a side's string.
"""

"""The experiments that chose what ships: each script measures settings across data sets
(train on one file, test on another) and prints the tables of docs/RESULTS.md and
docs/experiments.md. Shared helpers: :mod:`experiments.common`. Speed benchmarks are under
``bench/``."""

"""Whole-corpus batch scoring on Dask, kept as Parquet, browsed with DuckDB.

* :mod:`explorer.batch.schema`: the folder layout and the Parquet columns;
* :mod:`explorer.batch.worker`: scoring one chunk on a worker;
* :mod:`explorer.batch.runner`: the chunked, resumable Dask run;
* :mod:`explorer.batch.query`: filter / sort / page, curves, samples and per-task
  figures over a finished (or partial) result, without loading it;
* :mod:`explorer.batch.register`: a result's scores as runs in the store;
* :mod:`explorer.cli.batch`: ``python -m explorer batch``.

The package imports nothing: import what you need from its modules.
"""

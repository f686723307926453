"""The warm "zygote": imported once by the worker pool's fork server, before any worker.

:class:`explorer.pool.Pool` names this module in ``set_forkserver_preload``, so the fork
server (a process multiprocessing starts on the first worker) imports it once: importing
it runs every warm-up step (:func:`explorer.warmup.default_steps`: the tagger, WordNet,
the Brown tables, PPDB, the trained models, the numba kernels), writing progress after
each step to :func:`explorer.warmup.status_path` of the server (the fork server's parent),
which the server's pages show. Every worker is then a fork of this warm process: it starts
in milliseconds with everything loaded, and the lexicons' memory is shared copy-on-write
between the workers instead of held once per worker.

A fork shares open files with its siblings, offsets included, and WordNet's reader keeps
its data files open and seeks in them; each worker therefore drops the inherited handles
as it is forked (:func:`own_files`) and opens its own on first use.

The fork server ignores only ``ImportError`` from a preload module; this one never
raises: a failing step is recorded in the status (its method reports the error when used).
"""

from __future__ import annotations

import os

from explorer import warmup


def own_files() -> None:
    """In a freshly forked worker: forget the file handles WordNet's reader inherited, so
    two workers never seek in one shared file description."""
    import sys

    corpus = sys.modules.get("nltk.corpus")
    reader = getattr(corpus, "wordnet", None) if corpus is not None else None
    files = getattr(reader, "_data_file_map", None)  # present once WordNet has loaded
    if isinstance(files, dict):
        files.clear()
        for name in ("_key_count_file", "_key_synset_file"):
            if getattr(reader, name, None) is not None:
                setattr(reader, name, None)


def _warm() -> None:
    path = warmup.status_path(os.getppid())
    try:
        warmup.Warmup(warmup.default_steps, on_change=lambda status: warmup.write_status(path, status)).run()
    except Exception:  # noqa: BLE001 - the fork server must start even if the warm-up cannot
        pass


os.register_at_fork(after_in_child=own_files)
_warm()

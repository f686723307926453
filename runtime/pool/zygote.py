"""The warm "zygote": imported once by the worker pool's fork server, before any worker.

:class:`runtime.pool.Pool` names this module in ``set_forkserver_preload``, so the fork
server (a process multiprocessing starts on the first worker) imports it once: importing
it runs every warm-up step (:func:`runtime.warmup.default_steps`: the tagger, WordNet,
the Brown tables, PPDB, the trained models, the numba kernels), writing progress after
each step to :func:`runtime.warmup.status_path` of the server (the fork server's parent),
which the server's pages show. Every worker is then a fork of this warm process: it starts
in milliseconds with everything loaded, and the lexicons' memory is shared copy-on-write
between the workers instead of held once per worker.

A fork shares open files with its siblings, offsets included, and WordNet's reader keeps
its data files open and seeks in them; each worker therefore drops the inherited handles
as it is forked (:func:`runtime.pool.worker.own_files`) and opens its own on first use.

A worker never runs the server's main script: multiprocessing prepares each process it
starts by importing the parent's ``__main__`` again, which under Streamlit is the app's own
page script (run without a browser session, it fails and the worker dies at birth). Workers
only run module-level functions they import by name, so in this process, whose forks the
workers are, that step is switched off (:func:`_keep_main`).

The fork server ignores only ``ImportError`` from a preload module; this one never
raises: a failing step is recorded in the status (its method reports the error when used).
"""

from __future__ import annotations

import gc
import os

from runtime import warmup
from runtime.pool.worker import own_files


def _keep_main() -> None:
    """Workers forked from here keep this process's ``__main__`` (see the module docstring)."""
    from multiprocessing import spawn

    spawn._fixup_main_from_path = lambda main_path: None  # type: ignore[attr-defined]
    spawn._fixup_main_from_name = lambda mod_name: None  # type: ignore[attr-defined]


def _warm() -> None:
    """Every warm-up step, with the garbage collector off (the warm-up builds millions of
    long-lived objects: collecting while it runs only costs time); then those objects are
    frozen out of the collector's reach (``gc.freeze``), so a worker's collections never
    touch, and so never copy, the pages it shares with this process."""
    path = warmup.status_path(os.getppid())
    gc.disable()
    def steps() -> list[warmup.Step]:
        from runtime.disk_caches import cache_step
        from runtime.pool import usable_cores

        first = cache_step(usable_cores())  # a first start: caches built in parallel
        return [*([first] if first else []), *warmup.default_steps()]

    try:
        warmup.Warmup(steps, on_change=lambda status: warmup.write_status(path, status)).run()
    except Exception:  # noqa: BLE001 - the fork server must start even if the warm-up cannot
        pass
    finally:
        gc.freeze()
        gc.enable()


_keep_main()
os.register_at_fork(after_in_child=own_files)
_warm()

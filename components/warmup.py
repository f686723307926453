"""The server's warm-up on the page: started by the first visit, shown as a progress bar with
a count and the step's name while it runs, waited for before a page scores anything
(:mod:`runtime.warmup`).

With the worker pool (:mod:`components.workers`, the default) the methods warm up in the
pool's fork server, once, and every worker is a fork of it; this process only warms what it
draws with (the tokenizer, the figure library), at the same time on another core, and the
bar shows the fork server's steps. With ``EXPLORER_WORKERS=0`` every method warms up here,
on a thread. The app adds one step the library cannot: the figure library's first figure.

Not every method needs the warm-up: the scorers that load nothing (the BLEU family, WER,
PER: n-gram counts over the tokens, :func:`scorers_before_warm`) are scored in this process
meanwhile, so the Pair page shows their verdicts at once and the others' when it is done."""

from __future__ import annotations

import time

import streamlit as st

from components import workers
from components.text import plain
from explorer.preprocess import tokenize
from explorer.scorers import SCORERS
from runtime import run_slots, warmup

#: A page goes on without a warm-up that takes longer than this (seconds); each method
#: then pays its own first use.
MAX_WAIT = 300.0
#: The container around the progress bar (CSS class ``st-key-warmup_status``).
KEY = "warmup_status"


def _figures() -> object:
    # Plotly builds its trace and layout classes on first use (a few hundred ms).
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=2)
    figure.add_trace(go.Heatmap(z=[[0, 1]]), row=1, col=1)
    figure.add_trace(go.Scatter(x=[0], y=[0]), row=1, col=2)
    figure.add_trace(go.Box(y=[0, 1]), row=1, col=2)
    figure.add_trace(go.Bar(x=[0], y=[1]), row=1, col=1)
    return figure.to_json()


def steps() -> list[warmup.Step]:
    """This process's steps: every method's without a pool, else only what pages draw with."""
    if workers.current() is None:
        return [*warmup.default_steps(), warmup.Step("figure library", _figures)]
    return [warmup.Step("NLTK and the tokenizer (this process)", lambda: tokenize(warmup.TEXT)),
            warmup.Step("figure library", _figures)]


def start_warmup() -> warmup.Warmup:
    """Start the warm-up (once per server; later calls return the same one), and the
    worker pool with it (a bad pool setting is reported when a page scores)."""
    workers.start_early()
    return warmup.start(steps)


def _progress() -> tuple[bool, warmup.WarmupStatus]:
    """Whether everything is warm, and the status to show: the workers' while they are
    not ready (their steps are the long ones), then this process's."""
    local = start_warmup().status()
    pool = workers.current()
    if pool is None:
        return local.finished, local
    # With workers, the page needs them, not this process's own steps (the figure library
    # is for the figures, which come in the next run anyway).
    remote = workers.warm_status()
    return pool.ready > 0, remote if remote is not None and remote.total else local


def is_warm() -> bool:
    """Start the warm-up (once per server); whether the methods are warm (never waits)."""
    return _progress()[0]


def scorers_before_warm() -> list[str]:
    """The scorers a page may run in this process before the warm-up is done: interactive
    ones that need no resource and load nothing (pure counts over the tokens, well under a
    millisecond each; see their capabilities in :mod:`explorer.methods`)."""
    return [n for n in SCORERS.names(interactive=True) if not SCORERS[n].capabilities.needs and not SCORERS[n].loads]


def wait_for_warmup() -> None:
    """Start the warm-up (once per server) and, until it has finished, show its progress
    and wait; then the page goes on. Costs nothing once the server is warm."""
    ready, status = _progress()
    if ready:
        return
    slot = st.empty()
    bar = slot.container(key=KEY).empty()
    waited = 0.0
    while not ready and waited <= MAX_WAIT:
        doing = f": {plain(status.current)}" if status.current else ""
        bar.progress(status.share, text=f"Warming up the methods once for this server ({status.done} of "
                                        f"{status.total or '…'} steps{doing}, {status.seconds:.0f} s). "
                                        "After this, every page answers at once, for everyone.")
        with run_slots.released():  # other pages run while this one waits
            time.sleep(0.2)
        waited += 0.2
        ready, status = _progress()
    slot.empty()


def _finished() -> warmup.WarmupStatus | None:
    """The methods' warm-up once finished (the workers' with a pool), else None."""
    if workers.current() is not None:
        status = workers.warm_status()
        return status if status is not None and status.finished else None
    warm = warmup.current()
    return warm.status() if warm is not None and warm.finished else None


def sidebar_note() -> str | None:
    """One line for the sidebar when warm-up steps failed (None otherwise)."""
    status = _finished()
    if status is None or not status.errors:
        return None
    names = ", ".join(plain(label) for label, _ in status.errors[:3]) + (" …" if len(status.errors) > 3 else "")
    return (f"Warm-up: {len(status.errors)} of {status.total} steps failed ({names}); "
            "those methods say why when used.")


def summary() -> str | None:
    """"Warmed up in 14 s (32 steps)" once finished (None before)."""
    status = _finished()
    if status is None:
        return None
    skipped = (f"; {len(status.skipped)} skipped: they need NLTK data that is missing "
               f"({', '.join(sorted({nltk_id for _, nltk_id in status.skipped}))})") if status.skipped else ""
    return f"Methods warmed up at start-up in {status.seconds:.1f} s ({status.total} steps{skipped})."

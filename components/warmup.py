"""The server's warm-up on the page: started by the first visit, shown as a progress bar with
a count while it runs, waited for before a page scores anything (:mod:`explorer.warmup`).
The app adds one step the library cannot: the figure library's first figure."""

from __future__ import annotations

import streamlit as st

from components.text import plain
from explorer import warmup

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
    return [*warmup.default_steps(), warmup.Step("figure library", _figures)]


def start_warmup() -> warmup.Warmup:
    """Start the warm-up (once per server; later calls return the same one)."""
    return warmup.start(steps)


def wait_for_warmup() -> None:
    """Start the warm-up (once per server) and, until it has finished, show its progress
    and wait; then the page goes on. Costs nothing once the server is warm."""
    warm = start_warmup()
    if warm.finished:
        return
    slot = st.empty()
    bar = slot.container(key=KEY).empty()
    waited = 0.0
    while not warm.wait(0.2):
        waited += 0.2
        status = warm.status()
        doing = f": {plain(status.current)}" if status.current else ""
        bar.progress(status.share, text=f"Warming up the methods once for this server ({status.done} of "
                                        f"{status.total or '…'} steps{doing}, {status.seconds:.0f} s). "
                                        "After this, every page answers at once, for everyone.")
        if waited > MAX_WAIT:
            break
    slot.empty()


def sidebar_note() -> str | None:
    """One line for the sidebar when warm-up steps failed (None otherwise)."""
    warm = warmup.current()
    if warm is None or not warm.finished:
        return None
    status = warm.status()
    if not status.errors:
        return None
    names = ", ".join(plain(label) for label, _ in status.errors[:3]) + (" …" if len(status.errors) > 3 else "")
    return (f"Warm-up: {len(status.errors)} of {status.total} steps failed ({names}); "
            "those methods say why when used.")


def summary() -> str | None:
    """"Warmed up in 14 s (32 steps)" once finished (None before)."""
    warm = warmup.current()
    if warm is None or not warm.finished:
        return None
    status = warm.status()
    return f"Methods warmed up at start-up in {status.seconds:.1f} s ({status.total} steps)."

"""The app's handle on the persistent store: one :class:`~explorer.store.Store` per
store file shared by every session, the current dataset's record in it, the annotating
user's name, and recorded runs of the registered scorers.

Everything that can fail (a read-only folder, a locked file past the retries) raises
:class:`~explorer.store.StoreError`; pages turn it into a message.
"""

from __future__ import annotations

import getpass
import os

import streamlit as st

from components import state
from components.data import LoadedDataset, dataset_best_cutoff, dataset_scores
from explorer import __version__
from explorer.scorers import SCORERS
from explorer.store import Store, StoreError, default_path


@st.cache_resource(show_spinner=False)
def _open(path: str) -> Store:
    return Store(path)


def get_store() -> Store:
    """The store at ``$ENTAILMENT_EXPLORER_STORE`` or the user data folder (opened once
    per file and shared by all sessions; the store is thread-safe)."""
    return _open(str(default_path()))


def store_dataset_id(loaded: LoadedDataset) -> int:
    """The current dataset's id in the store, registering it on first use."""
    ids = state.STORE_DATASET_IDS.setdefault(dict)
    path = str(default_path())
    cached = ids.get(loaded.key)
    if cached is not None and cached[0] == path:
        return cached[1]
    dataset_id = get_store().add_dataset(loaded.dataset)
    ids[loaded.key] = (path, dataset_id)
    return dataset_id


def _default_author() -> str:
    try:
        return os.environ.get("ENTAILMENT_EXPLORER_AUTHOR") or getpass.getuser()
    except Exception:  # no login name (some containers)
        return "anonymous"


def author() -> str:
    """Who is annotating (kept for the session; defaults to the login name)."""
    return state.AUTHOR.setdefault(_default_author)


def author_input(container: object = None) -> str:
    """A small text box for the annotator's name; returns the name."""
    target = container if container is not None else st
    state.AUTHOR_WIDGET.setdefault(author)
    name = target.text_input("Annotator", key=state.AUTHOR_WIDGET.key,  # type: ignore[attr-defined]
                             help="Saved with every tag, note and alignment you record.")
    name = str(name).strip()
    if name:
        state.AUTHOR.set(name)
    return author()


def scorer_run(loaded: LoadedDataset, scorer: str) -> int:
    """The stored run of a registered scorer on the current dataset, recorded on first use.

    The cutoff is the best one on the dataset (None without entailment labels); a run of
    another explorer version is not reused.
    """
    if scorer not in SCORERS:
        raise StoreError(f"unknown scorer {scorer!r}")
    store = get_store()
    dataset_id = store_dataset_id(loaded)
    for run in reversed(store.runs(dataset_id, kind="scorer")):
        if run.method == scorer and run.version == __version__ and not run.parameters:
            return run.id
    scores = dataset_scores(loaded, scorer)
    best = dataset_best_cutoff(loaded, scorer)
    return store.add_run(
        dataset_id, kind="scorer", method=scorer,
        scores={p.id: float(s) for p, s in zip(loaded.dataset.pairs, scores, strict=True)},
        cutoff=None if best is None else best[0], version=__version__,
    )

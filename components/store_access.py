"""The app's handle on the persistent store: one :class:`~explorer.store.Store` per
store file shared by every session, the current dataset's record in it, the annotating
user's name, and recorded runs of the registered scorers.

Everything that can fail (a read-only folder, a locked file past the retries) raises
:class:`~explorer.store.StoreError`; pages turn it into a message.
"""

from __future__ import annotations

import os

import streamlit as st

from components import state
from components.cutoffs import page_cutoff
from components.data import UPLOAD_ORIGIN, LoadedDataset, dataset_scores, note_stored_upload
from components.sections.browser_memory import AUTHOR_COOKIE, remember, remembered
from components.text import plain
from explorer import __version__
from explorer.scorers import SCORERS
from explorer.store import MAX_AUTHOR_CHARS, Store, StoreError, default_path


@st.cache_resource(show_spinner=False)
def _open(path: str) -> Store:
    return Store(path)


def get_store() -> Store:
    """The store at ``$ENTAILMENT_EXPLORER_STORE`` or the user data folder (opened once
    per file and shared by all sessions; the store is thread-safe)."""
    return _open(str(default_path()))


def store_dataset_id(loaded: LoadedDataset) -> int:
    """The current dataset's id in the store, registering it on first use."""
    dataset_id = _dataset_id(loaded, register=True)
    assert dataset_id is not None  # registered
    return dataset_id


def known_dataset_id(loaded: LoadedDataset) -> int | None:
    """The current dataset's id in the store when it is there already, else None: nothing
    is registered (a dataset nobody has annotated has no tags to show, and registering an
    upload's 100,000 pairs before its first page was shown took a second)."""
    return _dataset_id(loaded, register=False)


def _dataset_id(loaded: LoadedDataset, *, register: bool) -> int | None:
    ids = state.STORE_DATASET_IDS.setdefault(dict)
    path = str(default_path())
    cached = ids.get(loaded.key)
    if cached is not None and cached[0] == path and (loaded.origin != UPLOAD_ORIGIN or _still_stored(loaded, cached[1])):
        return cached[1]
    store = get_store()
    if register:
        dataset_id: int | None = store.add_dataset(loaded.dataset, _fingerprint(loaded))
    else:
        dataset_id = store.find_dataset(loaded.name, len(loaded.dataset), lambda: _fingerprint(loaded))
    if dataset_id is not None:
        note_stored_upload(loaded, path, dataset_id)  # an upload's pairs leave the store with it, unless annotated
        ids[loaded.key] = (path, dataset_id)
    return dataset_id


#: Uploads' store fingerprints, computed once per process (key and name -> fingerprint).
_FINGERPRINTS: dict[tuple[str, str], str] = {}


def _fingerprint(loaded: LoadedDataset) -> str:
    """The dataset's :func:`~explorer.store.dataset_fingerprint` (a pass over every pair);
    an upload's is kept for the process (its key is its file's content hash)."""
    from explorer.store import dataset_fingerprint

    mark = (loaded.key, loaded.name)
    found = _FINGERPRINTS.get(mark) if loaded.origin == UPLOAD_ORIGIN else None
    if found is None:
        found = dataset_fingerprint(loaded.name, loaded.dataset.pairs)
        if loaded.origin == UPLOAD_ORIGIN:
            if len(_FINGERPRINTS) >= 256:
                _FINGERPRINTS.clear()
            _FINGERPRINTS[mark] = found
    return found


def _still_stored(loaded: LoadedDataset, dataset_id: int) -> bool:
    """Whether an upload's store dataset is still the one this session registered: its
    pairs leave the store when the server drops the upload, and SQLite may then give the
    id to the next dataset stored."""
    try:
        record = get_store().dataset(dataset_id)
    except StoreError:
        return False
    return record.fingerprint == _fingerprint(loaded)


def _default_author() -> str:
    """The name this browser gave before (its cookie, :mod:`components.sections.browser_memory`),
    else ``$ENTAILMENT_EXPLORER_AUTHOR`` for a one-person install, else nobody: on a shared
    server every browser is asked for its own name (the server's login name would put one
    person's name on everyone's annotations)."""
    return remembered(AUTHOR_COOKIE) or os.environ.get("ENTAILMENT_EXPLORER_AUTHOR", "").strip()


def author() -> str:
    """Who is annotating in this browser ("" until they say)."""
    if state.AUTHOR_WIDGET.present():  # the box's value is known from the start of the run, wherever it is drawn
        state.AUTHOR.set(str(state.AUTHOR_WIDGET.get() or "").strip())
    return state.AUTHOR.setdefault(_default_author)


def author_box() -> str:
    """The annotator's name box (in the sidebar); returns the name, which this browser
    remembers for its next tabs and reloads (a cookie; an emptied box forgets it)."""
    state.AUTHOR_WIDGET.setdefault(author)
    st.sidebar.text_input("Annotator", key=state.AUTHOR_WIDGET.key, placeholder="your name", max_chars=MAX_AUTHOR_CHARS,
                          help="Saved with every tag, note and alignment you record; this browser remembers it.")
    name = author()
    if name != remembered(AUTHOR_COOKIE):
        with st.sidebar:
            remember(AUTHOR_COOKIE, name, key="remember_author")
    return name


def author_caption(container: object = None) -> str:
    """Says under which name annotations will be saved (or how to give one); returns it."""
    target = container if container is not None else st
    name = author()
    if name:
        target.caption(f"Saving as **{plain(name)}** (change it in the sidebar).")  # type: ignore[attr-defined]
    else:
        target.caption("Type your name in the sidebar's *Annotator* box to save.")  # type: ignore[attr-defined]
    return name


def scorer_run(loaded: LoadedDataset, scorer: str) -> int:
    """The stored run of a registered scorer on the current dataset, recorded on first use.

    The cutoff recorded is the one every page decides by when the run is recorded
    (:func:`components.cutoffs.page_cutoff`); the Errors page passes the current one to the
    cross-tab and its exports, so a later choice of development set counts there too. A
    run of another explorer version is not reused.
    """
    if scorer not in SCORERS:
        raise StoreError(f"unknown scorer {scorer!r}")
    store = get_store()
    dataset_id = store_dataset_id(loaded)
    for run in reversed(store.runs(dataset_id, kind="scorer")):
        if run.method == scorer and run.version == __version__ and not run.parameters:
            return run.id
    scores = dataset_scores(loaded, scorer)
    return store.add_run(
        dataset_id, kind="scorer", method=scorer,
        scores={p.id: float(s) for p, s in zip(loaded.dataset.pairs, scores, strict=True)},
        cutoff=page_cutoff(loaded, scorer, score=True).value, version=__version__,
    )

"""Session-state helpers shared by the pages: the loaded dataset, the development set,
the pair opened on the Pair page, and the guard that turns a failing page into a message.

Keys live here, in one place, so pages do not invent their own spellings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import streamlit as st

from components.data import LoadedDataset, dataset_ref, default_dataset, load_ref
from components.text import plain
from explorer.datasets import DatasetError
from explorer.pairs import Pair

DATASET = "explorer_dataset"
DEV_DATASET = "explorer_dev_dataset"
PAIR_ID = "explorer_pair_id"
PAIR_PAGE = "components/pages/pair.py"
DATASET_PAGE = "components/pages/dataset.py"
EVALUATE_PAGE = "components/pages/evaluate.py"

log = logging.getLogger(__name__)


#: The query parameter naming the current dataset (:func:`components.data.dataset_ref`).
DATASET_PARAM = "dataset"


def _from_url() -> LoadedDataset | None:
    ref = st.query_params.get(DATASET_PARAM)
    if not ref:
        return None
    try:
        found = load_ref(str(ref))
    except DatasetError:
        found = None
    if found is None:
        st.toast(f"The link names a dataset that is not available here ({plain(ref)}); showing the sample.")
    return found


def _sync_url(loaded: LoadedDataset) -> None:
    """Keep ``?dataset=`` naming the current dataset (page switches drop query params)."""
    ref = dataset_ref(loaded)
    if ref is None:
        st.query_params.pop(DATASET_PARAM, None)
    elif st.query_params.get(DATASET_PARAM) != ref:
        st.query_params[DATASET_PARAM] = ref


def current_dataset() -> LoadedDataset:
    """The dataset the pages work on: the one the URL names on a fresh session (a reload
    or a shared link), else the built-in typical sample until another is loaded."""
    if DATASET not in st.session_state:
        st.session_state[DATASET] = _from_url() or default_dataset()
    loaded: LoadedDataset = st.session_state[DATASET]
    _sync_url(loaded)
    return loaded


def set_dataset(loaded: LoadedDataset) -> None:
    """Make ``loaded`` the current dataset; a pair opened from the old one is forgotten."""
    previous = st.session_state.get(DATASET)
    st.session_state[DATASET] = loaded
    if previous is None or previous.key != loaded.key:
        st.session_state.pop(PAIR_ID, None)
        st.query_params.pop("pair", None)
    _sync_url(loaded)


def dev_dataset() -> LoadedDataset | None:
    """The development set on which cutoffs are chosen, if one is loaded."""
    loaded: LoadedDataset | None = st.session_state.get(DEV_DATASET)
    return loaded


def set_dev_dataset(loaded: LoadedDataset | None) -> None:
    if loaded is None:
        st.session_state.pop(DEV_DATASET, None)
    else:
        st.session_state[DEV_DATASET] = loaded


def find_pair(loaded: LoadedDataset, pair_id: str | None) -> Pair | None:
    if pair_id is None:
        return None
    return next((p for p in loaded.dataset.pairs if p.id == pair_id), None)


def selected_pair_id() -> str | None:
    """The pair to show on the Pair page: from the session, else the ``?pair=`` query
    parameter (so a link can open a pair)."""
    pair_id = st.session_state.get(PAIR_ID)
    if pair_id is None:
        pair_id = st.query_params.get("pair")
    return None if pair_id is None else str(pair_id)


def open_pair(pair_id: str) -> None:
    """Open a pair of the current dataset on the Pair page."""
    st.session_state[PAIR_ID] = pair_id
    params = {"pair": pair_id}
    ref = dataset_ref(st.session_state[DATASET]) if DATASET in st.session_state else None
    if ref is not None:
        params[DATASET_PARAM] = ref
    st.switch_page(PAIR_PAGE, query_params=params)


def select_pair(pair_id: str | None) -> None:
    """Remember the pair shown on the Pair page without switching page."""
    if pair_id is None:
        st.session_state.pop(PAIR_ID, None)
        st.query_params.pop("pair", None)
    else:
        st.session_state[PAIR_ID] = pair_id
        st.query_params["pair"] = pair_id


def guarded(body: Callable[[], None], *, what: str = "this page") -> None:
    """Run a page body; an unexpected error becomes a short message, never a traceback.

    Streamlit's own control flow (``st.stop``, ``st.rerun``, ``st.switch_page``) raises
    ``BaseException`` subclasses and passes through untouched.
    """
    try:
        body()
    except Exception as err:  # the last line of defence: report, log, carry on
        log.exception("error while drawing %s", what)
        st.error(
            f"Something went wrong while drawing {what}: {type(err).__name__}: {err}. "
            "Try other input, or reload the page."
        )

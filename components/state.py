"""Every session-state key of the app, each with its type, in one place.

Pages, panels and sections never spell a key themselves: they read and write state
through the :class:`Slot` objects and functions here (a unit test holds every other
module to that). Three kinds of entries:

- the app's own state (the loaded dataset, the pair shown, caches kept for the session);
- widget values that code also sets or reads outside the widget (the text boxes of the
  Pair page, the chosen ITG node, a chart's selection event);
- entries keyed per instance (an alignment editor per dataset pair, a panel drawn under
  a ``key=`` prefix), built by the functions at the end.

Plain widget keys that only name a widget (``key="dataset_scorer"``) stay at the widget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import streamlit as st

from components import batch_folders
from components.data import (
    MSR_NAME,
    SAMPLE_DIR,
    LoadedDataset,
    dataset_ref,
    default_dataset,
    load_ref,
    msr_available,
    nltk_rte_files,
)
from components.text import plain
from explorer.alignment import Alignment, Link
from explorer.datasets import DatasetError
from explorer.pairs import Pair

T = TypeVar("T")

PAIR_PAGE = "components/pages/pair.py"
DATASET_PAGE = "components/pages/dataset.py"
EVALUATE_PAGE = "components/pages/evaluate.py"
TEACH_PAGE = "components/pages/teach.py"


class Slot(Generic[T]):
    """One session-state entry: its key and the type of what it holds."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"Slot({self.key!r})"

    def present(self) -> bool:
        return self.key in st.session_state

    def get(self) -> T | None:
        return cast("T | None", st.session_state.get(self.key))

    def value(self) -> T:
        """The entry (``KeyError`` when it is not set)."""
        return cast(T, st.session_state[self.key])

    def set(self, value: T) -> None:
        st.session_state[self.key] = value

    def pop(self) -> None:
        st.session_state.pop(self.key, None)

    def setdefault(self, make: Callable[[], T]) -> T:
        """The entry, first set to ``make()`` when absent."""
        if self.key not in st.session_state:
            st.session_state[self.key] = make()
        return cast(T, st.session_state[self.key])


# -- the app's state ---------------------------------------------------------------------------

#: This browser session gave the shared password (components/access.py).
ACCESS_GRANTED: Slot[bool] = Slot("explorer_access_granted")
DATASET: Slot[LoadedDataset] = Slot("explorer_dataset")
DEV_DATASET: Slot[LoadedDataset] = Slot("explorer_dev_dataset")
PAIR_ID: Slot[str] = Slot("explorer_pair_id")
#: The Pair page's text and hypothesis (kept while the text boxes are not drawn).
TYPED_TEXT: Slot[str] = Slot("explorer_typed_text")
TYPED_HYPOTHESIS: Slot[str] = Slot("explorer_typed_hypothesis")
#: (dataset key, pair id) last put into the Pair page's text boxes.
PAIR_SHOWN: Slot[tuple[str, str]] = Slot("explorer_pair_shown")
#: (dataset key, pair mark) whose figures the Pair page has drawn in this session: a new
#: pair's strip is sent in one run and its figures in the next (components/pages/pair.py).
FIGURES_FOR: Slot[tuple[str, str]] = Slot("explorer_figures_for")
#: The Compare page's alignments: (dataset key, aligner) -> pair id -> alignment.
COMPARE_ALIGNMENTS: Slot[dict[tuple[str, str], dict[str, Alignment]]] = Slot("explorer_compare_alignments")
#: The annotator's name for this session.
AUTHOR: Slot[str] = Slot("explorer_author")
#: The store's id of each dataset: dataset key -> (store file, id).
STORE_DATASET_IDS: Slot[dict[str, tuple[str, int]]] = Slot("explorer_store_dataset_ids")
#: Tags shown in each annotation form when it was drawn: form key -> tags.
SEEN_TAGS: Slot[dict[str, list[str]]] = Slot("explorer_seen_tags")
#: Saves per annotation form (a fresh note box after each): form key -> count.
ANNOTATION_SAVES: Slot[dict[str, int]] = Slot("explorer_annotation_saves")

#: The batch result folder this session browses (components/sections/batch_results.py).
BATCH_DIR: Slot[str] = Slot("explorer_batch_dir")
#: The page of batch pairs a pair was opened from, as a small dataset for the Pair page.
BATCH_WINDOW: Slot[LoadedDataset] = Slot("explorer_batch_window")

# -- widgets whose values code sets or reads ----------------------------------------------

TEXT_WIDGET: Slot[str] = Slot("pair_text")
HYPOTHESIS_WIDGET: Slot[str] = Slot("pair_hypothesis")
AUTHOR_WIDGET: Slot[str] = Slot("annotation_author")
DATASET_SOURCE: Slot[str] = Slot("dataset_source")
#: The Dataset page's file pickers of each source (set to follow a dataset opened elsewhere).
DATASET_SAMPLE: Slot[str] = Slot("dataset_sample")
DATASET_RTE: Slot[str] = Slot("dataset_nltk")
DATASET_UPLOAD: Slot[Any] = Slot("dataset_upload")
#: The dataset key the Dataset page's controls were last set to show (they follow a dataset
#: opened elsewhere; using them opens another).
SOURCE_SHOWN: Slot[str] = Slot("explorer_source_shown")
#: Why the file chosen on the Dataset page did not load (shown once by the page).
DATASET_ERROR: Slot[str] = Slot("explorer_dataset_error")
#: A fresh session's ``?dataset=`` this server cannot open: (the ref, why). While set, the
#: URL keeps naming it and every page says so (:func:`link_notice`), until another dataset
#: or a pair is chosen.
LINK_MISSING: Slot[tuple[str, str]] = Slot("explorer_link_missing")
#: The Dataset table's selection event (tests set it to click a row).
DATASET_TABLE: Slot[Any] = Slot("dataset_table")
#: The slice the Groups page opened on the Dataset page: (dataset key, slice name, pair ids).
DATASET_SLICE: Slot[tuple[str, str, tuple[str, ...]]] = Slot("explorer_dataset_slice")
EVALUATE_DEV: Slot[str] = Slot("evaluate_dev")
#: The lesson the Teach page last sent to the browser (its id: method, option, pair); when
#: another is sent, it starts at its first step. The step itself lives in the browser.
TEACH_SHOWN: Slot[str] = Slot("teach_shown")
#: The step the Teach page's lesson was first sent with (kept while the lesson is the same).
TEACH_START: Slot[int] = Slot("teach_start")
#: The lessons the Teach page's deck holds, in order (each a ``DeckItem``: pair, method,
#: option, where the pair comes from), for one downloaded file.
TEACH_DECK: Slot[list[Any]] = Slot("teach_deck")
#: The batch result table's selection event (tests set it to click a row).
BATCH_TABLE: Slot[Any] = Slot("batch_table")
#: What every figure's camera icon saves, "png" or "svg" (the sidebar's choice, components/charts.py).
FIGURE_FORMAT: Slot[str] = Slot("figure_format")


def pair_pick(dataset_key: str) -> Slot[str]:
    """The Pair page's pair picker for one dataset."""
    return Slot(f"pair_pick_{dataset_key}")


def pair_number(dataset_key: str) -> Slot[int]:
    """The Pair page's pair number box, for datasets too large to list (1-based)."""
    return Slot(f"pair_number_{dataset_key}")


def annotation_tags(form_key: str) -> Slot[list[str]]:
    return Slot(f"annotation_tags_{form_key}")


def annotation_note(form_key: str, saves: int) -> Slot[str]:
    return Slot(f"annotation_note_{form_key}_{saves}")


def itg_node(key: str, variant: str) -> Slot[int]:
    """The ITG panel's chosen node (an index into the tree's internal nodes)."""
    return Slot(f"{key}_node_{variant}")


def chart_event(key: str) -> Slot[Any]:
    """The selection event of the chart drawn with ``key=key``."""
    return Slot(key)


def manli_decoded(dataset_key: str, pair_id: str) -> Slot[float]:
    """MANLI's per-token score for its own alignment of one pair (decoded once)."""
    return Slot(f"manli_decoded_{dataset_key}_{pair_id}")


@dataclass(frozen=True)
class EditorState:
    """An alignment editor's working copy: where it started and the links so far.
    ``version`` names the grid chart, so a click is applied once."""

    start: str
    begin: Alignment
    links: frozenset[Link]
    possible: frozenset[Link]
    version: int = 0


def alignment_editor(key: str) -> Slot[EditorState]:
    return Slot(f"{key}_state")


# -- the dataset and the pair ------------------------------------------------------------------
#
# One working dataset: whatever was opened last (a file, an upload, the MSR gold alignments,
# a batch result) is every page's until another is chosen, and the URL names it
# (``?dataset=``), so a reload or a copied link reopens it. A batch result is browsed from
# its folder (:data:`BATCH_DIR`); the pages that need pairs in memory get a page of it
# (:data:`BATCH_WINDOW`, built by :func:`components.sections.batch_results.ensure_window`).

#: The query parameter naming the current dataset (:func:`working_ref`).
DATASET_PARAM = "dataset"
#: The query parameter naming the pair shown.
PAIR_PARAM = "pair"


#: Why an ``upload:`` link opens nothing: uploads are freed with their session and bounded per server.
UPLOAD_GONE = ("an upload this server no longer keeps (uploads are freed with the session that sent them); "
               "upload the file again on the Dataset page")


def _from_url() -> LoadedDataset | None:
    """The dataset a fresh session's URL names (a batch result's folder goes into
    :data:`BATCH_DIR`; the in-memory dataset is then the sample); None when it names none
    or one this server cannot open (then :data:`LINK_MISSING` says which and why, and the
    URL is left naming it)."""
    ref = st.query_params.get(DATASET_PARAM)
    if not ref:
        return None
    ref = str(ref)
    if ref.startswith(batch_folders.PREFIX):
        folder = batch_folders.folder_of(ref)
        if folder is None:
            LINK_MISSING.set((ref, "a batch result not opened on this server"))
        else:
            BATCH_DIR.set(folder)
        return None
    try:
        found = load_ref(ref)
    except DatasetError as err:
        LINK_MISSING.set((ref, f"it could not be opened: {err}"))
        return None
    if found is None:
        kind = ref.partition(":")[0]
        LINK_MISSING.set((ref, UPLOAD_GONE if kind == "upload" else "not available here"))
    return found


def available_here() -> list[str]:
    """How the URL names each dataset file this server can open (samples, NLTK's RTE files,
    the MSR gold alignments), for a link naming one it cannot."""
    samples = sorted(p.name for p in SAMPLE_DIR.iterdir() if p.is_file() and p.name != "README.md")
    found = [f"sample:{n}" for n in samples] + [f"rte:{n}" for n in nltk_rte_files()]
    return found + ([f"msr:{MSR_NAME}"] if msr_available() else [])


def link_notice() -> str | None:
    """What a page says while the URL names a dataset this server cannot open: the ref, why,
    what the pages show meanwhile and what this server has (None when the link opened)."""
    missing = LINK_MISSING.get()
    if missing is None:
        return None
    ref, why = missing
    loaded = DATASET.get()
    shown = plain(loaded.name) if loaded is not None else "the sample"
    # In a code span Markdown is inert; only a backtick could end it.
    return (f"This link names the dataset `{ref.replace('`', '')}`: {plain(why)}. The link is left as it was; meanwhile "
            f"the pages show the sample {shown}. This server has: "
            + ", ".join(f"`{r}`" for r in available_here()) + " (open one on the Dataset page).")


def link_missing() -> bool:
    """Whether the URL names a dataset this server could not open (:func:`link_notice`)."""
    current_dataset()  # a fresh session's URL may name one
    return LINK_MISSING.present()


def working_ref() -> str | None:
    """How the URL names the working dataset (None for data that cannot be reopened)."""
    directory = BATCH_DIR.get()
    if directory:
        return batch_folders.ref_of(directory)
    loaded = DATASET.get()
    return None if loaded is None else dataset_ref(loaded)


def sync_url() -> None:
    """Keep ``?dataset=`` naming the working dataset (a page switch drops query params); while
    a link names a dataset this server cannot open, keep naming that one."""
    missing = LINK_MISSING.get()
    ref = working_ref() if missing is None else missing[0]
    if ref is None:
        st.query_params.pop(DATASET_PARAM, None)
    elif st.query_params.get(DATASET_PARAM) != ref:
        st.query_params[DATASET_PARAM] = ref


def current_dataset() -> LoadedDataset:
    """The dataset the pages work on: the one the URL names on a fresh session (a reload
    or a shared link), else the built-in typical sample until another is opened; while a
    batch result is open, the page of it the Pair page shows."""
    loaded = DATASET.setdefault(lambda: _from_url() or default_dataset())
    window = BATCH_WINDOW.get() if BATCH_DIR.get() else None
    sync_url()
    return window or loaded


def batch_open() -> bool:
    """Whether a batch result is the working dataset."""
    current_dataset()  # a fresh session's URL may name one
    return bool(BATCH_DIR.get())


def _forget_pair() -> None:
    PAIR_ID.pop()
    st.query_params.pop(PAIR_PARAM, None)


def set_dataset(loaded: LoadedDataset) -> None:
    """Make ``loaded`` the working dataset (closing an open batch result); a pair opened
    from the old one is forgotten."""
    previous = DATASET.get()
    changed = previous is None or previous.key != loaded.key or bool(BATCH_DIR.get()) or LINK_MISSING.present()
    LINK_MISSING.pop()
    BATCH_DIR.pop()
    BATCH_WINDOW.pop()
    DATASET.set(loaded)
    if changed:
        _forget_pair()
    sync_url()


def set_batch(directory: str | None) -> None:
    """Make the batch result in ``directory`` the working dataset (None: close it, and the
    dataset opened before it is the working one again)."""
    if directory == BATCH_DIR.get() and not LINK_MISSING.present():
        return
    LINK_MISSING.pop()
    BATCH_WINDOW.pop()
    if directory:
        batch_folders.remember(directory)
        BATCH_DIR.set(directory)
    else:
        BATCH_DIR.pop()
    _forget_pair()
    sync_url()


def dev_dataset() -> LoadedDataset | None:
    """The development set on which cutoffs are chosen, if one is loaded."""
    return DEV_DATASET.get()


def set_dev_dataset(loaded: LoadedDataset | None) -> None:
    if loaded is None:
        DEV_DATASET.pop()
    else:
        DEV_DATASET.set(loaded)


def find_pair(loaded: LoadedDataset, pair_id: str | None) -> Pair | None:
    if pair_id is None:
        return None
    return next((p for p in loaded.dataset.pairs if p.id == pair_id), None)


def selected_pair_id() -> str | None:
    """The pair to show on the Pair page: from the session, else the ``?pair=`` query
    parameter (so a link can open a pair)."""
    pair_id = PAIR_ID.get()
    if pair_id is None:
        pair_id = st.query_params.get(PAIR_PARAM)
    return None if pair_id is None else str(pair_id)


def open_pair(pair_id: str) -> None:
    """Open a pair of the working dataset on the Pair page."""
    LINK_MISSING.pop()  # a pair chosen from the dataset shown: the link is given up
    PAIR_ID.set(pair_id)
    params = {PAIR_PARAM: pair_id}
    ref = working_ref()
    if ref is not None:
        params[DATASET_PARAM] = ref
    st.switch_page(PAIR_PAGE, query_params=params)


def select_pair(pair_id: str | None) -> None:
    """Remember the pair shown on the Pair page without switching page."""
    if pair_id is None:
        _forget_pair()
    else:
        LINK_MISSING.pop()  # a pair chosen from the dataset shown: the link is given up
        PAIR_ID.set(pair_id)
        sync_url()
        st.query_params[PAIR_PARAM] = pair_id

"""The cutoff every page decides by: one pair, one verdict.

:func:`page_cutoff` gives :func:`explorer.decision.resolve.resolve_cutoff` the session's
development set (:func:`session_dev`, chosen on the Evaluate page) and the data's own cutoff,
so the Pair, Dataset, Evaluate, Compare, Errors and Groups pages, the batch views and the
store's exports decide a pair alike. Apart from :mod:`components.data` because it reads the
session (:mod:`components.state`), which itself builds on the data module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from components.data import KNOWN_CUTOFFS, LoadedDataset, dataset_scores, fingerprint_of, labelled_scores
from components.state import dev_dataset
from explorer.decision.cutoffs import CutoffChoice
from explorer.decision.resolve import Scored, resolve_cutoff

if TYPE_CHECKING:
    from explorer.batch.query import BatchResult


def session_dev(loaded_key: str | None = None) -> LoadedDataset | None:
    """The development set every page decides with: the one chosen on the Evaluate page,
    kept in the session (:func:`components.state.dev_dataset`); None when none is chosen
    or it is the data being judged (a set is never its own development set)."""
    dev = dev_dataset()
    return None if dev is None or dev.key == loaded_key else dev


def page_cutoff(
    loaded: LoadedDataset | BatchResult, scorer: str, *, typed: bool = False, score: bool = False,
) -> CutoffChoice:
    """The cutoff every page decides ``scorer`` by, for the data it shows:
    :func:`explorer.decision.resolve.resolve_cutoff` given the session's development set
    (:func:`session_dev`) and the data's own cutoff, so a pair's verdict is the same on the
    Pair, Dataset, Evaluate, Compare and Errors pages and in the store's exports.

    The development set counts when this process has its scores; ``score=True`` (a page
    that scores the whole dataset anyway) scores it first, so it always counts there, and
    the Pair page, which never waits, uses it as soon as any page has. The dataset's own
    cutoff is a batch result's (``loaded`` a :class:`~explorer.batch.query.BatchResult`, or a
    page of one), the one cached on disk (:mod:`explorer.decision.cutoffs`) or the best on
    its scores in this process. A typed pair is not from the dataset, so the dataset's own
    cutoff does not apply to it.
    """
    from explorer.batch.query import BatchResult
    from explorer.decision import cutoffs

    dev = session_dev(None if isinstance(loaded, BatchResult) else loaded.key)
    if dev is not None and score:
        dataset_scores(dev, scorer)
    on_dev = None if dev is None else labelled_scores(dev, scorer)
    if isinstance(loaded, BatchResult):
        return loaded.cutoff(scorer, dev=on_dev)
    own: Scored | CutoffChoice | None = None
    if not typed:
        own = KNOWN_CUTOFFS.get(loaded.key, {}).get(scorer)
        fp = fingerprint_of(loaded) if own is None else None
        if fp is not None:
            if score:
                dataset_scores(loaded, scorer)
            own = cutoffs.lookup(fp, scorer, cutoffs.DATASET) or labelled_scores(loaded, scorer)
    return resolve_cutoff(scorer, dev=on_dev, own=own)

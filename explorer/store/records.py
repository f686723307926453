"""The store's records: frozen rows as the :class:`~explorer.store.Store` returns them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from explorer.alignment import Alignment

if TYPE_CHECKING:
    from explorer.pairs import Pair


@dataclass(frozen=True)
class DatasetRecord:
    id: int
    name: str
    format: str
    fingerprint: str
    n_pairs: int
    created_at: str


@dataclass(frozen=True)
class RunRecord:
    """A stored run of one scorer or aligner over one dataset.

    ``cutoff`` is the decision threshold (entailed when ``score > cutoff``) used to call
    each pair correct or incorrect; None when the run makes no decisions.
    """

    id: int
    dataset_id: int
    kind: str
    method: str
    parameters: dict[str, object]
    version: str
    cutoff: float | None
    created_at: str

    @property
    def label(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in sorted(self.parameters.items()))
        extra = f" ({params})" if params else ""
        return f"#{self.id} {self.method}{extra} · {self.created_at[:16].replace('T', ' ')}"


@dataclass(frozen=True)
class Note:
    id: int
    pair_id: str
    body: str
    author: str
    created_at: str


@dataclass(frozen=True)
class TagInfo:
    name: str
    description: str
    position: int


@dataclass(frozen=True)
class GoldAlignmentRecord:
    """A corrected alignment, with the tokens it was drawn over when they were given."""

    id: int
    pair_id: str
    alignment: Alignment
    author: str
    created_at: str
    text_tokens: tuple[str, ...] | None = None
    hypothesis_tokens: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CounterfactualRecord:
    """A stored pair rewritten by a what-if rule (:mod:`explorer.store.counterfactuals`).

    ``pair_id`` is the rewritten pair's own id (``12~antonym``), ``original_id`` the
    stored pair it was made from; ``label`` the gold the rule settles (None when it
    settles none); ``task`` the original's; ``note`` what the rule changed.
    """

    id: int
    pair_id: str
    original_id: str
    rule: str
    text: str
    hypothesis: str
    label: str | None
    task: str | None
    note: str
    created_at: str

    def pair(self) -> Pair:
        """The counterfactual as a pair the Pair page opens."""
        from explorer.pairs import Pair

        return Pair(self.pair_id, self.text, self.hypothesis, label=self.label, task=self.task,
                    source=f"counterfactual ({self.rule})", note=self.note or None)


class StoredPair(Protocol):
    """What the store reads of a pair: a loaded :class:`~explorer.pairs.Pair`, or a row of
    a batch result read back from its chunks."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def hypothesis(self) -> str: ...
    @property
    def label(self) -> str | None: ...
    @property
    def task(self) -> str | None: ...


class StoredPairs(Protocol):
    """A dataset's pairs as the store reads them: counted, and iterated (more than once)."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[StoredPair]: ...


class StoredDataset(Protocol):
    """What the store reads of a dataset: a loaded :class:`~explorer.datasets.Dataset`, or
    a batch result's pairs (iterated, not held)."""

    @property
    def name(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def pairs(self) -> StoredPairs: ...


def dataset_fingerprint(name: str, pairs: Iterable[StoredPair]) -> str:
    """A content hash of a dataset's pairs (ids, texts, labels, tasks).

    The same file loaded again maps to the same stored dataset, so its annotations come
    back; an edited file is a different dataset.
    """
    digest = hashlib.sha256(name.encode())
    for pair in pairs:
        for part in (pair.id, pair.text, pair.hypothesis, pair.label or "", pair.task or ""):
            digest.update(b"\x1f")
            digest.update(part.encode())
        digest.update(b"\x1e")
    return digest.hexdigest()

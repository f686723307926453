"""A finished batch as runs in the store, so the Errors and Compare pages use it.

The dataset is stored like any other (same fingerprint: the same file loaded in the
app finds the same record and its annotations); each scorer becomes one run with the
stored values (null for refused pairs) and the cutoff
:func:`explorer.decision.resolve.resolve_cutoff` gives the result (a trained classifier's
own, else the best on its labelled pairs, else the shipped default), the one its pages
decide by. Runs carry no parameters, so the app reuses them instead of scoring the
dataset again. The run ids are written back into the batch manifest.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from explorer.batch.folder import storage_error
from explorer.batch.query import BatchResult
from explorer.batch.schema import BatchError, Manifest, finished_chunks, read_manifest, write_manifest
from explorer.datasets import Dataset

if TYPE_CHECKING:
    from explorer.store import Store


class _Row(NamedTuple):
    id: str
    text: str
    hypothesis: str
    label: str | None
    task: str | None


@dataclass(frozen=True)
class _StoredPairs:
    """A result's pairs read back from its chunks, a record batch at a time, on every
    iteration: what :meth:`explorer.store.Store.add_dataset` reads of a dataset, without
    holding the corpus."""

    directory: Path
    n: int

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[_Row]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        chunks = finished_chunks(self.directory)
        for index in sorted(chunks):
            try:
                batches = pq.ParquetFile(chunks[index]).iter_batches(
                    batch_size=4096, columns=["id", "text", "hypothesis", "label", "task"])
                while (batch := next(batches, None)) is not None:
                    columns = [batch.column(k).to_pylist() for k in range(5)]
                    yield from (_Row(*row) for row in zip(*columns, strict=True))
            except (OSError, pa.ArrowException) as err:  # a chunk damaged since it was checked
                raise storage_error(self.directory, err) from None


@dataclass(frozen=True)
class _StoredDataset:
    name: str
    format: str
    pairs: _StoredPairs


def _stored_dataset(directory: Path, manifest: Manifest) -> _StoredDataset:
    return _StoredDataset(manifest.dataset, manifest.format, _StoredPairs(directory, manifest.n_pairs))


def register(directory: str | Path, data: Dataset | None, store: Store) -> dict[str, int]:
    """Store the data and one run per scorer of the finished batch in ``directory``;
    scorer -> run id. The pairs are read back from the result (``data`` is only checked
    against it), so registering does not hold the corpus either.

    Raises:
        BatchError: when the batch is unfinished or was run on other data.
    """
    from explorer.store import dataset_fingerprint

    directory = Path(directory)
    manifest = read_manifest(directory)
    if not manifest.complete:
        raise BatchError(f"{directory}: the batch is not finished; resume it before registering")
    if data is not None and manifest.fingerprint != dataset_fingerprint(data.name, data.pairs) \
            and not manifest.fingerprint.startswith("file-"):
        raise BatchError(f"{directory} was scored on other data than {data.name}")
    if manifest.runs and manifest.store == str(store.path):
        try:
            if all(store.run(run_id).method == scorer for scorer, run_id in manifest.runs.items()):
                return dict(manifest.runs)  # registered by an earlier run of the same batch
        except Exception:  # a run was deleted since: register again
            pass
    result = BatchResult.open(directory)
    dataset_id = int(store.add_dataset(_stored_dataset(directory, manifest)))
    runs: dict[str, int] = {}
    for scorer in manifest.scorers:
        rows = result.query(f'SELECT id, "{scorer}" FROM {{source}}').fetchall()
        scores = {str(pid): (None if value is None else float(value)) for pid, value in rows}
        runs[scorer] = int(store.add_run(dataset_id, kind="scorer", method=scorer, scores=scores,
                                         cutoff=result.cutoff(scorer).value, version=manifest.explorer_version))
    manifest.runs = runs
    manifest.store = str(store.path)
    manifest.store_dataset_id = dataset_id
    try:
        write_manifest(directory, manifest)
    except OSError:  # a read-only result: the runs are in the store, the folder only forgets their ids
        pass
    return runs

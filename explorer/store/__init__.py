"""The explorer's persistent store: datasets, runs and annotations in one SQLite file.

* :mod:`~explorer.store.schema` — file location, migrations, default tags;
* :mod:`~explorer.store.records` — the frozen rows the store returns;
* :mod:`~explorer.store.alignment_json` — alignments as JSON;
* :mod:`~explorer.store.database` — the SQLite file: connections, transactions, migrations;
* :mod:`~explorer.store.saved_slices` — named slices, checked by the slice language's parser;
* :mod:`~explorer.store.store` — :class:`Store`: datasets, runs and annotations read and written;
* :mod:`~explorer.store.counterfactuals` — pairs rewritten by a what-if rule, kept with their originals;
* :mod:`~explorer.store.crosstab` — the Errors page's counts in SQL;
* :mod:`~explorer.store.exports` — CSV/JSON and alignment exports.

Every public name is importable from ``explorer.store``; see ``docs/STORE.md`` for the schema.
"""

from __future__ import annotations

from explorer.store.alignment_json import alignment_from_dict, alignment_to_dict
from explorer.store.records import (
    CounterfactualRecord,
    DatasetRecord,
    GoldAlignmentRecord,
    Note,
    RunRecord,
    TagInfo,
    dataset_fingerprint,
)
from explorer.store.saved_slices import MAX_SAVED_SLICES, MAX_SLICE_NAME, SavedSlice
from explorer.store.schema import (
    APP_DIR,
    DEFAULT_TAGS,
    ENV_VAR,
    FILE_NAME,
    MAX_AUTHOR_CHARS,
    MAX_MASK_TAG_ID,
    MAX_NOTE_CHARS,
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    default_path,
)
from explorer.store.store import Store

__all__ = [
    "APP_DIR", "DEFAULT_TAGS", "ENV_VAR", "FILE_NAME", "MAX_AUTHOR_CHARS", "MAX_MASK_TAG_ID", "MAX_NOTE_CHARS",
    "MIGRATIONS", "SCHEMA_VERSION",
    "CounterfactualRecord", "DatasetRecord", "GoldAlignmentRecord", "Note", "RunRecord", "Store", "StoreError", "TagInfo",
    "alignment_from_dict", "alignment_to_dict", "dataset_fingerprint", "default_path",
]

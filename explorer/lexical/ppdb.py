"""PPDB lexical paraphrases (the ``mwa_ppdb`` NLTK resource), read once per process.

The table is parsed from the resource's text files once and kept in the user's cache
directory (:mod:`explorer.cache`) under a key of those files' sizes and times; later loads
read it from there (about a third of the time, at every server start)."""

from __future__ import annotations

from functools import lru_cache

from explorer import cache, resources


@lru_cache(maxsize=1)
def load_ppdb() -> dict[str, frozenset[str]]:
    """PPDB 1.0 XXXL lexical synonyms as a symmetric lower-cased word -> words table
    (empty when the ``mwa_ppdb`` resource is missing)."""
    import nltk

    if not resources.is_available("mwa_ppdb"):
        return {}
    table: dict[str, set[str]] = {}
    root = nltk.data.find("misc/mwa_ppdb")
    path = getattr(root, "path", str(root))
    import os

    files = [os.path.join(path, f) for f in sorted(os.listdir(path))] if os.path.isdir(path) else []
    stamp = resources.source_stamp(files) if files else None
    name = f"ppdb-lexical-{stamp}.json" if stamp else None
    stored = cache.load_json(name) if name else None
    if isinstance(stored, dict):
        return {k: frozenset(v) for k, v in stored.items()}
    for file in files:
        with open(file, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 2:
                    continue
                a, b = parts[0].strip().lower(), parts[1].strip().lower()
                if a and b and a != b:
                    table.setdefault(a, set()).add(b)
                    table.setdefault(b, set()).add(a)
    if name:
        cache.save_json(name, {k: sorted(v) for k, v in table.items()})
    return {k: frozenset(v) for k, v in table.items()}

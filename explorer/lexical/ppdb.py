"""PPDB lexical paraphrases (the ``mwa_ppdb`` NLTK resource), read once per process."""

from __future__ import annotations

from functools import lru_cache

from explorer import resources


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
    return {k: frozenset(v) for k, v in table.items()}

"""Shared test fixtures: where the shared data lives, and a skip when it is absent."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_NLTK = SHARED / "nltk_data"

if SHARED_NLTK.is_dir() and "NLTK_DATA" not in os.environ:
    os.environ["NLTK_DATA"] = str(SHARED_NLTK)

# The app's pages open the annotation store: tests (and the servers they start) use a
# throwaway one, never the user's own.
# Cutoffs computed in tests (and their servers) go to a throwaway directory too, so a test
# that computes a dataset's cutoffs cannot change what a later run sees.
if "EXPLORER_CUTOFF_CACHE" not in os.environ:
    os.environ["EXPLORER_CUTOFF_CACHE"] = tempfile.mkdtemp(prefix="explorer-cutoffs-")
if "ENTAILMENT_EXPLORER_STORE" not in os.environ:
    os.environ["ENTAILMENT_EXPLORER_STORE"] = str(
        Path(tempfile.mkdtemp(prefix="explorer-store-")) / "store.sqlite3")


def shared_file(*parts: str) -> Path:
    """A file under ../shared, or a skip naming what is missing."""
    path = SHARED.joinpath(*parts)
    if not path.is_file():
        pytest.skip(f"shared data not present: {path} (place ../shared beside the repository)")
    return path

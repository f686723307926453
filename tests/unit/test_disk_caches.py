"""The warm-up's disk caches: which are built, sharing the missing ones out over helper
processes, and the helpers building them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import resources
from runtime import disk_caches, warmup
from runtime.disk_caches import DiskCache
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
_ALL_CACHES = disk_caches.caches


def _cache(label: str, seconds: float, phase: int = 0, built: bool = False) -> DiskCache:
    return DiskCache(label.split(" (")[0], label, phase, seconds, lambda: built)


def test_every_cache_names_a_warm_up_step() -> None:
    labels = {step.label for step in warmup.default_steps()}
    assert {c.label for c in disk_caches.caches()} <= labels


def test_the_missing_caches_are_shared_out_by_cost() -> None:
    todo = [_cache("ic", 20), _cache("nist", 14), _cache("idf", 4), _cache("wordnet", 2), _cache("ppdb", 2)]
    groups = disk_caches.share(todo, 2)
    assert [[c.label for c in g] for g in groups] == [["ic", "ppdb"], ["nist", "idf", "wordnet"]]
    assert len(disk_caches.share(todo, 8)) == 5  # never more groups than caches
    assert [[c.label for c in g] for g in disk_caches.share(todo, 1)] == [["ic", "nist", "idf", "wordnet", "ppdb"]]


def test_a_first_start_adds_one_step_naming_what_it_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(disk_caches, "caches", lambda: [_cache("Brown tables (x)", 9), _cache("PPDB", 1, built=True),
                                                        _cache("MANLI kernels (y)", 5, phase=1)])
    step = disk_caches.cache_step(2)
    assert step is not None
    assert step.label == ("first start on this machine: building 2 disk caches in 2 processes "
                          "(Brown tables, MANLI kernels)")
    monkeypatch.setattr(disk_caches, "caches", lambda: [_cache("PPDB", 1, built=True)])
    assert disk_caches.cache_step(2) is None  # every cache built: no step


@pytest.mark.slow
def test_helpers_build_the_missing_caches_in_parallel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for needed in ("wordnet", "mwa_ppdb"):
        if not resources.is_available(needed):
            pytest.skip(f"the NLTK resource {needed!r} is not installed")
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    wanted = {"WordNet index and lemmatizer", "PPDB paraphrase table"}
    chosen = [c for c in disk_caches.caches() if c.label in wanted]
    monkeypatch.setattr(disk_caches, "caches", lambda: chosen)
    assert {c.label for c in disk_caches.missing()} == wanted
    disk_caches.build_missing(2)
    assert disk_caches.missing() == []
    assert list(tmp_path.glob("wordnet-index-*.json")) and list(tmp_path.glob("ppdb-lexical-*.json"))


def _setup_build(env: dict[str, str], only: str) -> subprocess.CompletedProcess[str]:
    """``python -m runtime.disk_caches --build --only ONLY``, as ``make setup`` runs it."""
    return subprocess.run([sys.executable, "-m", "runtime.disk_caches", "--build", "--only", only],
                          cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=DEADLINE, check=False)


def test_the_setup_build_without_nltk_data_says_one_line_and_succeeds(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    env = {"NLTK_DATA": str(tmp_path / "no-data"), "HOME": str(tmp_path), "EXPLORER_CACHE_DIR": str(tmp_path / "c")}
    done = _setup_build(env, "Brown idf,PPDB")
    assert done.returncode == 0
    assert done.stdout.strip().splitlines() == [
        "disk caches: nothing to build without NLTK data 'brown' (Brown idf); 'mwa_ppdb' (PPDB): "
        "`make resources` fetches it."]
    assert "Traceback" not in done.stderr
    # A wrong name is the caller's error (in this process: the names are checked before any work).
    assert disk_caches.cli(["--build", "--only", "Brown idf,Nope"]) == 2
    assert capsys.readouterr().err.startswith("error: no disk cache named Nope (known: ")


@pytest.mark.slow
def test_the_setup_build_makes_the_caches_a_first_start_reads(tmp_path: Path) -> None:
    for needed in ("wordnet", "mwa_ppdb"):
        if not resources.is_available(needed):
            pytest.skip(f"the NLTK resource {needed!r} is not installed")
    env = {"EXPLORER_CACHE_DIR": str(tmp_path)}
    done = _setup_build(env, "WordNet index,PPDB")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("disk caches: built 2 (WordNet index, PPDB) in ")
    files = sorted(tmp_path.glob("wordnet-index-*.json")) + sorted(tmp_path.glob("ppdb-lexical-*.json"))
    assert len(files) == 2
    stamps = [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files]
    # A first start adds no build step for them ...
    chosen = {"WordNet index", "PPDB"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
        patch.setattr(disk_caches, "caches", lambda: [c for c in _ALL_CACHES() if c.name in chosen])
        assert disk_caches.cache_step(2) is None
    # ... and its warm-up steps (in a fresh process, as the fork server runs them) read the
    # files: a recomputed table would be written anew (another file renamed into place).
    labels = [c.label for c in _ALL_CACHES() if c.name in chosen]
    warm = subprocess.run([sys.executable, "-m", "runtime.disk_caches", *labels], cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=DEADLINE, check=False)
    assert warm.returncode == 0, warm.stderr
    assert [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files] == stamps
    assert _setup_build(env, "WordNet index,PPDB").stdout.strip() == "disk caches: 2 on disk already."

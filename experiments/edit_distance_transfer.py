"""Across-file transfer of the pFSM / pPDA.

Trains on some similarity files and scores others, so settings are chosen by what
transfers rather than by cross-validation inside one file. Sets (``--data``, default
``../shared/data``):

* ``msr``  STS 2012 MSRpar train (750 pairs)
* ``euro`` STS 2012 SMTeuroparl train (734 pairs)
* ``sick`` SICK: trained on a seeded subsample of SICK train (``--sick-train``, default
  1000 of 4,500 pairs, to keep sweeps cheap), scored on SICK trial (500 pairs)

Experiments: ``lofo`` trains on two sets and scores the third (three rows), ``pairs``
trains on one set and scores each other one (six rows). Each configuration is
``key=value`` items (see :data:`DEFAULT`), e.g. ``kind=pfsm lam=5 target=affine``;
several configurations are separated by ``--``-less ``/``. Results (Pearson,
Spearman) go to stdout as a table and are appended as JSON lines to ``--log``.

Usage (NLTK_DATA=../shared/nltk_data):

    nice python experiments/edit_distance_transfer.py --exp lofo kind=pfsm lam=5 / kind=pfsm lam=0.05
    python experiments/edit_distance_transfer.py --table LOG.jsonl   # print a table of a log
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.cache import cache_dir  # noqa: E402
from explorer.datasets import load  # noqa: E402
from explorer.edit_distance.features import (  # noqa: E402
    PairFeatures,
    pair_features,
    similarity_matrix,
    swap_sides,
    tie_gaps,
)
from explorer.edit_distance.training import TransferSettings, prepare_pair, score_values, train_settings  # noqa: E402

DEFAULT = {"kind": "pfsm", "lam": "0.05", "max_iter": "60", "warm": "0", "min_count": "5", "lexical": "1",
           "target": "norm", "balance": "0", "per_file": "0", "prep": "asis", "lam_per": "0", "tie": "0",
           "swap": "0", "preorder": "0", "emb": "0"}

#: Settings the bench applies itself (not TransferSettings): ``prep`` preprocessing;
#: ``tie=1`` one weight for inserting and deleting a word (:func:`tie_gaps`); ``swap=1``
#: trains on both directions of every pair and scores the mean of both (:func:`swap_sides`).
#: ``emb=1`` adds the lexical similarity's static-embedding component to the features.
#: (``preorder=1``, the hypothesis read in the text's order, is a model setting.)
BENCH_ONLY = ("prep", "tie", "swap", "emb")

FILES = {
    "msr": ("sts2012/MSRpar.train.tsv", None),
    "euro": ("sts2012/SMTeuroparl.train.tsv", None),
    "sick": ("sick/SICK_train.txt", "sick/SICK_trial.txt"),
}


def _encode(path: Path, prep: str, subsample: int | None, seed: int,
            embedding: bool = False) -> tuple[list[PairFeatures], np.ndarray, list[int]]:
    """Features of a file (cached on disk, outside the repository)."""
    pairs = list(load(str(path)).pairs)
    idx = list(range(len(pairs)))
    if subsample is not None and subsample < len(pairs):
        idx = sorted(np.random.default_rng(seed).choice(len(pairs), size=subsample, replace=False).tolist())
    key = hashlib.sha1(f"{path}|{prep}|{idx}".encode()).hexdigest()[:16]
    cache = cache_dir() / "edit_transfer" / f"{path.stem}_{prep}{'_emb' if embedding else ''}_{key}.pkl"
    gold = np.array([float(pairs[i].score) for i in idx])  # type: ignore[arg-type]
    if cache.exists():
        with cache.open("rb") as handle:
            return pickle.load(handle), gold, idx
    started = time.perf_counter()
    analysed = [prepare_pair(pairs[i], prep) for i in idx]
    encoded = [pair_features(a, similarity=similarity_matrix(a, embedding=embedding)) for a in analysed]
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("wb") as handle:
        pickle.dump(encoded, handle)
    print(f"# encoded {path.name} ({prep}, {len(idx)} pairs) in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return encoded, gold, idx


class Sets:
    def __init__(self, data: Path, sick_train: int, seed: int) -> None:
        self.data, self.sick_train, self.seed = data, sick_train, seed
        self._cache: dict[tuple[str, str, str, bool], tuple[list[PairFeatures], np.ndarray]] = {}

    def get(self, name: str, role: str, prep: str, embedding: bool = False) -> tuple[list[PairFeatures], np.ndarray]:
        """``role`` is ``train`` or ``test`` (SICK: a train subsample / trial)."""
        train_file, test_file = FILES[name]
        if role == "test" and test_file is not None:
            path, sub = test_file, None
        else:
            path, sub = train_file, (self.sick_train if name == "sick" else None)
        key = (name, role if test_file else "all", prep, embedding)
        if key not in self._cache:
            enc, gold, _ = _encode(self.data / path, prep, sub, self.seed, embedding)
            self._cache[key] = (enc, gold)
        return self._cache[key]


def _corr(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    return float(stats.pearsonr(pred, gold)[0]), float(stats.spearmanr(pred, gold)[0])


def run(config: dict[str, str], exp: str, sets: Sets, log: Path | None, test_prep: str | None,
        save: Path | None = None) -> list[dict]:
    settings = TransferSettings.parse({k: v for k, v in config.items() if k not in BENCH_ONLY})
    prep = config["prep"]
    tie, swap, emb = config["tie"] == "1", config["swap"] == "1", config["emb"] == "1"

    def shaped(encoded: list[PairFeatures]) -> list[PairFeatures]:
        return [tie_gaps(f) for f in encoded] if tie else encoded
    names = list(FILES)
    jobs = ([([a for a in names if a != held], [held]) for held in names] if exp == "lofo"
            else [([a], [b for b in names if b != a]) for a in names])
    rows = []
    for train_names, test_names in jobs:
        enc: list[PairFeatures] = []
        gold_parts, sources = [], []
        for name in train_names:
            e, g = sets.get(name, "train", prep, emb)
            e = shaped(e)
            if swap:
                e, g = e + shaped([swap_sides(f) for f in sets.get(name, "train", prep, emb)[0]]), np.concatenate([g, g])
            enc += e
            gold_parts.append(g)
            sources += [name] * len(e)
        started = time.perf_counter()
        model, scale = train_settings(settings, enc, np.concatenate(gold_parts), sources)
        seconds = time.perf_counter() - started
        for held, tprep in [(h, t) for h in test_names for t in (test_prep.split(",") if test_prep else [prep])]:
            e, g = sets.get(held, "test", tprep, emb)
            pred = score_values(model, shaped(e), settings.target, scale)
            if swap:
                pred = (pred + score_values(model, shaped([swap_sides(f) for f in e]), settings.target, scale)) / 2
            r, rho = _corr(pred, g)
            row = {"config": " ".join(f"{k}={v}" for k, v in config.items() if DEFAULT.get(k) != v) or "default",
                   "train": "+".join(train_names), "test": held, "pearson": round(r, 4), "spearman": round(rho, 4),
                   "seconds": round(seconds), "iterations": model.info.get("iterations"), "restarts": model.info.get("restarts"),
                   "test_prep": tprep, "sick_train": sets.sick_train}
            rows.append(row)
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                tag = hashlib.sha1(row["config"].encode()).hexdigest()[:8]
                np.save(save / f"{tag}_{row['train']}_{held}_{row['test_prep']}.npy", pred)
                model.save(save / f"{tag}_{row['train']}.json")
            print(json.dumps(row), flush=True)
            if log is not None:
                with log.open("a") as handle:
                    handle.write(json.dumps(row) + "\n")
    return rows


def table(rows: Sequence[dict]) -> str:
    """Configurations down, train->test across, plus the mean over the LOFO rows."""
    cols = list(dict.fromkeys(f"{r['train']}->{r['test']}" for r in rows))
    configs = list(dict.fromkeys(r["config"] + ("" if r.get("test_prep") in (None, "asis") or r["test_prep"] in r["config"]
                                                 else f" [test {r['test_prep']}]") for r in rows))
    cell: dict[tuple[str, str], float] = {}
    for r in rows:
        conf = r["config"] + ("" if r.get("test_prep") in (None, "asis") or r["test_prep"] in r["config"]
                              else f" [test {r['test_prep']}]")
        cell[(conf, f"{r['train']}->{r['test']}")] = r["pearson"]
    out = ["| setting | " + " | ".join(cols) + " | mean |", "|---" * (len(cols) + 2) + "|"]
    for conf in configs:
        vals = [cell.get((conf, c)) for c in cols]
        have = [v for v in vals if v is not None]
        mean = f"{np.mean(have):.3f}" if have else "-"
        out.append(f"| {conf} | " + " | ".join("-" if v is None else f"{v:.3f}" for v in vals) + f" | {mean} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", help="key=value items; '/' separates configurations")
    parser.add_argument("--exp", choices=("lofo", "pairs"), default="lofo")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--sick-train", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--save", type=Path, help="write models and held-out predictions here")
    parser.add_argument("--test-prep", help="score the held-out sets under these preprocessings (comma-separated) instead")
    parser.add_argument("--table", type=Path, nargs="*", help="print the table of these JSONL logs and stop")
    args = parser.parse_args(argv)
    if args.table:
        rows = [json.loads(line) for path in args.table for line in path.read_text().splitlines() if line.strip()]
        print(table(rows))
        return
    configs: list[dict[str, str]] = [{}]
    for item in args.configs:
        if item == "/":
            configs.append({})
            continue
        key, _, value = item.partition("=")
        if key not in DEFAULT:
            parser.error(f"unknown setting {key!r}; known: {', '.join(DEFAULT)}")
        configs[-1][key] = value
    sets = Sets(args.data, args.sick_train, args.seed)
    rows = []
    for config in configs:
        rows += run({**DEFAULT, **config}, args.exp, sets, args.log, args.test_prep, args.save)
    print(table(rows))


if __name__ == "__main__":
    main()

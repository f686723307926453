"""Why the pFSM / pPDA lose to token overlap across files: probes of the machine's structure.
Nothing here is trained except what ``--save`` of
``bench/edit_distance_transfer.py`` left behind.

* ``overlap``: Pearson of Dice over identical (lowercased) tokens matched in order (the
  longest common subsequence, what a monotone edit machine can match) against matched
  in any order (the bag Dice baseline), and how many matched words are out of order.
* ``handset``: lattices with a few hand-set weights (``name=value,...``; every other weight
  0), no training: pFSM, pPDA of several jump limits (``--kind ppda:10``), and either
  read in the text's order (``--preorder``).
* ``msrp``: a fourth file never trained on: the MSR Paraphrase validation pairs (500,
  binary paraphrase labels), scored by the LOFO models trained *without* MSRpar (whose
  sentences come from the same news clusters) in each ``--saved`` folder, beside Dice;
  Pearson with the label (point-biserial) and ROC AUC.
* ``reorder-time``: what reading the hypothesis in the text's order adds per pair
  (:func:`~explorer.edit_distance.features.reorder_hypothesis` on stored features;
  median of ``--runs`` passes over each file).
* ``outputs``: output layers over saved LOFO models (``--saved DIR``): weights scaled by
  T (``log Z(T w) / T``, towards the best path), ``log Z`` less the length-only lattice,
  and least-squares combinations with length features fitted on the training files
  (each file centred), Pearson on the held-out file.

Usage (NLTK_DATA=../shared/nltk_data; features come from the transfer bench's cache):

    python -m bench.edit_distance_structure overlap
    python -m bench.edit_distance_structure handset --kind pfsm zero "sub:S_WORD=8,sub:S_OTHER=-8"
    python -m bench.edit_distance_structure outputs --saved DIR
    python -m bench.edit_distance_structure msrp --saved DIR [--saved DIR ...]
    python -m bench.edit_distance_structure reorder-time [--runs 5]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy import stats

from bench.edit_distance_transfer import FILES, ROOT, Sets
from explorer.edit_distance.automaton import C_WORD
from explorer.edit_distance.features import FeatureIndex, PairFeatures, lcs_table, reorder_hypothesis
from explorer.edit_distance.model import Batch, EditDistanceModel
from explorer.edit_distance.training import path_count


def _r(x: np.ndarray, y: np.ndarray) -> float:
    return round(float(stats.pearsonr(x, y)[0]), 4)


def overlap(sets: Sets) -> None:
    for name in FILES:
        enc, gold = sets.get(name, "test", "asis")
        length = np.array([f.n + f.m for f in enc], float)
        in_order, any_order = [], []
        for f in enc:
            same = (f.sub_class == C_WORD).reshape(f.n, f.m)
            in_order.append(int(lcs_table(same)[-1, -1]))
            used: set[int] = set()  # one-to-one matching of identical tokens in any order
            for j in range(f.m):
                free = [i for i in np.flatnonzero(same[:, j]).tolist() if i not in used]
                if free:
                    used.add(free[0])
            any_order.append(len(used))
        lcs, bag = np.array(in_order, float), np.array(any_order, float)
        print(json.dumps({"file": name, "in_order_dice": _r(2 * lcs / length, gold), "dice": _r(2 * bag / length, gold),
                          "out_of_order_share": round(float((bag - lcs).sum() / bag.sum()), 3),
                          "pairs_3_plus_out_of_order": round(float(np.mean(bag - lcs >= 3)), 3),
                          "r_out_of_order_per_token_gold": _r((bag - lcs) / length, gold)}))


def _handset_model(kind: str, index: FeatureIndex, spec: str, preorder: int) -> EditDistanceModel:
    name, _, jump = kind.partition(":")
    model = EditDistanceModel.zero(name, index, max_jump=int(jump or 5), preorder=preorder)
    theta, cols = model.theta(), index.columns()
    for item in filter(None, spec.split(",")):
        key, _, value = item.partition("=")
        theta[cols[key]] = float(value)
    return model.with_theta(theta)


def handset(sets: Sets, kind: str, specs: list[str], preorder: int) -> None:
    data = {name: sets.get(name, "test", "asis") for name in FILES}
    every: list[PairFeatures] = [f for enc, _ in data.values() for f in enc]
    index = FeatureIndex.fit(every, min_count=1)
    for spec in specs:
        model = _handset_model(kind, index, spec, preorder)
        row: dict[str, object] = {"kind": kind, "preorder": preorder, "weights": spec or "all 0"}
        for name, (enc, gold) in data.items():
            batch = Batch.build([model.prepared(f)[0] for f in enc], index)
            row[name] = _r(model.log_z(batch)[0] / (batch.n + batch.m), gold)
        row["mean"] = round(float(np.mean([row[n] for n in FILES])), 4)  # type: ignore[arg-type]
        print(json.dumps(row), flush=True)


def outputs(sets: Sets, saved: Path) -> None:
    names = list(FILES)

    def columns(model: EditDistanceModel, enc: list[PairFeatures], temps: tuple[float, ...]) -> dict[str, np.ndarray]:
        batch = Batch.build([model.prepared(f)[0] for f in enc], model.index)
        length = (batch.n + batch.m).astype(float)
        out = {f"T={t:g}": model.with_theta(model.theta() * t).log_z(batch)[0] / t / length for t in temps}
        out["u"] = out["T=1"]
        out["u0"] = path_count(model, batch) / length
        out["u-u0"] = out["u"] - out["u0"]
        out["mismatch"] = np.abs(batch.n - batch.m) / length
        out["mismatch2"] = out["mismatch"] ** 2
        out["log_length"] = np.log(length)
        return out

    combos = (("u", "u0"), ("u", "mismatch"), ("u", "mismatch", "mismatch2"), ("u", "u0", "log_length"))
    for held in names:
        train = [a for a in names if a != held]
        files = sorted(saved.glob(f"*_{'+'.join(train)}.json"))
        if not files:
            continue
        model = EditDistanceModel.load(files[-1])
        enc, gold = sets.get(held, "test", "asis")
        test = columns(model, enc, (1, 2, 4, 10))
        row: dict[str, object] = {"held_out": held, "model": files[-1].name}
        row.update({k: _r(test[k], gold) for k in ("T=1", "T=2", "T=4", "T=10", "u-u0", "u0")})
        fitted = [(columns(model, sets.get(a, "train", "asis")[0], (1,)), sets.get(a, "train", "asis")[1]) for a in train]
        for combo in combos:
            x = np.vstack([np.column_stack([c[k] for k in combo]) - np.column_stack([c[k] for k in combo]).mean(0)
                           for c, _ in fitted])
            y = np.concatenate([g - g.mean() for _, g in fitted])
            coef = np.linalg.lstsq(x, y, rcond=None)[0]
            row[" + ".join(combo)] = _r(np.column_stack([test[k] for k in combo]) @ coef, gold)
        print(json.dumps(row), flush=True)


def msrp(data: Path, saved: list[Path]) -> None:
    import hashlib
    import pickle

    from sklearn.metrics import roc_auc_score

    from explorer.cache import cache_dir
    from explorer.datasets import load
    from explorer.edit_distance.features import pair_features
    from explorer.edit_distance.training import score_values
    from explorer.preprocess import analyze_pair

    path = data / "msrp" / "msr-para-val.tsv"
    pairs = list(load(str(path)).pairs)
    gold = np.array([1.0 if p.label == "entailment" else 0.0 for p in pairs])
    cache = cache_dir() / "edit_transfer" / f"msrp_val_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}.pkl"
    if cache.exists():
        enc = pickle.loads(cache.read_bytes())
    else:
        enc = [pair_features(analyze_pair(p)) for p in pairs]
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps(enc))
    dice = []
    for f in enc:
        same = (f.sub_class == C_WORD).reshape(f.n, f.m)
        used: set[int] = set()
        for j in range(f.m):
            free = [i for i in np.flatnonzero(same[:, j]).tolist() if i not in used]
            if free:
                used.add(free[0])
        dice.append(2 * len(used) / (f.n + f.m))
    rows = [("Dice", np.array(dice))]
    for folder in saved:
        for file in sorted(folder.glob("*_euro+sick.json")):
            model = EditDistanceModel.load(file)
            rows.append((f"{folder.name}/{file.name} ({model.kind}, preorder={model.preorder})",
                         score_values(model, enc, "norm", 1.0)))
    for name, pred in rows:
        print(json.dumps({"scorer": name, "pairs": len(gold), "paraphrases": int(gold.sum()),
                          "pearson": _r(pred, gold), "auc": round(float(roc_auc_score(gold, pred)), 4)}), flush=True)


def reorder_time(sets: Sets, runs: int) -> None:
    import os
    import statistics
    import time

    for name in FILES:
        enc, _ = sets.get(name, "test", "asis")
        reorder_hypothesis(enc[0])  # compile
        per_pair = []
        for _ in range(runs):
            started = time.perf_counter()
            moved = sum(reorder_hypothesis(f)[1] != tuple(range(f.m)) for f in enc)
            per_pair.append((time.perf_counter() - started) / len(enc) * 1000)
        print(json.dumps({"file": name, "pairs": len(enc), "reordered": int(moved),
                          "median_ms_per_pair": round(statistics.median(per_pair), 3),
                          "load_average": round(os.getloadavg()[0], 1)}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=("overlap", "handset", "outputs", "msrp", "reorder-time"))
    parser.add_argument("--runs", type=int, default=5, help="reorder-time: passes over each file")
    parser.add_argument("weights", nargs="*", help="handset: name=value,... per lattice ('zero': every weight 0)")
    parser.add_argument("--kind", default="pfsm", help="handset: pfsm, ppda or ppda:MAX_JUMP")
    parser.add_argument("--preorder", type=int, default=0, choices=(0, 1, 2),
                        help="handset: read the hypothesis in the text's order (1 exact matches, 2 also soft ones)")
    parser.add_argument("--saved", type=Path, action="append",
                        help="outputs / msrp: a --save folder of edit_distance_transfer (msrp: repeatable)")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_intermixed_args()
    sets = Sets(args.data, 1000, 0)
    if args.probe == "overlap":
        overlap(sets)
    elif args.probe == "handset":
        handset(sets, args.kind, [("" if w == "zero" else w) for w in args.weights or ["zero"]], args.preorder)
    elif args.probe == "reorder-time":
        reorder_time(sets, args.runs)
    elif args.probe == "msrp":
        msrp(args.data, args.saved or [])
    else:
        if not args.saved:
            parser.error("outputs needs --saved DIR")
        outputs(sets, args.saved[0])


if __name__ == "__main__":
    main()

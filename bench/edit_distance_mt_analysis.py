"""Why SMTeuroparl-style MT output is hard for the pFSM / pPDA.

Prints, per similarity file: lengths, length mismatch, truncated second sentences,
punctuation and casing, the gold score distribution, and the Pearson correlation with
gold of simple quantities (total length, relative length difference, lowercased token
overlap with and without punctuation), so the figures say what the score depends on in
each file. With ``--pred DIR`` (predictions written by ``edit_distance_transfer.py
--save``) it also bins a model's held-out predictions by length and by gold score.

Usage: NLTK_DATA=../shared/nltk_data python bench/edit_distance_mt_analysis.py --data ../shared/data
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.datasets import load  # noqa: E402
from explorer.preprocess import analyze_pair  # noqa: E402

FILES = {"msr": "sts2012/MSRpar.train.tsv", "euro": "sts2012/SMTeuroparl.train.tsv", "sick": "sick/SICK_trial.txt"}


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1]) if np.std(a) > 0 and np.std(b) > 0 else float("nan")


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    from collections import Counter

    ca, cb = Counter(a), Counter(b)
    common = sum((ca & cb).values())
    return 2 * common / max(1, len(a) + len(b))


def stats(name: str, path: Path) -> dict[str, np.ndarray]:
    pairs = list(load(str(path)).pairs)
    ap = [analyze_pair(p) for p in pairs]
    n = np.array([len(a.text) for a in ap], dtype=float)
    m = np.array([len(a.hypothesis) for a in ap], dtype=float)
    gold = np.array([float(p.score) for p in pairs])  # type: ignore[arg-type]
    final = (".", "!", "?", '"', "''", ")")
    trunc = np.array([a.hypothesis.tokens[-1] not in final for a in ap])
    trunc_t = np.array([a.text.tokens[-1] not in final for a in ap])
    punct = np.array([(sum(a.text.is_punct) + sum(a.hypothesis.is_punct)) / (len(a.text) + len(a.hypothesis)) for a in ap])
    lower_start = np.array([a.hypothesis.tokens[0][:1].islower() or a.text.tokens[0][:1].islower() for a in ap])
    ov = np.array([_overlap(a.text.lower, a.hypothesis.lower) for a in ap])
    ov_np = np.array([_overlap(tuple(w for w, p in zip(a.text.lower, a.text.is_punct) if not p),
                               tuple(w for w, p in zip(a.hypothesis.lower, a.hypothesis.is_punct) if not p)) for a in ap])
    rel = np.abs(n - m) / (n + m)
    q = np.percentile(gold, [10, 25, 50, 75, 90])
    print(f"| {name} | {len(pairs)} | {n.mean():.1f} / {m.mean():.1f} | {np.median(n + m):.0f} ({np.percentile(n + m, 90):.0f}) "
          f"| {rel.mean():.3f} | {100 * trunc_t.mean():.0f}% / {100 * trunc.mean():.0f}% | {100 * punct.mean():.1f}% "
          f"| {100 * lower_start.mean():.0f}% | {gold.mean():.2f} ± {gold.std():.2f} "
          f"| {' '.join(f'{x:.2f}' for x in q)} |")
    corr = {"n+m": _pearson(n + m, gold), "abs(n-m)/(n+m)": _pearson(rel, gold), "overlap": _pearson(ov, gold),
            "overlap w/o punct": _pearson(ov_np, gold), "truncated 2nd": _pearson(trunc.astype(float), gold)}
    corr["overlap, lengths partialled out"] = _partial(ov, gold, _length_design(n, m))
    return {"n": n, "m": m, "gold": gold, "corr": corr, "trunc": trunc}  # type: ignore[dict-item]


def _length_design(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    rel = np.abs(n - m) / (n + m)
    return np.column_stack([np.ones_like(n), rel, rel * rel, n + m])


def _partial(a: np.ndarray, b: np.ndarray, design: np.ndarray) -> float:
    """Pearson of ``a`` and ``b`` after regressing both on the length design."""
    ra = a - design @ np.linalg.lstsq(design, a, rcond=None)[0]
    rb = b - design @ np.linalg.lstsq(design, b, rcond=None)[0]
    return _pearson(ra, rb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--pred", type=Path, help="directory of held-out predictions (.npy) to bin")
    args = parser.parse_args()
    print("| file | pairs | mean tokens s1 / s2 | median n+m (90th pct) | mean abs(n-m)/(n+m) "
          "| s1 / s2 without final punctuation | punctuation tokens | a side starting lowercase "
          "| gold mean ± sd | gold 10/25/50/75/90th pct |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    out = {name: stats(name, args.data / path) for name, path in FILES.items()}
    print()
    keys = list(next(iter(out.values()))["corr"])
    print("| Pearson with gold | " + " | ".join(out) + " |")
    print("|---" * (len(out) + 1) + "|")
    for key in keys:
        print(f"| {key} | " + " | ".join(f"{out[name]['corr'][key]:.3f}" for name in out) + " |")  # type: ignore[index]
    if args.pred:
        for path in sorted(args.pred.glob("*.npy")):
            held = path.stem.split("_")[2]
            if held not in out:
                continue
            pred = np.load(path)
            d = out[held]
            gold, length = d["gold"], d["n"] + d["m"]
            if len(pred) != len(gold):
                continue
            rel = np.abs(d["n"] - d["m"]) / length
            design = _length_design(d["n"], d["m"])
            lengths_only = design @ np.linalg.lstsq(design, gold, rcond=None)[0]
            print(f"\n{path.name}: Pearson {_pearson(pred, gold):.3f}; with n+m {_pearson(pred, length):.3f}; "
                  f"with abs(n-m)/(n+m) {_pearson(pred, rel):.3f}; lengths partialled out {_partial(pred, gold, design):.3f} "
                  f"(a least-squares fit of gold on the lengths alone, in-sample: {_pearson(lengths_only, gold):.3f})")
            edges = np.percentile(length, [0, 25, 50, 75, 100])
            cells = []
            for lo, hi in zip(edges[:-1], edges[1:]):
                mask = (length >= lo) & (length <= hi)
                cells.append(f"n+m {lo:.0f}-{hi:.0f}: {_pearson(pred[mask], gold[mask]):.3f} (n={mask.sum()})")
            print("  by length quartile: " + "; ".join(cells))
            for label, mask in (("truncated s2", d["trunc"]), ("complete s2", ~d["trunc"])):
                print(f"  {label}: Pearson {_pearson(pred[mask], gold[mask]):.3f} (n={mask.sum()}, "
                      f"gold mean {gold[mask].mean():.2f}, pred mean {pred[mask].mean():.2f})")


if __name__ == "__main__":
    main()

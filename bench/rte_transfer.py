"""Cutoff transfer across the labelled RTE sets: every scorer, every cutoff rule, MANLI's
thresholded number, and the bootstrap spread of the chosen cutoff (issue 13, part 2).

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m bench.rte_transfer [--cache DIR] [--scorers all]
        [--resamples 1000] [--only table,rules,manli,bootstrap]

Scores are computed once per (scorer, file) and kept as JSON under ``--cache`` (default
/tmp/explorer-rte-transfer); delete the folder after changing a scorer. Rows: cutoff chosen
on A, applied to B, for RTE1 dev -> RTE2 dev, RTE2 dev -> RTE3 dev, RTE3 dev -> RTE3 test.
Prints Markdown tables (docs/RESULTS.md, "Cutoff transfer").
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from explorer.datasets import load
from explorer.decision import CUTOFF_RULES, DEFAULT_RULE, bootstrap_transfer, transfer
from explorer.evaluation import score_pairs
from explorer.preprocess import analyze_pair
from explorer.scorers import SCORERS, get_scorer

RTE = Path(os.environ.get("NLTK_DATA", "../shared/nltk_data")) / "corpora" / "rte"
ROWS = (("rte1_dev", "rte2_dev"), ("rte2_dev", "rte3_dev"), ("rte3_dev", "rte3_test"))
FILES = ("rte1_dev", "rte2_dev", "rte3_dev", "rte3_test")
SHIPPED = "content coverage + 0.1 x hypothesis side / h (shipped)"


def cached_scores(cache: Path, scorer: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    if scorer == "manli":  # one decode serves the scorer and the study of its numbers
        parts, gold = manli_parts(cache, name)
        return parts[SHIPPED], gold
    path = cache / f"{scorer}__{name}.json"
    if not path.exists():
        data = load(RTE / f"{name}.xml")
        start = time.perf_counter()
        values = score_pairs(data.pairs, scorer)
        path.write_text(json.dumps({"values": values.tolist(), "gold": [bool(p.entails) for p in data.pairs],
                                    "seconds": time.perf_counter() - start}))
    payload = json.loads(path.read_text())
    return np.array(payload["values"], dtype=float), np.array(payload["gold"], dtype=bool)


def manli_parts(cache: Path, name: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Every candidate number MANLI's alignment gives, per pair."""
    path = cache / f"manli-parts__{name}.json"
    if not path.exists():
        data = load(RTE / f"{name}.xml")
        scorer = get_scorer("manli")
        rows = []
        for pair in data.pairs:
            analysed = analyze_pair(pair)
            s = scorer.score(analysed)
            h = max(len(analysed.hypothesis), 1)
            rows.append({
                SHIPPED: s.value,
                "total / (text + hypothesis tokens) (paper)": s.problem_normalized,
                "total (raw)": s.alignment_score,
                "total / hypothesis tokens": s.alignment_score / h,
                "total / text tokens": s.alignment_score / max(s.n_tokens - h, 1),
                "hypothesis side (total - DEL) / h": s.hypothesis_score,
                "content coverage": s.content_coverage,
                "- unaligned content words": -float(len(s.unaligned_content)),
            })
        path.write_text(json.dumps({"rows": rows, "gold": [bool(p.entails) for p in data.pairs]}))
    payload = json.loads(path.read_text())
    keys = list(payload["rows"][0])
    return {k: np.array([r[k] for r in payload["rows"]]) for k in keys}, np.array(payload["gold"], dtype=bool)


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def table(cache: Path, scorers: list[str], rule: str) -> None:
    print(f"\n### Transfer, rule `{rule}`: accuracy on B (B's own best) / AP on B\n")
    print("| scorer | " + " | ".join(f"{a} -> {b}" for a, b in ROWS) + " | mean |")
    print("|---|" + "---|" * (len(ROWS) + 1))
    for name in scorers:
        cells, accs = [], []
        for a, b in ROWS:
            sa, ga = cached_scores(cache, name, a)
            sb, gb = cached_scores(cache, name, b)
            r = transfer(sa, ga, sb, gb, rule=rule)
            accs.append(r.target_accuracy)
            cells.append(f"{pct(r.target_accuracy)} ({pct(r.target_best_accuracy)}) / {r.target_average_precision:.3f}")
        print(f"| {name} | " + " | ".join(cells) + f" | {pct(float(np.mean(accs)))} |")


def rules(cache: Path, scorers: list[str]) -> None:
    print("\n### Cutoff rules: transferred accuracy, mean over the scorers and rows; loss against B's own best\n")
    print("| rule | mean accuracy on B | mean loss | worst loss | bow, 3 rows | manli, 3 rows |")
    print("|---|---|---|---|---|---|")
    for rule in CUTOFF_RULES:
        accs, losses, per = [], [], {"bow": [], "manli": []}
        for name in scorers:
            for a, b in ROWS:
                sa, ga = cached_scores(cache, name, a)
                sb, gb = cached_scores(cache, name, b)
                r = transfer(sa, ga, sb, gb, rule=rule)
                accs.append(r.target_accuracy)
                losses.append(r.loss)
                if name in per:
                    per[name].append(pct(r.target_accuracy))
        print(f"| {rule} | {pct(float(np.mean(accs)))} | {pct(float(np.mean(losses)))} | {pct(max(losses))} | "
              f"{' / '.join(per['bow'])} | {' / '.join(per['manli'])} |")


def manli_numbers(cache: Path) -> None:
    print(f"\n### MANLI: which number is thresholded (rule `{DEFAULT_RULE}`): accuracy on B (B's best) / AP\n")
    parts = {name: manli_parts(cache, name) for name in FILES}
    keys = list(parts[FILES[0]][0])
    print("| number | " + " | ".join(f"{a} -> {b}" for a, b in ROWS) + " |")
    print("|---|" + "---|" * len(ROWS))
    for key in keys:
        cells = []
        for a, b in ROWS:
            (va, ga), (vb, gb) = (parts[a][0][key], parts[a][1]), (parts[b][0][key], parts[b][1])
            r = transfer(va, ga, vb, gb)
            cells.append(f"{pct(r.target_accuracy)} ({pct(r.target_best_accuracy)}) / {r.target_average_precision:.3f}")
        print(f"| {key} | " + " | ".join(cells) + " |")
    print("\nShipped value with other weights on the hypothesis side (content coverage + w x side / h):\n")
    print("| w | " + " | ".join(f"{a} -> {b}" for a, b in ROWS) + " |")
    print("|---|" + "---|" * len(ROWS))
    for w in (0.0, 0.03, 0.1, 0.3, 1.0):
        cells = []
        for a, b in ROWS:
            va = parts[a][0]["content coverage"] + w * parts[a][0]["hypothesis side (total - DEL) / h"]
            vb = parts[b][0]["content coverage"] + w * parts[b][0]["hypothesis side (total - DEL) / h"]
            r = transfer(va, parts[a][1], vb, parts[b][1])
            cells.append(f"{pct(r.target_accuracy)} / {r.target_average_precision:.3f}")
        print(f"| {w:g} | " + " | ".join(cells) + " |")


def bootstrap(cache: Path, resamples: int) -> None:
    print(f"\n### Bootstrap of A ({resamples} resamples): chosen cutoff and accuracy on B, 5th / 50th / 95th percentile\n")
    parts = {name: manli_parts(cache, name) for name in FILES}
    series = {
        "manli (shipped)": {f: (parts[f][0][SHIPPED], parts[f][1]) for f in FILES},
        "manli (paper's number)": {f: (parts[f][0]["total / (text + hypothesis tokens) (paper)"], parts[f][1]) for f in FILES},
        "bow": {f: cached_scores(cache, "bow", f) for f in FILES},
    }
    print("| scorer | rule | row | cutoff | accuracy on B | sd |")
    print("|---|---|---|---|---|---|")
    for label, by_file in series.items():
        for rule in CUTOFF_RULES:
            for a, b in ROWS:
                s = bootstrap_transfer(*by_file[a], *by_file[b], rule=rule, resamples=resamples)
                c = " / ".join(f"{x:.3f}" for x in s.cutoff)
                acc = " / ".join(pct(x) for x in s.target_accuracy)
                print(f"| {label} | {rule} | {a} -> {b} | {c} | {acc} | {pct(s.target_accuracy_sd)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/explorer-rte-transfer"))
    parser.add_argument("--scorers", default="all")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--only", default="table,rules,manli,bootstrap")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    # The shipped combined classifier is trained on every dev set: its rows would be in-sample
    # (bench/combined_rte.py trains it on A only instead).
    scorers = [n for n in SCORERS if n != "combined"] if args.scorers == "all" else args.scorers.split(",")
    wanted = set(args.only.split(","))
    if "table" in wanted:
        table(args.cache, scorers, DEFAULT_RULE)
    if "rules" in wanted:
        rules(args.cache, scorers)
    if "manli" in wanted:
        manli_numbers(args.cache)
    if "bootstrap" in wanted:
        bootstrap(args.cache, args.resamples)


if __name__ == "__main__":
    main()

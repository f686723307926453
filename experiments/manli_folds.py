"""MANLI alignment quality on gold alignments, never testing on what it trained on.

Two protocols over the gold problems in file order:

* ``split``: train on the first 600 problems, test on the last 200 (a fixed split);
* ``kfold``: k contiguous folds (default 4); each fold is tested with weights trained
  on the other folds, and the figures are computed over all problems at once.

Test problems are decoded without the gold blocks that training adds to the candidate
set. Figures come from :mod:`explorer.aligners.evaluation` (the ``align-eval`` definitions).
Also printed: how often the decoded alignment scores at least as high as the gold one
(gold blocks allowed, so the gold is always reachable by the search).

Ablations (``--ablation``): ``phrase1`` (max phrase size 1; gold blocks larger than
1 x 1 are dropped from training), ``no_wordnet``, ``no_ppdb`` (lexical components off),
``no_context`` (no distortion, neighbour or anchor features).

Usage: NLTK_DATA=../shared/nltk_data python -m experiments.manli_folds
       [GOLD...] [--protocol split|kfold|both] [--ablation NAME] [--epochs 50] [--json]
(GOLD defaults to the three MSR RTE2 dev annotator files, merged by majority.)
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

from experiments.common import log
from explorer.aligners.evaluation import load_gold, report, score_pair
from explorer.aligners.manli import decode, lexical_similarity
from explorer.aligners.manli.features import FeatureConfig
from explorer.aligners.manli.learn import (
    Problem,
    TrainConfig,
    lexical_flags_without,
    prepare,
    score_vs_gold,
    train,
)
from explorer.alignment import Alignment

ROOT = Path(__file__).resolve().parents[1]

ABLATIONS = {
    "none": ({}, FeatureConfig()),
    "phrase1": ({}, FeatureConfig(max_phrase=1)),
    "no_wordnet": (lexical_flags_without(["wordnet"]), FeatureConfig()),
    "no_ppdb": (lexical_flags_without(["ppdb"]), FeatureConfig()),
    "no_context": ({}, FeatureConfig(contextual=False)),
}


def test(problems: list[Problem], golds: list[Alignment], weights: np.ndarray) -> list:  # type: ignore[type-arg]
    scores = []
    for problem, gold in zip(problems, golds):
        chosen, _ = decode(problem.features, weights, with_added=False)
        f = problem.features
        links = {
            (p, h)
            for c in chosen.tolist()
            for p in range(int(f.p_start[c]), int(f.p_end[c]))
            for h in range(int(f.h_start[c]), int(f.h_end[c]))
        }
        scores.append(score_pair(problem.pair_id, Alignment.from_links(f.p_len, f.h_len, links), gold))
    return scores


def figures(scores: list) -> dict[str, float]:  # type: ignore[type-arg]
    r = report(scores)
    return {
        "n": r.n, "precision": round(100 * r.precision, 1), "recall": round(100 * r.recall, 1),
        "f1": round(100 * r.f1, 1), "mean_pair_f1": round(100 * r.mean_pair_f1, 1), "exact": round(100 * r.exact, 1),
    }


def main(argv: list[str] | None = None) -> None:
    shared = ROOT.parent / "shared" / "data" / "msr_align"
    default = [str(shared / f"RTE2_dev_{x}.align.txt") for x in "ABC"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="*", default=default)
    parser.add_argument("--protocol", choices=("split", "kfold", "both"), default="both")
    parser.add_argument("--ablation", choices=tuple(ABLATIONS), default="none")
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--train-size", type=int, default=600)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    flags, feature_config = ABLATIONS[args.ablation]
    config = TrainConfig(epochs=args.epochs, burn_in=min(10, args.epochs - 1))
    dataset = load_gold(args.gold)
    pairs = [p for p in dataset.pairs if p.gold_alignment is not None]
    started = time.perf_counter()
    problems = prepare(pairs, lexical_similarity(flags), config=feature_config, log=log)
    if feature_config.max_phrase == 1:
        problems = [_token_level(p) for p in problems]
    golds = [p.gold_alignment for p in pairs]
    log(f"features for {len(problems)} problems in {time.perf_counter() - started:.0f} s")
    out: dict[str, object] = {"gold": dataset.name, "ablation": args.ablation, "epochs": args.epochs}

    if args.protocol in ("split", "both"):
        k = args.train_size
        weights = train(problems[:k], config=config, log=log)
        out["split"] = {
            "train": f"1-{k}", "test": f"{k + 1}-{len(problems)}",
            **figures(test(problems[k:], golds[k:], weights)),  # type: ignore[arg-type]
            "decoded_ge_gold": score_vs_gold(problems[k:], weights),
        }
        log(f"split: {out['split']}")
    if args.protocol in ("kfold", "both"):
        bounds = np.linspace(0, len(problems), args.folds + 1).astype(int)
        scores: list = []  # type: ignore[type-arg]
        ge: list[dict[str, float]] = []
        for i in range(args.folds):
            lo, hi = int(bounds[i]), int(bounds[i + 1])
            weights = train(problems[:lo] + problems[hi:], config=config, log=log)
            scores += test(problems[lo:hi], golds[lo:hi], weights)  # type: ignore[arg-type]
            ge.append(score_vs_gold(problems[lo:hi], weights))
            log(f"fold {i + 1}/{args.folds}: {figures(scores)}")
        reachable = sum(g["reachable_problems"] for g in ge)
        out["kfold"] = {
            "folds": args.folds, **figures(scores),
            "decoded_ge_gold": sum(g["decoded_ge_gold"] * g["problems"] for g in ge) / len(problems),
            "decoded_ge_gold_reachable": sum(g["decoded_ge_gold_reachable"] * g["reachable_problems"] for g in ge) / reachable,
        }
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(out, indent=None if args.json else 1))


def _token_level(problem: Problem) -> Problem:
    """With phrases of one token, gold blocks larger than 1 x 1 cannot be produced:
    train on the 1 x 1 gold edits only."""
    f = problem.features
    gold = np.array([g for g in problem.gold.tolist() if f.p_end[g] - f.p_start[g] == 1 and f.h_end[g] - f.h_start[g] == 1], dtype=np.int64)
    lost = sum(int((f.p_end[g] - f.p_start[g]) * (f.h_end[g] - f.h_start[g])) for g in problem.gold.tolist()) - gold.size
    return Problem(problem.pair_id, f, gold, problem.unreachable + lost, problem.n_sure, f.vector(gold))


if __name__ == "__main__":
    main()

"""Lexical-similarity ablation on gold alignments: how much each component helps a
simple aligner find the gold SURE links.

The probe aligner links each hypothesis token to its most similar text token (by the
full lexical matrix of :mod:`explorer.lexical`) when that similarity is at least
``--threshold``; it is then scored like any aligner (macro P/R/F1, exact match). Rows:
all components, each component left out in turn, and Levenshtein alone. This measures
the lexical evidence only; MANLI's own ablations are in its section.

Usage: NLTK_DATA=../shared/nltk_data python -m bench.lexical_ablation GOLD... [--threshold 0.5]
(GOLD defaults to the three MSR RTE2 dev annotator files, merged by majority.)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from explorer.aligners.evaluation import load_gold, report, score_pair
from explorer.alignment import Alignment
from explorer.lexical import COMPONENTS, LexicalConfig, LexicalSimilarity
from explorer.preprocess import analyze_pair

ROOT = Path(__file__).resolve().parents[1]


def probe(similarity: LexicalSimilarity, pairs, threshold: float):  # type: ignore[no-untyped-def]
    scores = []
    for pair, analysed in pairs:
        matrix = similarity.matrix(analysed.text, analysed.hypothesis)
        links = set()
        if matrix.size:
            best = matrix.argmax(axis=0)
            for h, p in enumerate(best):
                if matrix[p, h] >= threshold:
                    links.add((int(p), h))
        predicted = Alignment.from_links(len(analysed.text), len(analysed.hypothesis), links)
        scores.append(score_pair(pair.id, predicted, pair.gold_alignment))
    return report(scores)

def main() -> None:
    shared = ROOT.parent / "shared" / "data" / "msr_align"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="*", default=[str(shared / f"RTE2_dev_{x}.align.txt") for x in "ABC"])
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()

    dataset = load_gold(args.gold)
    pairs = [(p, analyze_pair(p)) for p in dataset.pairs if p.gold_alignment is not None]
    for _, analysed in pairs:
        for side in (analysed.text, analysed.hypothesis):
            side.lemmas  # noqa: B018 -- tag and lemmatise once, outside the rows
    rows = [("all components", LexicalConfig())]
    rows += [(f"without {name}", LexicalConfig.without(name)) for name in COMPONENTS if name != "antonyms"]
    rows.append(("Levenshtein only", LexicalConfig.only("levenshtein")))
    print(f"gold: {dataset.name} ({len(pairs)} problems), threshold {args.threshold}")
    print(f"{'configuration':<28} {'P':>6} {'R':>6} {'F1':>6} {'exact':>6} {'s':>6}")
    for name, config in rows:
        start = time.perf_counter()
        result = probe(LexicalSimilarity(config), pairs, args.threshold)
        seconds = time.perf_counter() - start
        print(
            f"{name:<28} {100 * result.precision:6.1f} {100 * result.recall:6.1f} {100 * result.f1:6.1f} "
            f"{100 * result.exact:6.1f} {seconds:6.1f}"
        )

if __name__ == "__main__":
    main()

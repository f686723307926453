"""Static embeddings across sets: the ``embed`` aligner's settings, and whether the
untrained lexical methods (``bow``, ``itg_lex``) keep the ``embedding`` component on
(docs/RESULTS.md, "Static embeddings": the rule was written down before these runs).

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m experiments.embedding_transfer
        [--only aligner,align,rte] [--cache DIR]

* ``aligner``: the ``embed`` aligner's settings (itermax rounds x least cosine x
  punctuation) on the MSR RTE2 dev gold (annotators merged by majority, 800 problems) and
  the Edinburgh++ training gold (714); the setting best on one corpus, reported on the
  other, both ways (nothing is trained, so a setting chosen on a corpus is tested on the
  other one).
* ``align``: ``bow`` and ``itg_lex`` as aligners with and without the component, on both
  gold corpora (untrained: every figure is held out).
* ``rte``: the same scorers, and ``embed``, as entailment scorers: a cutoff chosen on the
  training sets (the default rule) and applied to the test set, on the seven rows of
  experiments/combined_rte.py. Scores are cached under ``--cache`` like experiments/rte_transfer.py's.
* ``manli``: the ``manli`` scorer over the shipped ``msr`` model and over ``--manli-model``
  (a model retrained with the component on), on the same seven rows.

Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from experiments.common import PROTOCOLS, SHARED, cached_scores
from explorer.aligners.bow import PAPER_LEXICAL as BOW_LEXICAL
from explorer.aligners.bow import BowAligner, BowScorer
from explorer.aligners.embed import EmbedAligner
from explorer.aligners.evaluation import load_gold, report, score_pair
from explorer.aligners.itg import ItgAligner, ItgScorer
from explorer.decision.rules import transfer
from explorer.lexical import LexicalConfig
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair

CORPORA = {
    "MSR RTE2 dev": [str(SHARED / "msr_align" / f"RTE2_dev_{x}.align.txt") for x in "ABC"],
    "Edinburgh++ train": [str(SHARED / "edinburgh" / "gold.train.sure.json")],
}
GRID = {"iterations": (0, 1, 2), "min_similarity": (0.3, 0.4, 0.5, 0.6), "punctuation": (False, True)}
WITH = LexicalConfig().enable("embedding")


def _gold() -> dict[str, list[tuple[Pair, AnalyzedPair]]]:
    out = {}
    for name, paths in CORPORA.items():
        pairs = [p for p in load_gold(paths).pairs if p.gold_alignment is not None]
        out[name] = [(p, analyze_pair(p)) for p in pairs]
    return out


def f1(aligner: object, problems: Sequence[tuple[Pair, AnalyzedPair]]) -> tuple[float, float, float, float]:
    """P, R, F1 and exact match (percent) of ``aligner`` on the gold problems."""
    scores = []
    for pair, analysed in problems:
        assert pair.gold_alignment is not None
        scores.append(score_pair(pair.id, aligner.align(analysed).alignment, pair.gold_alignment))  # type: ignore[attr-defined]
    r = report(scores)
    return 100 * r.precision, 100 * r.recall, 100 * r.f1, 100 * r.exact


def aligner_grid(gold: dict[str, list[tuple[Pair, AnalyzedPair]]]) -> None:
    settings = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    rows = []
    for setting in settings:
        aligner = EmbedAligner(**setting)  # type: ignore[arg-type]
        rows.append((setting, {name: f1(aligner, problems) for name, problems in gold.items()}))
    names = list(gold)
    print("| rounds | least cosine | punctuation | " + " | ".join(f"{n}: P / R / F1 / exact" for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for setting, figures in rows:
        cells = " | ".join("{:.1f} / {:.1f} / **{:.1f}** / {:.1f}%".format(*figures[n]) for n in names)
        print(f"| {setting['iterations']} | {setting['min_similarity']} | {'linked' if setting['punctuation'] else 'not linked'} | {cells} |")
    print()
    for chosen_on, tested_on in itertools.permutations(names):
        best = max(rows, key=lambda r: r[1][chosen_on][2])
        print(f"chosen on {chosen_on}: {best[0]} -> F1 {best[1][chosen_on][2]:.1f} there, "
              f"{best[1][tested_on][2]:.1f} on {tested_on} (held out)")


def align_rows(gold: dict[str, list[tuple[Pair, AnalyzedPair]]]) -> None:
    variants: list[tuple[str, object]] = [
        ("bow (Levenshtein)", BowAligner(lexical=BOW_LEXICAL)),
        ("bow + embedding", BowAligner(lexical=BOW_LEXICAL.enable("embedding"))),
        ("itg_lex (shared similarity)", ItgAligner("itg_lex", lexical=LexicalConfig())),
        ("itg_lex + embedding", ItgAligner("itg_lex", lexical=WITH)),
    ]
    print("| aligner | " + " | ".join(f"{n}: P / R / F1 / exact" for n in gold) + " |")
    print("|---|" + "---|" * len(gold))
    for label, aligner in variants:
        started = time.perf_counter()
        cells = " | ".join("{:.1f} / {:.1f} / **{:.1f}** / {:.1f}%".format(*f1(aligner, p)) for p in gold.values())
        print(f"| {label} | {cells} |  <!-- {time.perf_counter() - started:.0f} s -->")


def _scorer_fn(scorer: object) -> Callable[[Sequence[Pair]], list[float]]:
    return lambda pairs: [float(scorer.score(analyze_pair(p)).value) for p in pairs]  # type: ignore[attr-defined]


def rte_rows(cache: Path, variants: list[tuple[str, str, Callable[[Sequence[Pair]], list[float]] | None]] | None = None) -> None:
    variants = variants or [
        ("bow (Levenshtein)", "bow-levenshtein", _scorer_fn(BowScorer(lexical=BOW_LEXICAL))),
        ("bow + embedding", "bow+embedding", _scorer_fn(BowScorer(lexical=BOW_LEXICAL.enable("embedding")))),
        ("itg_lex", "itg_lex-shared", _scorer_fn(ItgScorer("itg_lex", lexical=LexicalConfig()))),
        ("itg_lex + embedding", "itg_lex+embedding", _scorer_fn(ItgScorer("itg_lex", lexical=WITH))),
        ("embed (sentence cosine)", "embed", None),
    ]
    heads = [f"{'+'.join(f.replace('_dev', '').replace('_test', ' test') for f in train)} -> "
             f"{test.replace('_dev', '').replace('_test', ' test')}" for train, test in PROTOCOLS]
    print("| scorer | " + " | ".join(heads) + " | mean |")
    print("|---|" + "---|" * (len(heads) + 1))
    for label, key, fn in variants:
        accs = []
        for train, test in PROTOCOLS:
            parts = [cached_scores(cache, key, name, fn) for name in train]
            sa = np.concatenate([p[0] for p in parts])
            ga = np.concatenate([p[1] for p in parts])
            sb, gb = cached_scores(cache, key, test, fn)
            accs.append(100 * transfer(sa, ga, sb, gb).target_accuracy)
        print(f"| {label} | " + " | ".join(f"{a:.1f}" for a in accs) + f" | {np.mean(accs):.2f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="aligner,align,rte")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/explorer-embedding-transfer"))
    parser.add_argument("--manli-model", type=Path, help="a MANLI model file for --only manli")
    args = parser.parse_args(argv)
    parts = set(args.only.split(","))
    args.cache.mkdir(parents=True, exist_ok=True)
    if parts & {"aligner", "align"}:
        gold = _gold()
        if "aligner" in parts:
            aligner_grid(gold)
        if "align" in parts:
            align_rows(gold)
    if "rte" in parts:
        rte_rows(args.cache)
    if "manli" in parts:
        from explorer.aligners.manli import ManliAligner, ManliModel, ManliScorer

        if args.manli_model is None:
            parser.error("--only manli needs --manli-model")
        candidate = ManliScorer(ManliAligner(ManliModel.load(args.manli_model)))
        rte_rows(args.cache, [("manli (shipped msr)", "manli-shipped", _scorer_fn(ManliScorer())),
                              (f"manli ({args.manli_model.name})", f"manli-{args.manli_model.stem}", _scorer_fn(candidate))])


if __name__ == "__main__":
    main()

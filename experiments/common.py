"""What the experiments share: the data's places, the seven RTE rows, cached scores and
MANLI's per-pair numbers.

Scores and features are computed once per (scorer, file) and kept as JSON under a cache
folder (``--cache`` of each experiment, default /tmp/explorer-rte-transfer); delete the
folder after changing a scorer.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from explorer import combined
from explorer.datasets import load
from explorer.decision.evaluation import score_pairs
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.scorers import get_scorer

ROOT = Path(__file__).resolve().parents[1]
#: The shared data folder (gold alignments, similarity files): beside the checkout, or the
#: machine's copy for a worktree elsewhere.
SHARED = ROOT.parent / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")
RTE = Path(os.environ.get("NLTK_DATA", "../shared/nltk_data")) / "corpora" / "rte"
FILES = ("rte1_dev", "rte2_dev", "rte3_dev", "rte3_test")
#: Rows (training sets -> target): RTE1 dev -> RTE2 dev, RTE2 dev -> RTE3 dev, RTE3 dev ->
#: RTE3 test, RTE1+2+3 dev -> RTE3 test, and each dev set left out (trained on the two others).
PROTOCOLS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("rte1_dev",), "rte2_dev"),
    (("rte2_dev",), "rte3_dev"),
    (("rte3_dev",), "rte3_test"),
    (("rte1_dev", "rte2_dev", "rte3_dev"), "rte3_test"),
    (("rte2_dev", "rte3_dev"), "rte1_dev"),
    (("rte1_dev", "rte3_dev"), "rte2_dev"),
    (("rte1_dev", "rte2_dev"), "rte3_dev"),
)


def log(message: str) -> None:
    """Progress, on stderr (the figures go to stdout)."""
    print(message, file=sys.stderr, flush=True)


def rte_row_label(train: tuple[str, ...], target: str) -> str:
    return f"RTE{'+'.join(f[3] for f in train)} dev -> {target.replace('rte', 'RTE').replace('_', ' ')}"


SHIPPED = "content coverage + 0.1 x hypothesis side / h (shipped)"


def cached_scores(cache: Path, scorer: str, name: str,
                  score: Callable[[Sequence[Pair]], Sequence[float]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One registered scorer's values on one RTE file, and its gold labels (cached under
    ``scorer``); ``score`` scores the pairs instead of the registered scorer of that name."""
    if scorer == "manli" and score is None:  # one decode serves the scorer and the study of its numbers
        parts, gold = manli_parts(cache, name)
        return parts[SHIPPED], gold
    path = cache / f"{scorer}__{name}.json"
    if not path.exists():
        data = load(RTE / f"{name}.xml")
        start = time.perf_counter()
        values = np.asarray(score(data.pairs) if score is not None else score_pairs(data.pairs, scorer), dtype=float)
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
                "total (raw)": s.total,
                "total / hypothesis tokens": s.total / h,
                "total / text tokens": s.total / max(s.n_tokens - h, 1),
                "hypothesis side (total - DEL) / h": s.hypothesis_score,
                "content coverage": s.content_coverage,
                "- unaligned content words": -float(len(s.unaligned_content)),
            })
        path.write_text(json.dumps({"rows": rows, "gold": [bool(p.entails) for p in data.pairs]}))
    payload = json.loads(path.read_text())
    keys = list(payload["rows"][0])
    return {k: np.array([r[k] for r in payload["rows"]]) for k in keys}, np.array(payload["gold"], dtype=bool)


def file_features(cache: Path, name: str, source: Path | None = None) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Every feature of :data:`combined.FEATURES` for one file (cached under ``name``);
    ``source`` is the file to read (default: the RTE file ``name``)."""
    path = cache / f"combined-features__{name}.json"
    if not path.exists():
        data = load(source if source is not None else RTE / f"{name}.xml")
        start = time.perf_counter()
        rows = [combined.alignment_features(analyze_pair(p)) for p in data.pairs]
        columns = {k: [r[k] for r in rows] for k in rows[0]}
        for feature in combined.FEATURES:
            if feature.startswith("scorer:") and feature not in columns:
                scorer = feature.split(":", 1)[1]
                scores = cache / f"{scorer}__{name}.json"
                if scores.exists():  # shared with experiments/rte_transfer.py
                    columns[feature] = json.loads(scores.read_text())["values"]
                else:
                    columns[feature] = score_pairs(data.pairs, scorer).tolist()
        path.write_text(json.dumps({"columns": columns, "gold": [bool(p.entails) for p in data.pairs],
                                    "seconds": time.perf_counter() - start}))
        print(f"<!-- features of {name}: {time.perf_counter() - start:.0f} s -->", flush=True)
    payload = json.loads(path.read_text())
    return {k: np.array(v, dtype=float) for k, v in payload["columns"].items()}, np.array(payload["gold"], dtype=bool)


def matrix(data: dict[str, tuple[dict[str, np.ndarray], np.ndarray]], files: Sequence[str],
           names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    x = np.vstack([np.column_stack([data[f][0][n] for n in names]) for f in files])
    y = np.concatenate([data[f][1] for f in files])
    return x, y


def manli_tokens(cache: Path, name: str, source: Path | None = None) -> list[dict]:
    """Per pair, what the candidate numbers need from one MANLI decode: the task, gold,
    hypothesis content positions, which hypothesis tokens are aligned, each aligned token's
    lexical similarity to its linked text tokens (MANLI's similarity matrix, block maximum),
    each token's best similarity anywhere in the text, Brown idf, and the hypothesis side.
    ``source`` is the file to read (default: the RTE file ``name``)."""
    path = cache / f"manli-tokens__{name}.json"
    if not path.exists():
        from explorer.aligners.bow import idf
        from explorer.aligners.manli import entailment_score
        from explorer.lexical.mismatch import negation_count, unmatched_numbers

        data = load(source if source is not None else RTE / f"{name}.xml")
        aligner = get_scorer("manli").aligner  # type: ignore[attr-defined]
        rows = []
        for pair in data.pairs:
            analysed = analyze_pair(pair)
            result = aligner.align(analysed)
            parts = entailment_score(analysed, result)
            hyp = analysed.hypothesis
            matrix = aligner.similarity.matrix(analysed.text, hyp)
            link = [0.0] * len(hyp)
            aligned = [False] * len(hyp)
            for edit in result.edits:
                if edit.is_aligned and edit.p_span is not None and edit.h_span is not None:
                    for j in range(*edit.h_span):
                        aligned[j] = True
                        link[j] = float(matrix[edit.p_span[0]:edit.p_span[1], j].max())
            rows.append({
                "task": pair.task, "gold": bool(pair.entails), "value": parts.value,
                "h_len": len(hyp),
                "unaligned_names": sum(hyp.pos[j].startswith("NNP") for j in parts.unaligned_content),
                "number_mismatch": unmatched_numbers(analysed.text.lower, hyp.lower),
                "negation_mismatch": (negation_count(analysed.text.lower) > 0) != (negation_count(hyp.lower) > 0),
                "content": [j for j in range(len(hyp)) if not (hyp.stop[j] or hyp.is_punct[j])],
                "aligned": aligned,
                "link_sim": link,
                "best_sim": matrix.max(axis=0).tolist() if matrix.size else [0.0] * len(hyp),
                "idf": [idf(w, lemma) for w, lemma in zip(hyp.lower, hyp.lemmas)],
                "side": parts.hypothesis_score,
            })
        path.write_text(json.dumps(rows))
    return json.loads(path.read_text())


def weighted(row: dict, weight, credit) -> float:  # type: ignore[no-untyped-def]
    """Weighted mean of ``credit`` over the hypothesis content words (all tokens when
    there is none), as the shipped coverage does."""
    positions = row["content"] or list(range(len(row["link_sim"])))
    if not positions:
        return 1.0
    weights = [weight(row, j) for j in positions]
    total = sum(weights)
    if total <= 0:
        return 1.0
    return sum(w * credit(row, j) for w, j in zip(weights, positions)) / total


def aligned_credit(row: dict, j: int) -> float:
    return 1.0 if row["aligned"][j] else 0.0


def similarity_credit(row: dict, j: int) -> float:
    return float(row["link_sim"][j]) if row["aligned"][j] else 0.0


def unit_weight(row: dict, j: int) -> float:
    return 1.0


def idf_weight(row: dict, j: int) -> float:
    return float(row["idf"][j])


def auc(scores: np.ndarray, gold: np.ndarray) -> float:
    """Area under the ROC curve (ties count one half)."""
    pos, neg = scores[gold], scores[~gold]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))

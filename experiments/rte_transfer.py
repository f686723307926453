"""Cutoff transfer across the labelled RTE sets: every scorer, every cutoff rule, MANLI's
thresholded number, and the bootstrap spread of the chosen cutoff.

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m experiments.rte_transfer [--cache DIR] [--scorers all]
        [--resamples 1000] [--only table,rules,manli,bootstrap,why,candidates,nested,paired,select,models]
        [--select TRAIN,TRIAL]

Scores are computed once per (scorer, file) and kept as JSON under ``--cache`` (default
/tmp/explorer-rte-transfer); delete the folder after changing a scorer. Rows: cutoff chosen
on A, applied to B, for RTE1 dev -> RTE2 dev, RTE2 dev -> RTE3 dev, RTE3 dev -> RTE3 test;
``why``, ``candidates``, ``nested`` and ``paired`` use the seven rows of
experiments/combined_rte.py (those three, all dev sets -> RTE3 test, and each dev set left out):

* ``why``: RTE1 dev task by task (bag-of-words against ``manli``, cutoffs from RTE2+3 dev);
* ``candidates``: a small fixed family of MANLI-derived numbers (:data:`CANDIDATES`) on
  the seven rows;
* ``nested``: the candidate chosen without one labelled set (on the rows among the other
  three), then tested on that set;
* ``paired``: ``manli`` minus bag-of-words on each row, with a paired bootstrap interval;
* ``select``: the candidate chosen on a selection set disjoint from every RTE row
  (``--select TRAIN,TRIAL``: cutoff on TRAIN, accuracy then AUC on TRIAL), and its seven rows;
* ``models``: the shipped ``manli`` number computed over each shipped MANLI alignment model
  (``msr``, the scorer's, and ``msr_edi``), on the seven rows.

Prints Markdown tables (docs/RESULTS.md, "Entailment decisions across sets"; the numbers
not kept: docs/experiments.md, "The `manli` score").
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from experiments.common import (
    FILES,
    PROTOCOLS,
    SHIPPED,
    aligned_credit,
    auc,
    cached_scores,
    idf_weight,
    manli_parts,
    manli_tokens,
    rte_row_label,
    similarity_credit,
    unit_weight,
    weighted,
)
from explorer.datasets import load
from explorer.decision.evaluation import score_pairs
from explorer.decision.rules import (
    CUTOFF_RULES,
    DEFAULT_RULE,
    bootstrap_transfer,
    choose_cutoff,
    paired_difference,
    transfer,
)
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair
from explorer.scorers import SCORERS

ROWS = (("rte1_dev", "rte2_dev"), ("rte2_dev", "rte3_dev"), ("rte3_dev", "rte3_test"))


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


# -- can another MANLI number close RTE1? ------------------------------------------------

def _identity_coverage(row: dict) -> float:
    """Probe: the shipped number, but a content word counts only when its link's lexical
    similarity is 1 (identical word or lemma, equal number or name), not for a related word."""
    return weighted(row, unit_weight, lambda r, j: 1.0 if r["aligned"][j] and r["link_sim"][j] >= 1.0 - 1e-9 else 0.0) \
        + 0.1 * row["side"]


def _bow_on_links(row: dict, best: bool = False) -> float:
    import math

    sims = row["best_sim"] if best else row["link_sim"]
    return sum(w * math.log(max(s, 0.01)) for w, s in zip(row["idf"], sims)) / max(len(sims), 1)


#: The candidate numbers, fixed before the nested choice: who counts (every content word
#: alike, or by its Brown idf, as bag-of-words weighs words), how much an aligned word
#: counts (1, or its link's lexical similarity), with or without the hypothesis side as
#: a tie-break, and bag-of-words' own formula over MANLI's links.
CANDIDATES = {
    "coverage + 0.1 x side (shipped)": lambda r: weighted(r, unit_weight, aligned_credit) + 0.1 * r["side"],
    "coverage": lambda r: weighted(r, unit_weight, aligned_credit),
    "idf-weighted coverage + 0.1 x side": lambda r: weighted(r, idf_weight, aligned_credit) + 0.1 * r["side"],
    "similarity-weighted coverage + 0.1 x side": lambda r: weighted(r, unit_weight, similarity_credit) + 0.1 * r["side"],
    "idf x similarity coverage + 0.1 x side": lambda r: weighted(r, idf_weight, similarity_credit) + 0.1 * r["side"],
    "bag-of-words formula on MANLI's links": _bow_on_links,
}


def _series(cache: Path, fn) -> dict[str, tuple[np.ndarray, np.ndarray]]:  # type: ignore[no-untyped-def]
    out = {}
    for name in FILES:
        rows = manli_tokens(cache, name)
        out[name] = (np.array([fn(r) for r in rows], dtype=float), np.array([r["gold"] for r in rows], dtype=bool))
    return out


def _rows_accuracy(series: dict[str, tuple[np.ndarray, np.ndarray]], rows=PROTOCOLS) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Accuracy on each row's target with the cutoff chosen (default rule) on its training sets."""
    out = []
    for train, target in rows:
        s = np.concatenate([series[f][0] for f in train])
        g = np.concatenate([series[f][1] for f in train])
        cut = choose_cutoff(s, g, DEFAULT_RULE)
        out.append(float(np.mean((series[target][0] > cut) == series[target][1])))
    return np.array(out)


def _bow_series(cache: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {f: cached_scores(cache, "bow", f) for f in FILES}


def why(cache: Path) -> None:
    """RTE1 dev task by task: where ``manli`` loses to bag-of-words."""
    rows = manli_tokens(cache, "rte1_dev")
    bow = _bow_series(cache)
    manli = _series(cache, CANDIDATES[SHIPPED_CANDIDATE])
    probe = _series(cache, lambda r: _bow_on_links(r, best=True))
    identity = _series(cache, _identity_coverage)
    train = ("rte2_dev", "rte3_dev")
    cuts = {}
    for label, series in (("bow", bow), ("manli", manli)):
        s = np.concatenate([series[f][0] for f in train])
        g = np.concatenate([series[f][1] for f in train])
        cuts[label] = choose_cutoff(s, g, DEFAULT_RULE)
    gold = bow["rte1_dev"][1]
    tasks = np.array([r["task"] for r in rows])
    b = bow["rte1_dev"][0] > cuts["bow"]
    m = manli["rte1_dev"][0] > cuts["manli"]
    print("\n### RTE1 dev task by task, cutoffs chosen on RTE2 + RTE3 dev (`midpoint`)\n")
    print("accuracy bow / manli; share called entailed bow / manli; AUC bow / manli / "
          "bag-of-words formula with MANLI's lexical similarity (best match anywhere) / "
          "coverage counting only links of similarity 1 (probes, not candidates)\n")
    print("| task | pairs | entailed | accuracy | called entailed | AUC | bow right, manli wrong (gold no / yes) "
          "| manli right, bow wrong (gold no / yes) |")
    print("|---|---|---|---|---|---|---|---|")
    for task in [*sorted(set(tasks)), "all"]:
        k = np.ones(len(tasks), bool) if task == "all" else tasks == task
        lost = (b == gold) & (m != gold) & k
        won = (m == gold) & (b != gold) & k
        print(f"| {task} | {k.sum()} | {pct(gold[k].mean())} | {pct(np.mean(b[k] == gold[k]))} / "
              f"{pct(np.mean(m[k] == gold[k]))} | {pct(b[k].mean())} / {pct(m[k].mean())} | "
              f"{auc(bow['rte1_dev'][0][k], gold[k]):.3f} / {auc(manli['rte1_dev'][0][k], gold[k]):.3f} / "
              f"{auc(probe['rte1_dev'][0][k], gold[k]):.3f} / {auc(identity['rte1_dev'][0][k], gold[k]):.3f} | "
              f"{(lost & ~gold).sum()} / {(lost & gold).sum()} | {(won & ~gold).sum()} / {(won & gold).sum()} |")
    accs = _rows_accuracy(identity)
    print("\nThe identity-only coverage probe on the seven rows (as in `candidates`): "
          + " / ".join(pct(a) for a in accs) + f" (mean {pct(accs.mean())})")
    print("\nThe pairs the two decide differently, and the rest (means per pair; the lexical layer's "
          "number and negation checks as in the combined classifier):\n")
    print("| pairs | n | gold entailed | hypothesis tokens | unaligned content words | unaligned names "
          "| hypothesis numbers not in the text | negation on one side only |")
    print("|---|---|---|---|---|---|---|---|")
    groups = (("bow right, manli wrong", (b == gold) & (m != gold)), ("manli right, bow wrong", (m == gold) & (b != gold)),
              ("both right", (m == gold) & (b == gold)), ("both wrong", (m != gold) & (b != gold)))
    for label, k in groups:
        picked = [r for r, x in zip(rows, k) if x]
        mean = {key: float(np.mean([float(r[key]) for r in picked])) if picked else float("nan")
                for key in ("h_len", "unaligned_names", "number_mismatch", "negation_mismatch")}
        unaligned = float(np.mean([sum(not r["aligned"][j] for j in r["content"]) for r in picked])) if picked else float("nan")
        print(f"| {label} | {k.sum()} | {pct(gold[k].mean())} | {mean['h_len']:.1f} | {unaligned:.2f} | "
              f"{mean['unaligned_names']:.2f} | {mean['number_mismatch']:.2f} | {mean['negation_mismatch']:.2f} |")
    print("\nContent coverage of entailed / non-entailed pairs, per set:\n")
    print("| set | coverage, entailed | coverage, not entailed | AUC bow | AUC manli |")
    print("|---|---|---|---|---|")
    cov = _series(cache, CANDIDATES["coverage"])
    for name in FILES:
        c, g = cov[name]
        print(f"| {name} | {c[g].mean():.3f} | {c[~g].mean():.3f} | {auc(*bow[name]):.3f} | {auc(*manli[name]):.3f} |")


SHIPPED_CANDIDATE = "coverage + 0.1 x side (shipped)"


def candidates(cache: Path) -> None:
    bow = _rows_accuracy(_bow_series(cache))
    print("\n### MANLI candidates on the seven rows (cutoff `midpoint` on the training sets), accuracy %\n")
    print("| number | " + " | ".join(rte_row_label(*r) for r in PROTOCOLS) + " | mean | worst margin over bow | AUC RTE1 / 2 / 3 dev / 3 test |")
    print("|---|" + "---|" * (len(PROTOCOLS) + 3))
    print("| bag-of-words | " + " | ".join(pct(a) for a in bow) + f" | {pct(bow.mean())} | +0.0 | "
          + " / ".join(f"{auc(*v):.3f}" for v in _bow_series(cache).values()) + " |")
    for label, fn in CANDIDATES.items():
        series = _series(cache, fn)
        accs = _rows_accuracy(series)
        print(f"| {label} | " + " | ".join(pct(a) for a in accs) + f" | {pct(accs.mean())} | "
              f"{100 * (accs - bow).min():+.1f} | " + " / ".join(f"{auc(*v):.3f}" for v in series.values()) + " |")
    shipped = _series(cache, CANDIDATES[SHIPPED_CANDIDATE])
    drift = max(float(np.abs(shipped[f][0] - np.array([r["value"] for r in manli_tokens(cache, f)])).max()) for f in FILES)
    print(f"\n(The shipped candidate reproduces the `manli` scorer's value to {drift:.1e}.)")


def _choose(cache: Path, rows) -> tuple[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """The candidate with the best (worst margin over bag-of-words capped at 0, mean accuracy)."""
    bow = _rows_accuracy(_bow_series(cache), rows)
    best = None
    for label, fn in CANDIDATES.items():
        accs = _rows_accuracy(_series(cache, fn), rows)
        key = (min(0.0, float((accs - bow).min())), float(accs.mean()))
        if best is None or key > best[0]:
            best = (key, label, accs)
    assert best is not None
    return best[1], best[2]


def nested(cache: Path) -> None:
    print("\n### The candidate chosen without the set it is tested on (nested), accuracy %\n")
    print("Inner rows: each of the other three sets left out in turn, cutoff chosen on the two "
          "remaining; rule: no row below bag-of-words if possible, then the best mean. Outer: "
          "cutoff chosen on the other three sets, applied to the kept-out set.\n")
    print("| kept out | chosen without it | chosen number on it | bow | shipped `manli` |")
    print("|---|---|---|---|---|")
    bow_series = _bow_series(cache)
    shipped = _series(cache, CANDIDATES[SHIPPED_CANDIDATE])
    for kept in FILES:
        rest = tuple(f for f in FILES if f != kept)
        inner = tuple((tuple(s for s in rest if s != held), held) for held in rest)
        label, _ = _choose(cache, inner)
        outer = ((rest, kept),)
        chosen = _rows_accuracy(_series(cache, CANDIDATES[label]), outer)[0]
        print(f"| {kept} | {label} | {pct(chosen)} | {pct(_rows_accuracy(bow_series, outer)[0])} | "
              f"{pct(_rows_accuracy(shipped, outer)[0])} |", flush=True)
    label, accs = _choose(cache, PROTOCOLS)
    print(f"\nChosen on all seven rows (not nested): {label}: " + " / ".join(pct(a) for a in accs))


def paired(cache: Path, resamples: int) -> None:
    """``manli`` minus bag-of-words on each row, with a paired bootstrap over the target's pairs."""
    print(f"\n### `manli` minus bag-of-words, paired bootstrap over the target's pairs ({resamples} resamples, 95%)\n")
    print("| row | bow | manli | difference [interval] |")
    print("|---|---|---|---|")
    bow = _bow_series(cache)
    manli = _series(cache, CANDIDATES[SHIPPED_CANDIDATE])
    for train, target in PROTOCOLS:
        right = {}
        for label, series in (("bow", bow), ("manli", manli)):
            s = np.concatenate([series[f][0] for f in train])
            g = np.concatenate([series[f][1] for f in train])
            right[label] = (series[target][0] > choose_cutoff(s, g, DEFAULT_RULE)) == series[target][1]
        d = paired_difference(right["manli"], right["bow"], resamples=resamples)
        print(f"| {rte_row_label(train, target)} | {pct(right['bow'].mean())} | {pct(right['manli'].mean())} | "
              f"{100 * d.difference:+.1f} [{100 * d.low:+.1f}, {100 * d.high:+.1f}] |")


def select(cache: Path, train: Path, trial: Path) -> None:
    """A selection set disjoint from every RTE row (e.g. SICK): each candidate's cutoff
    (``midpoint``) chosen on ``train``, its accuracy and AUC on ``trial``; the pick is the
    best accuracy, then AUC, then the table's order. Then the pick's seven RTE rows."""
    sets = {}
    for path in (train, trial):
        rows = manli_tokens(cache, path.stem, path)
        sets[path.stem] = rows
    gold = {k: np.array([r["gold"] for r in rows], dtype=bool) for k, rows in sets.items()}
    print(f"\n### MANLI candidates chosen on a disjoint selection set: cutoff on {train.stem} "
          f"({len(gold[train.stem])} pairs), accuracy / AUC on {trial.stem} ({len(gold[trial.stem])} pairs)\n")
    print("| number | cutoff | accuracy on trial | AUC on trial |")
    print("|---|---|---|---|")
    best = None
    for order, (label, fn) in enumerate(CANDIDATES.items()):
        a = np.array([fn(r) for r in sets[train.stem]], dtype=float)
        b = np.array([fn(r) for r in sets[trial.stem]], dtype=float)
        cut = choose_cutoff(a, gold[train.stem], DEFAULT_RULE)
        acc = float(np.mean((b > cut) == gold[trial.stem]))
        area = auc(b, gold[trial.stem])
        print(f"| {label} | {cut:.3f} | {pct(acc)} | {area:.3f} |")
        key = (acc, area, -order)
        if best is None or key > best[0]:
            best = (key, label)
    assert best is not None
    a, b = (score_pairs(load(path).pairs, "bow") for path in (train, trial))
    cut = choose_cutoff(a, gold[train.stem], DEFAULT_RULE)
    print(f"| bag-of-words (for reference, not a candidate) | {cut:.3f} | "
          f"{pct(float(np.mean((b > cut) == gold[trial.stem])))} | {auc(b, gold[trial.stem]):.3f} |")
    bow = _rows_accuracy(_bow_series(cache))
    accs = _rows_accuracy(_series(cache, CANDIDATES[best[1]]))
    print(f"\nPicked: {best[1]}. Its seven RTE rows (cutoff on each row's RTE training sets): "
          + " / ".join(pct(a) for a in accs) + f" (mean {pct(accs.mean())}); bag-of-words "
          + " / ".join(pct(a) for a in bow) + f"; worst margin {100 * (accs - bow).min():+.1f}; "
          f">= bow on all seven: {bool((accs >= bow).all())}")


def alignment_models(cache: Path) -> None:
    """The ``manli`` scorer's number over each shipped MANLI model's alignments, seven rows."""
    from explorer.aligners.manli import SHIPPED_MODELS, ManliAligner, ManliScorer

    bow = _rows_accuracy(_bow_series(cache))
    print("\n### The `manli` number over each shipped alignment model (cutoff `midpoint` on each row's training sets)\n")
    print("| model | " + " | ".join(rte_row_label(*r) for r in PROTOCOLS) + " | mean | worst margin over bow |")
    print("|---|" + "---|" * (len(PROTOCOLS) + 2))
    print("| bag-of-words | " + " | ".join(pct(a) for a in bow) + f" | {pct(bow.mean())} | +0.0 |")
    for model in SHIPPED_MODELS:
        scorer = ManliScorer(ManliAligner().with_model(model))

        def score(pairs: Sequence[Pair], scorer: ManliScorer = scorer) -> list[float]:
            return [scorer.score(analyze_pair(p)).value for p in pairs]

        accs = _rows_accuracy({name: cached_scores(cache, f"manli-model-{model}", name, score) for name in FILES})
        print(f"| {model} | " + " | ".join(pct(a) for a in accs)
              + f" | {pct(accs.mean())} | {100 * (accs - bow).min():+.1f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/explorer-rte-transfer"))
    parser.add_argument("--scorers", default="all")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--only", default="table,rules,manli,bootstrap")
    parser.add_argument("--select", default="",
                        help="`select`: TRAIN,TRIAL labelled files disjoint from RTE (e.g. SICK train and trial)")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    # The shipped combined classifier is trained on every dev set: its rows would be in-sample
    # (experiments/combined_rte.py trains it on A only instead).
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
    if "why" in wanted:
        why(args.cache)
    if "candidates" in wanted:
        candidates(args.cache)
    if "nested" in wanted:
        nested(args.cache)
    if "paired" in wanted:
        paired(args.cache, min(args.resamples * 2, 5000))
    if "select" in wanted:
        train, trial = (Path(p) for p in args.select.split(","))
        select(args.cache, train, trial)
    if "models" in wanted:
        alignment_models(args.cache)


if __name__ == "__main__":
    main()

"""The combined entailment classifier across RTE sets: model, regularisation and features
chosen by cross-set transfer.

    NLTK_DATA=../shared/nltk_data .venv/bin/python -m experiments.combined_rte [--cache DIR]
        [--only models,features,search,nested,honest,extra,extra_why,final] [--save explorer/models/combined_rte.json]
        [--extra FILE,FILE]

Rows (train -> test): RTE1 dev -> RTE2 dev, RTE2 dev -> RTE3 dev, RTE3 dev -> RTE3 test,
RTE1+2+3 dev -> RTE3 test, and each dev set left out (trained on the two others):
RTE2+3 -> RTE1 dev, RTE1+3 -> RTE2 dev, RTE1+2 -> RTE3 dev. ``search`` chooses the
feature set and C on all seven rows at once (every subset of :data:`POOL` up to five
features: first no row below bag-of-words, then the best mean); ``nested`` repeats that
choice with one labelled set kept out of every row and reports the chosen model on it
(an honest estimate of the choice itself). ``honest`` is the headline: the shipped
features fixed, only C chosen on the rows without the kept-out set, beside a unit-weight
sum with nothing chosen, with paired bootstrap intervals against bag-of-words. ``extra``
adds the labelled files of ``--extra`` (e.g. SICK) to every row's *training* data and
chooses, nested like ``honest``, among C x their weighting x two feature sets
(docs/experiments.md, "Combined classifier"). Features are computed once per file and kept under
``--cache`` (default /tmp/explorer-rte-transfer, shared with experiments/rte_transfer.py).
The classifier decides at probability 0.5 (no cutoff tuning); bag-of-words with its
cutoff chosen on the training set is the baseline row. Prints Markdown.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from experiments.common import (
    FILES,
    PROTOCOLS,
    auc,
    file_features,
    manli_tokens,
    matrix,
    similarity_credit,
    unit_weight,
    weighted,
)
from explorer import combined
from explorer.decision.rules import DEFAULT_RULE, choose_cutoff

#: Candidate features of ``search`` and ``nested``, picked by hand: bag-of-words, MANLI's
#: value and the alignment features with the largest AUC (either way) on the RTE sets,
#: some BLEU / NIST variants, the earlier default's members, and the static-embedding
#: sentence cosine (``scorer:embed``).
POOL: tuple[str, ...] = (
    "scorer:bow", "scorer:manli", "scorer:mbleu", "scorer:bleu_pa", "scorer:nist3", "scorer:bleu4",
    "scorer:itg", "manli:coverage", "manli:unaligned_idf", "manli:unaligned_names", "lex:number_mismatch",
    "manli:problem_score", "manli:hyp_score", "scorer:bleu1", "scorer:embed",
)
SEARCH_C: tuple[float, ...] = (0.03, 0.1, 0.3)

#: The default before the all-rows choice (chosen on the first four rows only).
EARLIER_DEFAULT: tuple[str, ...] = (
    "scorer:manli", "scorer:bow", "scorer:itg", "manli:problem_score",
    "manli:unaligned_names", "lex:number_mismatch",
)


def make(kind: str, c: float):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if kind == "logistic-l2":
        return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))
    if kind == "logistic-l1":
        return make_pipeline(StandardScaler(), LogisticRegression(C=c, penalty="l1", solver="liblinear", max_iter=5000))
    if kind == "svm-rbf":
        return make_pipeline(StandardScaler(), SVC(C=c, kernel="rbf", gamma="scale"))
    if kind == "svm-linear":
        return make_pipeline(StandardScaler(), SVC(C=c, kernel="linear"))
    raise ValueError(kind)


def run(data, names: Sequence[str], kind: str, c: float, rows=PROTOCOLS) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for train_files, test_file in rows:
        x, y = matrix(data, train_files, names)
        xt, yt = matrix(data, (test_file,), names)
        model = make(kind, c).fit(x, y)
        out.append(float(np.mean(model.predict(xt) == yt)))
    return out


def bow_rows(data, rows=PROTOCOLS, scorer: str = "scorer:bow") -> list[float]:  # type: ignore[no-untyped-def]
    """A thresholded scorer (default bag-of-words), its cutoff chosen on train by the default rule."""
    out = []
    for train_files, test_file in rows:
        x, y = matrix(data, train_files, (scorer,))
        xt, yt = matrix(data, (test_file,), (scorer,))
        cut = choose_cutoff(x[:, 0], y, DEFAULT_RULE)
        out.append(float(np.mean((xt[:, 0] > cut) == yt)))
    return out


def header() -> str:
    cols = [f"RTE{'+'.join(f[3] for f in a)} dev -> {b.replace('rte', 'RTE').replace('_', ' ')}" for a, b in PROTOCOLS]
    return ("| " + " | ".join(cols) + f" | mean of {len(cols)} | worst margin over bow |\n|"
            + "---|" * (len(cols) + 2))


_BOW: list[float] = []


def cells(accs: list[float]) -> str:
    margin = min(a - b for a, b in zip(accs, _BOW)) if len(_BOW) == len(accs) else float("nan")
    return (" | ".join(f"{100 * a:.1f}" for a in accs) + f" | {100 * float(np.mean(accs)):.2f}"
            + f" | {100 * margin:+.1f}")


def fit_logistic(x: np.ndarray, y: np.ndarray, c: float, sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The same fit as scikit-learn's ``LogisticRegression(C=c)`` (L2 on the weights, free
    intercept; ``sample_weight`` as scikit-learn's, each pair's loss times its weight) by
    Newton's method: the search below makes ~100,000 small fits."""
    n, d = x.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    design = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, 1.0 / c)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        grad = design.T @ (sw * (p - y)) + penalty * w
        hess = (design * (sw * p * (1 - p))[:, None]).T @ design + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def fast_rows(data, names: Sequence[str], c: float, rows=PROTOCOLS) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Accuracy of the standardised L2 logistic regression on each row (decision at 1/2)."""
    out = []
    for train_files, test_file in rows:
        x, y = matrix(data, train_files, names)
        xt, yt = matrix(data, (test_file,), names)
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale == 0] = 1.0
        w, b = fit_logistic((x - mean) / scale, y.astype(float), c)
        out.append(float(np.mean(((xt - mean) / scale @ w + b > 0) == yt)))
    return np.array(out)


def choose(data, rows, pool: Sequence[str] = POOL, grid: Sequence[float] = SEARCH_C,  # type: ignore[no-untyped-def]
           largest: int = 5) -> list[tuple[tuple[float, float], tuple[str, ...], float, np.ndarray]]:
    """Every subset of ``pool`` (up to ``largest`` features) x C on ``rows``, best first by
    (worst margin over bag-of-words capped at 0, mean accuracy)."""
    import itertools

    bow = np.array(bow_rows(data, rows))
    out = []
    for k in range(1, largest + 1):
        for subset in itertools.combinations(pool, k):
            for c in grid:
                accs = fast_rows(data, subset, c, rows)
                out.append(((min(0.0, float((accs - bow).min())), float(accs.mean())), subset, c, accs))
    out.sort(key=lambda t: t[0], reverse=True)
    return out


def search(data) -> None:  # type: ignore[no-untyped-def]
    print(f"\n### Feature set and C chosen on all {len(PROTOCOLS)} rows (every subset of {len(POOL)} "
          f"candidates up to 5 features, C in {', '.join(f'{c:g}' for c in SEARCH_C)}), accuracy %\n")
    print("| features | C " + header().replace("|---", "|---|---|---", 1))
    print(f"| bag-of-words, cutoff on train | – | {cells(bow_rows(data))} |")
    print(f"| manli, cutoff on train | – | {cells(bow_rows(data, scorer='scorer:manli'))} |")
    print(f"| earlier default ({len(EARLIER_DEFAULT)} features) | 0.03 | {cells(list(fast_rows(data, EARLIER_DEFAULT, 0.03)))} |")
    ranked = choose(data, PROTOCOLS)
    matching = sum(key[0] >= 0 for key, *_ in ranked)
    for _key, subset, c, accs in ranked[:12]:
        print(f"| {', '.join(subset)} | {c:g} | {cells(list(accs))} |", flush=True)
    print(f"\n{len(ranked)} configurations; {matching} match bag-of-words on every row.")


def nested(data) -> None:  # type: ignore[no-untyped-def]
    """The choice of ``search`` made without one labelled set, applied to it."""
    sets = FILES
    print("\n### The choice itself on an unseen set (nested), accuracy %\n")
    print("| kept out | chosen without it (features, C) | chosen model on it | bow | manli | earlier default |")
    print("|---|---|---|---|---|---|")
    for kept_out in sets:
        rest = tuple(s for s in sets if s != kept_out)
        inner = tuple((tuple(s for s in rest if s != held), held) for held in rest)
        _, subset, c, _ = choose(data, inner)[0]
        outer = ((rest, kept_out),)
        print(f"| {kept_out} | {', '.join(subset)}; {c:g} | {100 * fast_rows(data, subset, c, outer)[0]:.1f} | "
              f"{100 * bow_rows(data, outer)[0]:.1f} | {100 * bow_rows(data, outer, 'scorer:manli')[0]:.1f} | "
              f"{100 * fast_rows(data, EARLIER_DEFAULT, 0.03, outer)[0]:.1f} |", flush=True)


#: C values the ``honest`` protocol chooses among (on the inner rows only).
HONEST_C: tuple[float, ...] = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
#: Unit-weight sum of standardised features (a sign each, nothing fitted but the cutoff):
#: the two scorers that transfer best alone, and the same with MANLI's unaligned names.
UNIT_SUMS: tuple[tuple[tuple[str, ...], tuple[float, ...]], ...] = (
    (("scorer:bow", "scorer:manli"), (1.0, 1.0)),
    (("scorer:bow", "scorer:manli", "manli:unaligned_names"), (1.0, 1.0, -1.0)),
)


def _predict_logistic(data, names, c, train_files, test_file,  # type: ignore[no-untyped-def]
                      extras: Sequence[str] = (), weighting: str = "none"):
    """Which target pairs the standardised L2 logistic regression gets right; ``extras``
    join the training sets with ``weighting`` (:data:`EXTRA_WEIGHTINGS`), and the
    standardisation uses the fit's own weights (weighted mean and spread)."""
    x, y = matrix(data, train_files, names)
    sw = np.ones(len(y))
    if weighting != "none" and extras:
        xe, ye = matrix(data, extras, names)
        each = 1.0 if weighting == "pooled" else len(y) / len(ye)
        x, y = np.vstack([x, xe]), np.concatenate([y, ye])
        sw = np.concatenate([sw, np.full(len(ye), each)])
    xt, yt = matrix(data, (test_file,), names)
    mean = np.average(x, axis=0, weights=sw)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=sw))
    scale[scale == 0] = 1.0
    w, b = fit_logistic((x - mean) / scale, y.astype(float), c, sw)
    return ((xt - mean) / scale @ w + b > 0) == yt


def _predict_unit(data, names, signs, train_files, test_file):  # type: ignore[no-untyped-def]
    x, y = matrix(data, train_files, names)
    xt, yt = matrix(data, (test_file,), names)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z, zt = ((x - mean) / scale) @ np.array(signs), ((xt - mean) / scale) @ np.array(signs)
    return (zt > choose_cutoff(z, y, DEFAULT_RULE)) == yt


def _predict_cutoff(data, scorer, train_files, test_file):  # type: ignore[no-untyped-def]
    x, y = matrix(data, train_files, (scorer,))
    xt, yt = matrix(data, (test_file,), (scorer,))
    return (xt[:, 0] > choose_cutoff(x[:, 0], y, DEFAULT_RULE)) == yt


def _interval(right, bow_right) -> str:  # type: ignore[no-untyped-def]
    from explorer.decision.rules import paired_difference

    d = paired_difference(right, bow_right, resamples=2000)
    return f"{100 * d.difference:+.1f} [{100 * d.low:+.1f}, {100 * d.high:+.1f}]"


def honest(data, names: Sequence[str]) -> None:  # type: ignore[no-untyped-def]
    """The headline: features fixed (``names``), C chosen on the inner rows only; each set
    kept out of the choice and then tested; paired bootstrap against bag-of-words."""
    print(f"\n### Nested: features fixed ({', '.join(names)}), C chosen without the kept-out set, accuracy %\n")
    print("Inner rows: each of the other three sets left out in turn (trained on the two remaining); "
          f"C in {', '.join(f'{c:g}' for c in HONEST_C)}; rule: no row below bag-of-words if possible, "
          "then the best mean. Outer: trained on the other three sets, tested on the kept-out one. "
          "Differences against bag-of-words (cutoff on the same three sets) with a paired bootstrap "
          "over the kept-out set's pairs (2,000 resamples, 95%).\n")
    unit_labels = ["unit sum " + " ".join(("+ " if s > 0 else "- ") + n.split(":")[1] for n, s in zip(ns, ss)).lstrip("+ ")
                   for ns, ss in UNIT_SUMS]
    print("| kept out | C chosen | combined | bow | manli | combined - bow | "
          + " | ".join(f"{u} (- bow)" for u in unit_labels) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(UNIT_SUMS))
    for kept in FILES:
        rest = tuple(f for f in FILES if f != kept)
        inner = tuple((tuple(s for s in rest if s != held), held) for held in rest)
        bow_inner = np.array(bow_rows(data, inner))
        best = max(HONEST_C, key=lambda c: (min(0.0, float((fast_rows(data, names, c, inner) - bow_inner).min())),
                                            float(fast_rows(data, names, c, inner).mean())))
        right = _predict_logistic(data, names, best, rest, kept)
        bow_right = _predict_cutoff(data, "scorer:bow", rest, kept)
        manli_right = _predict_cutoff(data, "scorer:manli", rest, kept)
        units = [_predict_unit(data, ns, ss, rest, kept) for ns, ss in UNIT_SUMS]
        print(f"| {kept} | {best:g} | {100 * right.mean():.1f} | {100 * bow_right.mean():.1f} | "
              f"{100 * manli_right.mean():.1f} | {_interval(right, bow_right)} | "
              + " | ".join(f"{100 * u.mean():.1f} ({_interval(u, bow_right)})" for u in units) + " |", flush=True)
    bow_inner = np.array(bow_rows(data))
    best = max(HONEST_C, key=lambda c: (min(0.0, float((fast_rows(data, names, c) - bow_inner).min())),
                                        float(fast_rows(data, names, c).mean())))
    print(f"\nThe same rule on all seven rows (not nested) chooses C = {best:g}. "
          "The seven rows, not nested, each with the paired interval against bag-of-words:\n")
    print("| method | " + " | ".join(header().split(" | ")[0:len(PROTOCOLS)]).lstrip("| ") + " |")
    print("|---|" + "---|" * len(PROTOCOLS))
    methods = [(f"combined, C = {best:g}", lambda a, b: _predict_logistic(data, names, best, a, b))]
    methods += [(u, lambda a, b, ns=ns, ss=ss: _predict_unit(data, ns, ss, a, b)) for u, (ns, ss) in zip(unit_labels, UNIT_SUMS)]
    methods += [("manli, cutoff", lambda a, b: _predict_cutoff(data, "scorer:manli", a, b))]
    for label, predict in methods:
        row = []
        for train_files, test_file in PROTOCOLS:
            right = predict(train_files, test_file)
            row.append(f"{100 * right.mean():.1f} ({_interval(right, _predict_cutoff(data, 'scorer:bow', train_files, test_file))})")
        print(f"| {label} | " + " | ".join(row) + " |", flush=True)
    print("| bow, cutoff | " + " | ".join(f"{100 * a:.1f}" for a in bow_rows(data)) + " |")


# -- more labelled training data (``--extra``) ---------------------------------------------

#: A MANLI feature sensitive to *which* word a hypothesis word is linked to, fixed before
#: any result with extra data was seen: the share of hypothesis content words (every token
#: when there is none) each credited with its MANLI link's lexical similarity (1 for an
#: identical word, less for a related one, 0 when unaligned). It is
#: ``experiments.rte_transfer``'s candidate "similarity-weighted coverage" without the
#: hypothesis-side tie-break (that is already in ``scorer:manli``). Bench-only: not in
#: :data:`combined.FEATURES`.
SIMILARITY_COVERAGE = "manli:similarity_coverage"
#: How the extra training pairs are weighted: not used; every pair weight 1; down-weighted
#: so that their total weight equals the RTE training pairs' (one weight per row).
EXTRA_WEIGHTINGS: tuple[str, ...] = ("none", "pooled", "equal total")


def similarity_coverage(cache: Path, name: str, source: Path | None = None) -> np.ndarray:
    """:data:`SIMILARITY_COVERAGE` for every pair of one file (from the cached MANLI records)."""
    return np.array([weighted(r, unit_weight, similarity_credit) for r in manli_tokens(cache, name, source)], dtype=float)


def extra_name(path: Path) -> str:
    return path.stem


def weighted_rows(data, names: Sequence[str], c: float, rows, extras: Sequence[str],  # type: ignore[no-untyped-def]
                  weighting: str) -> list[np.ndarray]:
    """For each row, which target pairs the logistic regression gets right when ``extras``
    join the row's training sets with ``weighting`` (:func:`_predict_logistic`)."""
    return [_predict_logistic(data, names, c, train_files, test_file, extras, weighting)
            for train_files, test_file in rows]


def extra_grid(names_sets: Sequence[tuple[str, ...]]) -> list[tuple[tuple[str, ...], str, float]]:
    """The pre-registered grid, in its tie-break order: feature set, then weighting, then C."""
    return [(names, weighting, c) for names in names_sets for weighting in EXTRA_WEIGHTINGS for c in HONEST_C]


def choose_extra(data, rows, extras, grid):  # type: ignore[no-untyped-def]
    """The grid point with the best (worst margin over bag-of-words capped at 0, mean
    accuracy) on ``rows``; the first in grid order among equals."""
    bow = np.array(bow_rows(data, rows))
    best = None
    for point in grid:
        accs = np.array([r.mean() for r in weighted_rows(data, point[0], point[2], rows, extras, point[1])])
        key = (min(0.0, float((accs - bow).min())), float(accs.mean()))
        if best is None or key > best[0]:
            best = (key, point, accs)
    assert best is not None
    return best[1], best[2]


def _label(point) -> str:  # type: ignore[no-untyped-def]
    names, weighting, c = point
    extra = " + similarity coverage" if SIMILARITY_COVERAGE in names else ""
    return f"shipped three{extra}; extra data {weighting}; C = {c:g}"


def extra(data, extras: Sequence[str]) -> None:  # type: ignore[no-untyped-def]
    """More labelled training data (never tested on): the pre-registered grid chosen nested
    exactly like ``honest``, then on all seven rows, and the decision rule's verdict."""
    shipped = tuple(combined.DEFAULT_FEATURES)
    grid = extra_grid((shipped, (*shipped, SIMILARITY_COVERAGE)))
    sizes = ", ".join(f"{e} {len(data[e][1])} pairs ({100 * data[e][1].mean():.1f}% entailed)" for e in extras)
    print(f"\n### More training data: {sizes}\n")
    print(f"Grid ({len(grid)} points): features (shipped three; + {SIMILARITY_COVERAGE}) x extra-data weighting "
          f"({', '.join(EXTRA_WEIGHTINGS)}) x C ({', '.join(f'{c:g}' for c in HONEST_C)}). Chosen nested as `honest`: "
          "inner rows each of the other three RTE sets left out in turn (trained on the two remaining + the extra "
          "data), rule no row below bag-of-words if possible, then the best mean, first in grid order among equals. "
          "Bag-of-words' cutoff is chosen on the RTE training sets only.\n")
    print("| kept out | chosen without it | chosen on it | bow | combined - bow [95%] | "
          "current (`honest`: shipped three, no extra data, C chosen) | current - bow |")
    print("|---|---|---|---|---|---|---|")
    current_grid = extra_grid((shipped,))[:len(HONEST_C)]  # weighting "none": exactly `honest`
    new, old, wins = [], [], []
    for kept in FILES:
        rest = tuple(f for f in FILES if f != kept)
        inner = tuple((tuple(s for s in rest if s != held), held) for held in rest)
        point, _ = choose_extra(data, inner, extras, grid)
        outer = ((rest, kept),)
        right = weighted_rows(data, point[0], point[2], outer, extras, point[1])[0]
        bow_right = _predict_cutoff(data, "scorer:bow", rest, kept)
        now, _ = choose_extra(data, inner, extras, current_grid)
        now_right = weighted_rows(data, now[0], now[2], outer, extras, now[1])[0]
        new.append(right.mean())
        old.append(now_right.mean())
        wins.append(right.sum() >= bow_right.sum())
        print(f"| {kept} | {_label(point)} | {100 * right.mean():.1f} | {100 * bow_right.mean():.1f} | "
              f"{_interval(right, bow_right)} | {100 * now_right.mean():.1f} (C = {now[2]:g}) | "
              f"{_interval(now_right, bow_right)} |", flush=True)
    print(f"\nNested mean: {100 * np.mean(new):.2f} with the extra data's grid, {100 * np.mean(old):.2f} current.")
    ship = all(wins) and np.mean(new) >= np.mean(old)
    print(f"Decision rule (>= bow on all four kept-out sets: {all(wins)}; mean >= current: "
          f"{np.mean(new) >= np.mean(old)}): {'SHIP' if ship else 'do not ship'}.")
    point, _ = choose_extra(data, PROTOCOLS, extras, grid)
    print(f"\nOn all seven rows (not nested) the rule picks: {_label(point)}. Its seven rows, "
          "each with the paired interval against bag-of-words:\n")
    print("| method | " + " | ".join(header().split(" | ")[0:len(PROTOCOLS)]).lstrip("| ") + " |")
    print("|---|" + "---|" * len(PROTOCOLS))
    cells_ = []
    for (train_files, test_file), right in zip(PROTOCOLS, weighted_rows(data, point[0], point[2], PROTOCOLS, extras, point[1])):
        cells_.append(f"{100 * right.mean():.1f} ({_interval(right, _predict_cutoff(data, 'scorer:bow', train_files, test_file))})")
    print(f"| {_label(point)} | " + " | ".join(cells_) + " |")
    print("| bow, cutoff | " + " | ".join(f"{100 * a:.1f}" for a in bow_rows(data)) + " |")
    print("\nEvery grid point on the seven rows (not nested; for reading, not for choosing):\n")
    print("| grid point " + header().replace("|---", "|---|---", 1))
    for p_ in grid:
        accs = [r.mean() for r in weighted_rows(data, p_[0], p_[2], PROTOCOLS, extras, p_[1])]
        print(f"| {_label(p_)} | {cells(accs)} |", flush=True)


def extra_why(data, extras: Sequence[str], cache: Path, sources: dict[str, Path | None]) -> None:  # type: ignore[no-untyped-def]
    """Why the extra data does (not) help, read after the pre-registered choice and used for
    no choice: each kept-out set's accuracy, share called entailed and AUC (the ranking, free
    of the decision's intercept) at the shipped C, per weighting and feature set, and trained
    on the extra data alone; then, per file, how often a hypothesis content word is linked
    to a *related* (not identical) word, by gold label."""
    shipped = tuple(combined.DEFAULT_FEATURES)
    c = combined.DEFAULT_C
    print(f"\n### Why: accuracy / share called entailed / AUC on the kept-out set, C = {c:g} (diagnostic)\n")
    print("| kept out | features | " + " | ".join(EXTRA_WEIGHTINGS) + " | extra data alone |")
    print("|---|---|" + "---|" * (len(EXTRA_WEIGHTINGS) + 1))
    fitted: list[tuple[str, np.ndarray, float]] = []
    for kept in FILES:
        rest = tuple(f for f in FILES if f != kept)
        for names in (shipped, (*shipped, SIMILARITY_COVERAGE)):
            label = "+ similarity coverage" if SIMILARITY_COVERAGE in names else "shipped three"
            out = []
            for train, weighting in [*((rest, w) for w in EXTRA_WEIGHTINGS), (tuple(extras), "none")]:
                x, y = matrix(data, train, names)
                sw = np.ones(len(y))
                if weighting != "none":
                    xe, ye = matrix(data, extras, names)
                    x, y = np.vstack([x, xe]), np.concatenate([y, ye])
                    sw = np.concatenate([sw, np.full(len(ye), 1.0 if weighting == "pooled" else (len(y) - len(ye)) / len(ye))])
                xt, yt = matrix(data, (kept,), names)
                mean = np.average(x, axis=0, weights=sw)
                scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=sw))
                scale[scale == 0] = 1.0
                w, b = fit_logistic((x - mean) / scale, y.astype(float), c, sw)
                z = (xt - mean) / scale @ w + b
                if kept == "rte1_dev" and names == shipped:
                    fitted.append(("extra data alone" if train == tuple(extras) else weighting, w, b))
                out.append(f"{100 * np.mean((z > 0) == yt):.1f} / {100 * np.mean(z > 0):.1f} / {auc(z, yt):.3f}")
            print(f"| {kept} | {label} | " + " | ".join(out) + " |")
    print("\nThe fitted weights (standardised features) and intercepts, shipped three, RTE1 dev kept out:\n")
    print("| training | " + " | ".join(f"`{n}`" for n in shipped) + " | intercept |")
    print("|---|" + "---|" * (len(shipped) + 1))
    for label, w, b in fitted:
        print(f"| {label} | " + " | ".join(f"{v:+.2f}" for v in w) + f" | {b:+.2f} |")
    means = " / ".join(f"{name} {data[name][0]['manli:unaligned_names'].mean():.3f}" for name in sources)
    print(f"\nMean unaligned hypothesis proper nouns per pair: {means}")
    print("\nHypothesis content words linked to a related, not identical, word (MANLI link similarity "
          "below 1), share per pair, mean by gold; AUC of its negative; AUC of the features:\n")
    print("| file | entailed | not entailed | AUC of -share | AUC bow / manli / similarity coverage |")
    print("|---|---|---|---|---|")
    for name, source in sources.items():
        rows = manli_tokens(cache, name, source)
        share = np.array([sum(r["aligned"][j] and r["link_sim"][j] < 1 - 1e-9 for j in r["content"])
                          / max(len(r["content"]), 1) for r in rows])
        gold = np.array([r["gold"] for r in rows], dtype=bool)
        cols, g = data[name]
        print(f"| {name} | {share[gold].mean():.3f} | {share[~gold].mean():.3f} | {auc(-share, gold):.3f} | "
              f"{auc(cols['scorer:bow'], g):.3f} / {auc(cols['scorer:manli'], g):.3f} / "
              f"{auc(cols[SIMILARITY_COVERAGE], g):.3f} |")
    rows = manli_tokens(cache, "rte1_dev")
    print("\nThe same share on RTE1 dev, task by task:\n")
    print("| task | pairs | entailed | not entailed | AUC of -share |")
    print("|---|---|---|---|---|")
    for task in sorted({str(r["task"]) for r in rows}):
        picked = [r for r in rows if str(r["task"]) == task]
        share = np.array([sum(r["aligned"][j] and r["link_sim"][j] < 1 - 1e-9 for j in r["content"])
                          / max(len(r["content"]), 1) for r in picked])
        gold = np.array([r["gold"] for r in picked], dtype=bool)
        print(f"| {task} | {len(picked)} | {share[gold].mean():.3f} | {share[~gold].mean():.3f} | {auc(-share, gold):.3f} |")


FAMILIES = {
    "scorers (fast MT/BLEU/bow)": [f for f in combined.FEATURES if f.startswith("scorer:") and f not in ("scorer:manli", "scorer:itg")],
    "+ manli, itg scorers": ["scorer:manli", "scorer:itg"],
    "+ MANLI alignment (manli:)": [f for f in combined.FEATURES if f.startswith("manli:")],
    "+ ITG inversions": ["itg:inversions"],
    "+ lexical mismatches (lex:)": [f for f in combined.FEATURES if f.startswith("lex:")],
    "+ lengths (len:)": [f for f in combined.FEATURES if f.startswith("len:")],
}


def models(data, names: Sequence[str]) -> None:  # type: ignore[no-untyped-def]
    print(f"\n### Model and regularisation ({len(names)} features), accuracy %\n")
    print("| model | C " + header().replace("|---", "|---|---|---", 1))
    print(f"| bag-of-words, cutoff `{DEFAULT_RULE}` on train | – | {cells(bow_rows(data))} |")
    print(f"| manli, cutoff `{DEFAULT_RULE}` on train | – | {cells(bow_rows(data, scorer='scorer:manli'))} |")
    for kind, grid in (("logistic-l2", (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 10.0)),
                       ("logistic-l1", (0.01, 0.03, 0.1, 0.3, 1.0)),
                       ("svm-linear", (0.003, 0.01, 0.1)),
                       ("svm-rbf", (0.1, 0.3, 1.0, 3.0))):
        for c in grid:
            print(f"| {kind} | {c:g} | {cells(run(data, names, kind, c))} |", flush=True)


def features(data, kind: str, c: float) -> None:  # type: ignore[no-untyped-def]
    print(f"\n### Feature families ({kind}, C={c:g}), accuracy %\n")
    print("| features | n " + header().replace("|---", "|---|---|---", 1))
    names: list[str] = []
    for label, family in FAMILIES.items():
        names += family
        print(f"| {label} | {len(names)} | {cells(run(data, names, kind, c))} |", flush=True)
    print(f"| **default** ({', '.join(combined.DEFAULT_FEATURES)}) | {len(combined.DEFAULT_FEATURES)} | "
          f"{cells(run(data, combined.DEFAULT_FEATURES, kind, c))} |")
    every = list(combined.FEATURES)
    for label, family in FAMILIES.items():
        kept = [n for n in every if n not in family]
        print(f"| all without {label.lstrip('+ ')} | {len(kept)} | {cells(run(data, kept, kind, c))} |", flush=True)
    alone = [f for f in combined.FEATURES if f.startswith(("manli:", "lex:", "itg:", "len:"))] + ["scorer:manli", "scorer:bow"]
    print(f"| alignment + lexical + bow, manli only | {len(alone)} | {cells(run(data, alone, kind, c))} |")


def forward(data, kind: str, c: float) -> None:  # type: ignore[no-untyped-def]
    """Greedy forward selection from MANLI + bag-of-words: add the feature that most
    raises mean accuracy + 0.5 x the smallest margin over bag-of-words on any protocol."""
    bow = bow_rows(data)

    def criterion(accs: list[float]) -> float:
        return float(np.mean(accs)) + 0.5 * min(a - b for a, b in zip(accs, bow))

    chosen = ["scorer:manli", "scorer:bow"]
    current = run(data, chosen, kind, c)
    print(f"\n### Forward selection ({kind}, C={c:g}), accuracy %\n")
    print("| step " + header().replace("|---", "|---|---", 1))
    print(f"| {' + '.join(chosen)} | {cells(current)} |")
    candidates = [f for f in combined.FEATURES if f not in chosen]
    while candidates:
        scored = [(criterion(accs), f, accs) for f in candidates for accs in [run(data, [*chosen, f], kind, c)]]
        best = max(scored, key=lambda t: t[0])
        if best[0] <= criterion(current):
            break
        chosen.append(best[1])
        candidates.remove(best[1])
        current = best[2]
        print(f"| + {best[1]} | {cells(current)} |", flush=True)


def heldout(data, c: float) -> None:  # type: ignore[no-untyped-def]
    """Proxies for the held-back RTE1/RTE2 tests: each dev set as the target, trained on the
    other two (leave one set out), and 10-fold over the target with the other two sets
    always in training (the shipped model sees the target's dev set)."""
    from sklearn.model_selection import StratifiedKFold

    dev = ("rte1_dev", "rte2_dev", "rte3_dev")
    every = tuple(combined.FEATURES)
    print(f"\n### Held-out set proxies (logistic L2, C={c:g}), accuracy %\n")
    print("| method | protocol | " + " | ".join(dev) + " |\n|---|---|---|---|---|")
    for label, names in (("combined, default", combined.DEFAULT_FEATURES), ("combined, all", every),
                         ("bow, cutoff", ("scorer:bow",)), ("manli, cutoff", ("scorer:manli",))):
        loso, folds = [], []
        for target in dev:
            others = [f for f in dev if f != target]
            x, y = matrix(data, others, names)
            xt, yt = matrix(data, (target,), names)

            def fit_predict(xa, ya, xb, names=names, label=label):  # type: ignore[no-untyped-def]
                if label.startswith("combined"):
                    return combined.train(xa, ya, names, c=c).decision(xb) > 0
                return xb[:, 0] > choose_cutoff(xa[:, 0], ya, DEFAULT_RULE)

            loso.append(float(np.mean(fit_predict(x, y, xt) == yt)))
            predicted = np.zeros(len(yt), dtype=bool)
            for tr, te in StratifiedKFold(10, shuffle=True, random_state=0).split(xt, yt):
                predicted[te] = fit_predict(np.vstack([x, xt[tr]]), np.concatenate([y, yt[tr]]), xt[te])
            folds.append(float(np.mean(predicted == yt)))
        print(f"| {label} | other two sets -> this | " + " | ".join(f"{100 * a:.1f}" for a in loso) + " |")
        print(f"| {label} | other two + 9/10 of this, 10-fold | " + " | ".join(f"{100 * a:.1f}" for a in folds) + " |",
              flush=True)


def final(data, names: Sequence[str], c: float, save: Path | None) -> None:  # type: ignore[no-untyped-def]
    print(f"\n### Shipped model: logistic L2, C={c:g}, {len(names)} features\n")
    print(header())
    accs = []
    for train_files, test_file in PROTOCOLS:
        x, y = matrix(data, train_files, names)
        xt, yt = matrix(data, (test_file,), names)
        model = combined.train(x, y, names, c=c)
        accs.append(float(np.mean((model.decision(xt) > 0) == yt)))
    print("| " + cells(accs) + " |")
    if save is not None:
        train_files = ("rte1_dev", "rte2_dev", "rte3_dev")
        x, y = matrix(data, train_files, names)
        model = combined.train(x, y, names, c=c, info={
            "trained_on_files": list(train_files),
            "chosen_by": "cross-set transfer, experiments.combined_rte (docs/RESULTS.md)",
            "transfer_accuracy": {f"{'+'.join(a)}->{b}": round(v, 4) for (a, b), v in zip(PROTOCOLS, accs)},
        })
        model.save(save)
        print(f"\nSaved {save} (trained on {', '.join(train_files)}: {len(y)} pairs).")
        print("\nLargest weights (standardised features):\n")
        for k in np.argsort(-np.abs(model.weights))[:12]:
            print(f"- `{model.features[k]}`: {model.weights[k]:+.3f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/explorer-rte-transfer"))
    parser.add_argument("--only", default="models,features,final")
    parser.add_argument("--kind", default="logistic-l2")
    parser.add_argument("--c", type=float, default=combined.DEFAULT_C)
    parser.add_argument("--features", default="default")
    parser.add_argument("--save", type=Path)
    parser.add_argument("--extra", default="",
                        help="comma list of labelled files added to the training data of `extra` (never tested on)")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    data = {f: file_features(args.cache, f) for f in FILES}
    extras = [Path(p) for p in args.extra.split(",") if p.strip()]
    for path in extras:
        data[extra_name(path)] = file_features(args.cache, extra_name(path), path)
    sources: dict[str, Path | None] = {**{f: None for f in FILES}, **{extra_name(p): p for p in extras}}
    if {"extra", "extra_why"} & set(args.only.split(",")):
        for name, source in sources.items():
            data[name][0][SIMILARITY_COVERAGE] = similarity_coverage(args.cache, name, source)
    _BOW[:] = bow_rows(data)
    names = combined.parse_features(args.features)
    wanted = set(args.only.split(","))
    if "models" in wanted:
        models(data, names)
    if "features" in wanted:
        features(data, args.kind, args.c)
    if "search" in wanted:
        search(data)
    if "nested" in wanted:
        nested(data)
    if "honest" in wanted:
        honest(data, names)
    if "heldout" in wanted:
        heldout(data, args.c)
    if "forward" in wanted:
        forward(data, args.kind, args.c)
    if "extra" in wanted:
        extra(data, [extra_name(p) for p in extras])
    if "extra_why" in wanted:
        extra_why(data, [extra_name(p) for p in extras], args.cache, sources)
    if "final" in wanted:
        final(data, names, args.c, args.save)


if __name__ == "__main__":
    main()

"""Training and cross-validating the pFSM and pPDA (``python -m explorer train pfsm|ppda``).

Options (``--option KEY=VALUE``):

* ``lam`` (5): the L2 weight; ``min_count`` (5): features seen in fewer training cells
  are dropped; ``max_iter`` (100): L-BFGS iterations; ``max_jump`` (5, pPDA only).
* ``cv`` (0): K-fold cross-validation before the final fit; the held-out predictions
  are pooled and Pearson / Spearman reported per source file.
* ``scheme`` (``all``): ``all`` fits one model on every file given (the paper's "All");
  ``indi`` fits and cross-validates one model per file (the paper's "Indi"; the model
  written is then the one of the last file).
* ``test`` (none): a dataset file scored with the final model (Pearson / Spearman).
* ``seed`` (0): fold assignment.
* ``warm_start`` (0): pPDA only; 1 first fits a pFSM on the same training pairs and
  starts the pPDA from its weights (jump weights at zero) instead of from zero.
* ``per_file`` (0): 1 fits one offset ``alpha`` per training file instead of one for all
  (files whose gold scores sit at different levels, STS 0-5 vs SICK 1-5, or MSRpar's 3.3
  vs SMTeuroparl's 4.3 mean, then need not be told apart by the edit weights); the model
  keeps the pair-weighted mean offset.
* ``lexical`` (1): 0 leaves out the word-identity features of insertions and deletions.
* ``balance`` (0): 1 weights the squared loss so every training file counts the same.
* ``target`` (``norm``): ``norm`` is the paper's squared loss on ``log Z / (|t| + |h|) +
  alpha``; ``rank`` fits the same value by a pairwise ranking loss inside each training
  file, then its scale and offset by least squares (see :data:`TARGETS`).
* ``preorder`` (0): 1 reads every hypothesis in its text's order before editing
  (:func:`~explorer.edit_distance.features.reorder_hypothesis`): words that also occur in
  the text move to where they stand there, so word order costs nothing; 2 also moves
  words that have no exact match by a lemma, paraphrase or synonym match. The model file
  records it and the scorers read pairs the same way.
* ``lam_per`` (0): with N > 0, ``lam`` is per N training pairs (the penalty is
  ``lam * pairs / N``), so a setting chosen on smaller training sets keeps its strength
  on all the data.

The final model is fitted on all pairs given and written as JSON.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from explorer.edit_distance.features import FeatureIndex, PairFeatures, pair_features, reorder_hypothesis
from explorer.edit_distance.model import Batch, EditDistanceModel
from explorer.pairs import Pair
from explorer.preprocess import AnalyzedPair, analyze_pair

Log = Callable[[str], None]

_DEFAULTS = {"lam": "5", "min_count": "5", "max_iter": "100", "max_jump": "5", "cv": "0",
             "scheme": "all", "test": "", "seed": "0", "warm_start": "0", "per_file": "0", "lexical": "1",
             "balance": "0", "target": "norm", "lam_per": "0", "preorder": "0"}


class _Options:
    def __init__(self, options: dict[str, str]) -> None:
        from explorer.training import TrainingOptionError

        unknown = sorted(set(options) - set(_DEFAULTS))
        if unknown:
            raise TrainingOptionError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(_DEFAULTS)}")
        merged = {**_DEFAULTS, **options}
        try:
            self.lam = float(merged["lam"])
            self.min_count = int(merged["min_count"])
            self.max_iter = int(merged["max_iter"])
            self.max_jump = int(merged["max_jump"])
            self.cv = int(merged["cv"])
            self.seed = int(merged["seed"])
            self.warm_start = bool(int(merged["warm_start"]))
            self.per_file = bool(int(merged["per_file"]))
            self.lexical = bool(int(merged["lexical"]))
            self.balance = bool(int(merged["balance"]))
            self.lam_per = int(merged["lam_per"])
            self.preorder = int(merged["preorder"])
        except ValueError as err:
            raise TrainingOptionError(f"bad option value: {err}") from None
        self.scheme = merged["scheme"]
        if self.scheme not in ("all", "indi"):
            raise TrainingOptionError("scheme must be 'all' or 'indi'")
        if self.cv == 1 or self.cv < 0:
            raise TrainingOptionError("cv must be 0 (off) or at least 2")
        self.test = merged["test"]
        self.target = merged["target"]
        if self.target not in ("norm", "rank"):
            raise TrainingOptionError("target must be 'norm' or 'rank'")
        if self.lam_per < 0:
            raise TrainingOptionError("lam_per must be 0 (lam as given) or a number of pairs")
        if self.preorder not in (0, 1, 2):
            raise TrainingOptionError("preorder must be 0 (as given), 1 (exact matches) or 2 (also soft matches)")


def _correlations(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    return float(stats.pearsonr(pred, gold)[0]), float(stats.spearmanr(pred, gold)[0])


def encode(pairs: Sequence[Pair], log: Log) -> list[PairFeatures]:
    """Analyse and featurise pairs (the slow part: lexical similarity matrices)."""
    started = time.perf_counter()
    out = []
    for k, pair in enumerate(pairs, 1):
        out.append(pair_features(analyze_pair(pair)))
        if k % 250 == 0 or k == len(pairs):
            log(f"features: {k}/{len(pairs)} pairs ({time.perf_counter() - started:.0f} s)")
    return out


def train_model(kind: str, encoded: Sequence[PairFeatures], gold: np.ndarray, opts: _Options,
                log: Log | None, sources: Sequence[str] | None = None) -> EditDistanceModel:
    sources = list(sources) if sources is not None else ["data"] * len(encoded)
    settings = TransferSettings(kind, opts.lam, opts.max_iter, opts.warm_start, opts.min_count, opts.lexical,
                                opts.target, opts.balance, opts.per_file, opts.lam_per, opts.preorder)
    model, _ = train_settings(settings, encoded, gold, sources, max_jump=opts.max_jump, progress=log)
    return model


def cross_validate(kind: str, encoded: Sequence[PairFeatures], gold: np.ndarray, sources: Sequence[str],
                   opts: _Options, log: Log) -> np.ndarray:
    """Held-out predictions of K-fold CV (folds drawn within each source file)."""
    rng = np.random.default_rng(opts.seed)
    folds = np.zeros(len(encoded), dtype=int)
    for source in dict.fromkeys(sources):
        members = np.flatnonzero(np.array(sources) == source)
        folds[rng.permutation(members)] = np.arange(len(members)) % opts.cv
    pred = np.zeros(len(encoded))
    for k in range(opts.cv):
        train = np.flatnonzero(folds != k)
        test = np.flatnonzero(folds == k)
        started = time.perf_counter()
        model = train_model(kind, [encoded[int(i)] for i in train], gold[train], opts, None,
                            [sources[int(i)] for i in train])
        pred[test] = score_values(model, [encoded[int(i)] for i in test], "norm", 1.0)
        r, rho = _correlations(pred[test], gold[test])
        log(f"{kind} fold {k + 1}/{opts.cv}: {len(train)} train / {len(test)} held out: "
            f"pearson {r:.4f} spearman {rho:.4f} ({time.perf_counter() - started:.0f} s, "
            f"{model.info.get('iterations')} iterations)")
    return pred


def _report(kind: str, label: str, pred: np.ndarray, gold: np.ndarray, sources: Sequence[str], log: Log) -> None:
    src = np.array(sources)
    for source in dict.fromkeys(sources):
        mask = src == source
        r, rho = _correlations(pred[mask], gold[mask])
        log(f"{kind} {label} {source}: n={int(mask.sum())} pearson {r:.4f} spearman {rho:.4f}")
    if len(set(sources)) > 1:
        r, rho = _correlations(pred, gold)
        log(f"{kind} {label} pooled: n={len(pred)} pearson {r:.4f} spearman {rho:.4f}")


def _train(kind: str, pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
    opts = _Options(options)
    if any(p.score is None for p in pairs):
        raise ValueError("the pFSM/pPDA regress on graded scores (STS or SICK relatedness); "
                         "some pairs have none")
    encoded = encode(pairs, log)
    gold = np.array([float(p.score) for p in pairs])  # type: ignore[arg-type]
    sources = [p.source for p in pairs]
    groups = [list(dict.fromkeys(sources))] if opts.scheme == "all" else [[s] for s in dict.fromkeys(sources)]
    model: EditDistanceModel | None = None
    for group in groups:
        idx = [i for i, s in enumerate(sources) if s in group]
        enc = [encoded[i] for i in idx]
        g = gold[idx]
        src = [sources[i] for i in idx]
        label = f"{opts.scheme} ({opts.cv}-fold CV)"
        if opts.cv:
            pred = cross_validate(kind, enc, g, src, opts, log)
            _report(kind, label, pred, g, src, log)
        started = time.perf_counter()
        model = train_model(kind, enc, g, opts, log, src)
        log(f"{kind}: trained on {len(enc)} pairs of {', '.join(group)} in {time.perf_counter() - started:.1f} s "
            f"({len(model.names)} features)")
    assert model is not None  # groups is never empty: pairs were loaded
    model = model.with_theta(model.theta(), data=[Path(s).name for s in dict.fromkeys(sources)],
                             scheme=opts.scheme, min_count=opts.min_count, per_file=opts.per_file,
                             lexical=opts.lexical, balance=opts.balance, target=opts.target,
                             lam_per=opts.lam_per, preorder=opts.preorder)
    model.save(out)
    if opts.test:
        from explorer.datasets import load

        data = load(opts.test)
        test_enc = encode(data.pairs, log)
        pred = score_values(model, test_enc, "norm", 1.0)
        test_gold = np.array([float(p.score) for p in data.pairs])  # type: ignore[arg-type]
        r, rho = _correlations(pred, test_gold)
        log(f"{kind} test {data.name}: n={len(data)} pearson {r:.4f} spearman {rho:.4f}")


def train_pfsm(pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
    """The ``train pfsm`` command."""
    _train("pfsm", pairs, out, options, log)


def train_ppda(pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
    """The ``train ppda`` command."""
    _train("ppda", pairs, out, options, log)


# -- settings compared across files (experiments/edit_distance_transfer.py) ----------------------

#: Regression targets. ``norm`` is the paper's ``log Z / (|t| + |h|) + alpha``;
#: ``affine`` adds a free (unregularised) scale, ``beta * log Z / (|t| + |h|) + alpha``,
#: so the L2 penalty shrinks the shape of the weights rather than the range of the
#: prediction; ``plain`` regresses on ``beta * log Z + alpha`` with no length normalisation;
#: ``mean`` subtracts the log number of edit sequences, ``(log Z - log Z0) / (|t| + |h|) +
#: alpha`` with ``Z0`` the same lattice with every weight at zero: the log of the *mean*
#: exponentiated sequence score instead of their sum, so the count of sequences, which
#: grows with the lengths alone, is not part of the score.
#: ``rank`` keeps the paper's ``log Z / (|t| + |h|)`` but fits it by a pairwise ranking
#: loss inside each group (training file) instead of squared error: for every two pairs
#: of a file with different gold scores, ``(g_i - g_j) * log(1 + exp(-(u_i - u_j)))``
#: when ``g_i > g_j``, scaled so each file's loss sums to its number of pairs. Only the
#: order of a file's pairs matters, never its score level or spread; the offset and
#: scale are then fitted by least squares on the training pairs (the model keeps the
#: offset as ``alpha``; the scale is returned).
TARGETS = ("norm", "affine", "plain", "mean", "rank")

#: Rows of the pair-by-pair ranking matrix computed at once (bounds its memory).
_RANK_CHUNK = 512


def rank_loss(u: np.ndarray, gold: np.ndarray, group: np.ndarray, weight: np.ndarray) -> tuple[float, np.ndarray]:
    """The pairwise ranking loss of ``rank`` (see :data:`TARGETS`) and its gradient in ``u``.

    Within each group, every ordered couple ``(i, j)`` with ``gold[i] > gold[j]`` costs
    ``weight[i] * weight[j] * (gold[i] - gold[j]) * softplus(u[j] - u[i])``; a group's sum
    is divided by its number of such couples and multiplied by its size, so the loss is on
    the scale of a per-pair sum like the squared loss (and ``lam`` means about the same)."""
    loss = 0.0
    grad = np.zeros_like(u)
    for g in np.unique(group):
        idx = np.flatnonzero(group == g)
        ug, gg, wg = u[idx], gold[idx], weight[idx]
        total, d_u = 0.0, np.zeros(len(idx))
        couples = 0.0
        for start in range(0, len(idx), _RANK_CHUNK):
            rows = slice(start, start + _RANK_CHUNK)
            diff = gg[rows, None] - gg[None, :]  # > 0: row should rank above column
            w = np.where(diff > 0, diff, 0.0) * wg[rows, None] * wg[None, :]
            margin = ug[rows, None] - ug[None, :]
            total += float((w * np.logaddexp(0.0, -margin)).sum())
            couples += float((diff > 0).sum())
            slope = -w / (1.0 + np.exp(margin))  # d loss / d margin
            d_u[rows] += slope.sum(axis=1)
            d_u -= slope.sum(axis=0)
        if couples:
            factor = len(idx) / couples
            loss += factor * total
            grad[idx] = factor * d_u
    return loss, grad


#: L-BFGS restarts after a line search cut short by an overflowing probe.
_MAX_RESTARTS = 5

#: Preprocessing variants: ``asis``; ``lower`` lowercases both sentences before
#: tokenising and tagging; ``nopunct`` drops punctuation tokens; ``lower_nopunct`` both.
PREPS = ("asis", "lower", "nopunct", "lower_nopunct")


def prepare_pair(pair: Pair, prep: str = "asis") -> AnalyzedPair:
    """The analysed pair under a preprocessing variant (:data:`PREPS`)."""
    from explorer.preprocess import Analysis, analyze

    if prep not in PREPS:
        raise ValueError(f"unknown preprocessing {prep!r}; choose from {', '.join(PREPS)}")
    lower = prep.startswith("lower")
    sides = []
    for text, tokens in ((pair.text, pair.text_tokens), (pair.hypothesis, pair.hypothesis_tokens)):
        if lower:
            a = analyze(text.lower(), None if tokens is None else tuple(t.lower() for t in tokens))
        else:
            a = analyze(text, tokens)
        if prep.endswith("nopunct"):
            kept = tuple(t for t, p in zip(a.tokens, a.is_punct) if not p)
            a = Analysis(text=a.text, tokens=kept or a.tokens)
        sides.append(a)
    return AnalyzedPair(pair, sides[0], sides[1])


class TransferSettings:
    """One training configuration of the transfer experiments."""

    def __init__(self, kind: str, lam: float, max_iter: int, warm: bool, min_count: int, lexical: bool,
                 target: str, balance: bool, per_file: bool = False, lam_per: int = 0,
                 preorder: int = 0) -> None:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}; choose from {', '.join(TARGETS)}")
        self.kind, self.lam, self.max_iter, self.warm = kind, lam, max_iter, warm
        self.min_count, self.lexical, self.target, self.balance = min_count, lexical, target, balance
        self.per_file = per_file
        if lam_per < 0:
            raise ValueError("lam_per must be 0 (lam as given) or a positive number of pairs")
        self.lam_per = lam_per
        self.preorder = preorder

    def effective_lam(self, pairs: int) -> float:
        """``lam``, or with ``lam_per`` > 0, ``lam`` per ``lam_per`` training pairs (the
        penalty then keeps its weight against the summed loss whatever the data size)."""
        return self.lam * pairs / self.lam_per if self.lam_per else self.lam

    @classmethod
    def parse(cls, items: dict[str, str]) -> TransferSettings:
        return cls(items.get("kind", "pfsm"), float(items.get("lam", "5")), int(items.get("max_iter", "100")),
                   bool(int(items.get("warm", "0"))), int(items.get("min_count", "5")),
                   bool(int(items.get("lexical", "1"))), items.get("target", "norm"),
                   bool(int(items.get("balance", "0"))), bool(int(items.get("per_file", "0"))),
                   int(items.get("lam_per", "0")), int(items.get("preorder", "0")))


def feature_index(encoded: Sequence[PairFeatures], *, min_count: int, lexical: bool = True) -> FeatureIndex:
    """Features kept for training: seen in ``min_count`` cells; without ``lexical``, the
    word-identity features of deletions and insertions (``del:w=...``) are left out."""
    index = FeatureIndex.fit(encoded, min_count=min_count)
    if lexical:
        return index
    return FeatureIndex(tuple(name for name in index.names if ":w=" not in name))


def sample_weights(sources: Sequence[str], balance: bool) -> np.ndarray:
    """1 per pair, or (``balance``) weights giving every source file the same total."""
    src = np.array(sources)
    if not balance:
        return np.ones(len(src))
    names = list(dict.fromkeys(sources))
    out = np.zeros(len(src))
    for name in names:
        mask = src == name
        out[mask] = len(src) / (len(names) * mask.sum())
    return out


def _target_objective(model: EditDistanceModel, batch: Batch, gold: np.ndarray, theta: np.ndarray, *,
                      lam: float, target: str, weight: np.ndarray, group: np.ndarray,
                      groups: int, base: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Weighted squared loss of ``scale[g] * (log Z - base) / length + offset[g]`` plus
    ``lam * ||weights||²``, and its gradient. ``theta`` is the model's parameters
    (whose own ``alpha`` is unused here) followed by one offset and one scale per group
    (``group[i]`` of pair ``i``); scales stay 1 under the ``norm`` target."""
    from explorer.edit_distance.features import TABLES
    from explorer.edit_distance.states import N_CLASSES, N_LAST

    k = groups
    offsets, scales = theta[-2 * k : -k], (theta[-k:] if target in ("affine", "plain") else np.ones(k))
    current = model.with_theta(theta[: -2 * k])
    log_z, counts = current.log_z(batch, counts=True)
    assert counts is not None  # counts=True always returns them
    length = (batch.n + batch.m).astype(float) if target != "plain" else np.ones(len(batch))
    u = (log_z if base is None else log_z - base) / length
    scale = scales[group]
    resid = scale * u + offsets[group] - gold
    if target == "rank":
        loss, d_u = rank_loss(u, gold, group, weight)
        factor = d_u / length
    else:
        loss = float(weight @ (resid * resid))
        factor = 2.0 * weight * resid * scale / length
    f = len(model.names)
    grad = np.zeros_like(theta)
    for table in TABLES:
        grad[:f] += batch.matrices[table].T @ (counts.tables[table] * factor[batch.owner[table]])
    t = N_LAST * N_CLASSES
    grad[f : f + t] = np.tensordot(factor, counts.trans, axes=1).ravel()
    if model.max_jump:
        grad[f + t : f + t + model.max_jump] = factor @ counts.jump[:, : model.max_jump]
    if target != "rank":
        grad[-2 * k : -k] = 2.0 * np.bincount(group, weights=weight * resid, minlength=k)
    if target in ("affine", "plain"):
        grad[-k:] = 2.0 * np.bincount(group, weights=weight * resid * u, minlength=k)
    reg = theta.copy()
    reg[-2 * k - 1 :] = 0.0  # neither alpha nor the offsets and scales are penalised
    return loss + float(lam * reg @ reg), grad + 2.0 * lam * reg


def fit_target(model: EditDistanceModel, batch: Batch, gold: np.ndarray, *, lam: float, max_iter: int,
               target: str = "norm", weight: np.ndarray | None = None,
               group: np.ndarray | None = None, progress: Log | None = None) -> tuple[EditDistanceModel, float]:
    """L-BFGS fit under a regression target (:data:`TARGETS`), optionally with one
    offset (and, for ``affine`` / ``plain``, one scale) per group of pairs (``group``:
    the source file of each pair). Returns the model, whose ``alpha`` is the pair-weighted
    mean offset, and its mean scale (1 for ``norm``)."""
    from scipy.optimize import minimize

    from explorer.edit_distance.model import ModelError

    weight = np.ones(len(gold)) if weight is None else weight
    group = np.zeros(len(gold), dtype=np.int64) if group is None else np.asarray(group, dtype=np.int64)
    k = int(group.max()) + 1
    started = time.perf_counter()
    log_z, _ = model.log_z(batch)
    base = path_count(model, batch) if target == "mean" else None
    length = (batch.n + batch.m).astype(float) if target != "plain" else np.ones(len(batch))
    u = (log_z if base is None else log_z - base) / length
    offsets0, scales0 = np.zeros(k), np.ones(k)
    for g in range(k):
        mask = group == g
        if target in ("affine", "plain") and np.std(u[mask]) > 0:
            cov = np.cov(u[mask], gold[mask], aweights=weight[mask])
            scales0[g] = float(np.clip(abs(cov[0, 1] / cov[0, 0]), 1e-3, 1e3))
        offsets0[g] = float(np.average(gold[mask] - scales0[g] * u[mask], weights=weight[mask]))
    theta0 = np.concatenate([model.theta(), offsets0, scales0])

    calls = [0]
    best_loss, best_theta = [math.inf], [theta0]
    overflowed = [False]

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        calls[0] += 1
        try:
            loss, grad = _target_objective(model, batch, gold, theta, lam=lam, target=target, weight=weight,
                                           group=group, groups=k, base=base)
        except ModelError:
            # A line-search probe with weights so large the lattice overflows: report a
            # huge loss so the search steps back.
            overflowed[0] = True
            return 1e30, np.zeros_like(theta)
        if loss < best_loss[0]:
            best_loss[0], best_theta[0] = loss, theta.copy()
        if progress is not None:
            progress(f"{model.kind}: evaluation {calls[0]}: loss {loss:.3f} ({time.perf_counter() - started:.0f} s)")
        return loss, grad

    # An overflowing probe can end L-BFGS's line search early (a flat 1e30 with no
    # gradient): then restart from the best point so far with a fresh, short first step,
    # up to a few times, within the same total iteration budget.
    iterations, restarts, theta = 0, 0, theta0
    while True:
        overflowed[0] = False
        result = minimize(fun, theta, jac=True, method="L-BFGS-B", options={"maxiter": max_iter - iterations})
        iterations += int(result.nit)
        theta = best_theta[0]
        if not overflowed[0] or iterations >= max_iter or restarts >= _MAX_RESTARTS:
            break
        restarts += 1
        if progress is not None:
            progress(f"{model.kind}: restart {restarts} after an overflowing step ({result.message})")
    share = np.bincount(group, minlength=k) / len(group)
    offsets, scales = theta[-2 * k : -k], theta[-k:]
    params = theta[: -2 * k].copy()
    params[-1] = float(share @ offsets)
    rank_scale = 1.0
    if target == "rank":
        # The ranking loss leaves level and spread free: fit them by least squares on
        # the training pairs, one offset per group, one common scale.
        u_fit = model.with_theta(params).log_z(batch)[0] / length
        centred_u = u_fit - np.bincount(group, weights=u_fit, minlength=k)[group] / np.bincount(group, minlength=k)[group]
        centred_g = gold - np.bincount(group, weights=gold, minlength=k)[group] / np.bincount(group, minlength=k)[group]
        rank_scale = float(centred_u @ centred_g / max(centred_u @ centred_u, 1e-12))
        offsets = np.array([float(np.mean(gold[group == g] - rank_scale * u_fit[group == g])) for g in range(k)])
        params[-1] = float(share @ offsets)
    fitted = model.with_theta(params, loss=float(best_loss[0]), iterations=iterations, evaluations=calls[0],
                              restarts=restarts, stop=str(result.message),
                              seconds=round(time.perf_counter() - started, 1), lam=lam, pairs=len(batch),
                              target=target)
    if target == "rank":
        # the model carries the scale itself (its values are then on the gold scale)
        return fitted.with_scale(max(rank_scale, 1e-6)), 1.0
    return fitted, float(share @ scales) if target in ("affine", "plain") else 1.0


def train_settings(settings: TransferSettings, encoded: Sequence[PairFeatures], gold: np.ndarray,
                   sources: Sequence[str], *, max_jump: int = 5,
                   progress: Log | None = None) -> tuple[EditDistanceModel, float]:
    """Fit one configuration on the given pairs (returns the model and its scale).
    ``encoded`` are the pairs' own features; with ``preorder`` they are read reordered."""
    if settings.preorder:
        encoded = [reorder_hypothesis(f, soft=settings.preorder == 2)[0] for f in encoded]
    index = feature_index(encoded, min_count=settings.min_count, lexical=settings.lexical)
    batch = Batch.build(encoded, index)
    weight = sample_weights(sources, settings.balance)
    names = list(dict.fromkeys(sources))
    group = np.array([names.index(s) for s in sources]) if settings.per_file else None
    model = EditDistanceModel.zero(settings.kind, index, max_jump=max_jump, preorder=settings.preorder)
    lam = settings.effective_lam(len(encoded))
    if settings.kind == "ppda" and settings.warm:
        fsm, _ = fit_target(EditDistanceModel.zero("pfsm", index), batch, gold, lam=lam,
                            max_iter=settings.max_iter, target=settings.target, weight=weight, group=group,
                            progress=progress)
        theta = model.theta()
        f = len(index.names)
        theta[:f] = fsm.weights
        theta[f : f + fsm.trans.size] = fsm.trans.ravel()
        model = model.with_theta(theta, warm_start="pfsm")
    return fit_target(model, batch, gold, lam=lam, max_iter=settings.max_iter,
                      target=settings.target, weight=weight, group=group, progress=progress)


def path_count(model: EditDistanceModel, batch: Batch) -> np.ndarray:
    """``log Z0``: the log number of edit sequences of every pair (all weights zero)."""
    zero = EditDistanceModel(model.kind, model.max_jump, model.names, np.zeros(len(model.names)),
                             np.zeros_like(model.trans), np.zeros_like(model.jump))
    return zero.log_z(batch)[0]


def score_values(model: EditDistanceModel, encoded: Sequence[PairFeatures], target: str, scale: float) -> np.ndarray:
    """Predictions of a model trained under ``target`` (on the training scale) for the
    pairs' own features (read reordered when the model does)."""
    batch = Batch.build([model.prepared(f)[0] for f in encoded], model.index)
    log_z, _ = model.log_z(batch)
    if target == "mean":
        log_z = log_z - path_count(model, batch)
    length = (batch.n + batch.m).astype(float) if target != "plain" else np.ones(len(batch))
    return scale * model.scale * log_z / length + model.alpha

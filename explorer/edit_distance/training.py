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

The final model is fitted on all pairs given and written as JSON.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from explorer.edit_distance.features import FeatureIndex, PairFeatures, pair_features
from explorer.edit_distance.model import Batch, EditDistanceModel, fit
from explorer.pairs import Pair
from explorer.preprocess import analyze_pair

Log = Callable[[str], None]

_DEFAULTS = {"lam": "5", "min_count": "5", "max_iter": "100", "max_jump": "5", "cv": "0",
             "scheme": "all", "test": "", "seed": "0", "warm_start": "0"}


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
        except ValueError as err:
            raise TrainingOptionError(f"bad option value: {err}") from None
        self.scheme = merged["scheme"]
        if self.scheme not in ("all", "indi"):
            raise TrainingOptionError("scheme must be 'all' or 'indi'")
        if self.cv == 1 or self.cv < 0:
            raise TrainingOptionError("cv must be 0 (off) or at least 2")
        self.test = merged["test"]


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
                log: Log | None) -> EditDistanceModel:
    index = FeatureIndex.fit(encoded, min_count=opts.min_count)
    model = EditDistanceModel.zero(kind, index, max_jump=opts.max_jump)
    batch = Batch.build(encoded, index)
    if kind == "ppda" and opts.warm_start:
        fsm = fit(EditDistanceModel.zero("pfsm", index), batch, gold, lam=opts.lam,
                  max_iter=opts.max_iter, progress=log)
        theta = model.theta()
        f = len(index.names)
        theta[:f] = fsm.weights
        theta[f : f + fsm.trans.size] = fsm.trans.ravel()
        model = model.with_theta(theta, warm_start="pfsm")
    return fit(model, batch, gold, lam=opts.lam, max_iter=opts.max_iter, progress=log)


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
        model = train_model(kind, [encoded[int(i)] for i in train], gold[train], opts, None)
        pred[test] = model.predict_batch(Batch.build([encoded[int(i)] for i in test], model.index))
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
        model = train_model(kind, enc, g, opts, log)
        log(f"{kind}: trained on {len(enc)} pairs of {', '.join(group)} in {time.perf_counter() - started:.1f} s "
            f"({len(model.names)} features)")
    assert model is not None  # groups is never empty: pairs were loaded
    model = model.with_theta(model.theta(), data=[Path(s).name for s in dict.fromkeys(sources)],
                             scheme=opts.scheme, min_count=opts.min_count)
    model.save(out)
    if opts.test:
        from explorer.datasets import load

        data = load(opts.test)
        test_enc = encode(data.pairs, log)
        pred = model.predict_batch(Batch.build(test_enc, model.index))
        test_gold = np.array([float(p.score) for p in data.pairs])  # type: ignore[arg-type]
        r, rho = _correlations(pred, test_gold)
        log(f"{kind} test {data.name}: n={len(data)} pearson {r:.4f} spearman {rho:.4f}")


def train_pfsm(pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
    """The ``train pfsm`` command."""
    _train("pfsm", pairs, out, options, log)


def train_ppda(pairs: Sequence[Pair], out: Path, options: dict[str, str], log: Log) -> None:
    """The ``train ppda`` command."""
    _train("ppda", pairs, out, options, log)

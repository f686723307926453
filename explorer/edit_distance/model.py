"""Log-linear edit machines trained by regression (Wang & Cer 2012, §2.3).

The score of a pair is ``y = log Σ_sequences exp(score(sequence))``, the forward
algorithm's log-sum over every edit sequence the machine allows. The prediction is
``y / (|text| + |hypothesis|) + alpha``, fitted to the gold similarity with squared
loss plus ``lambda * ||w||²`` (lambda = 5 in the paper), from zero weights with
L-BFGS and analytic gradients: ``dy/dw`` is the expected feature count under the
posterior over edit sequences, which the backward pass provides.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from explorer.edit_distance import automaton as fsa
from explorer.edit_distance import states
from explorer.edit_distance.features import TABLES, FeatureIndex, PairFeatures, pair_features, reorder_hypothesis
from explorer.edit_distance.states import (
    CLASSES,
    LAST,
    N_CLASSES,
    N_LAST,
    OP_HYP,
    OP_NAMES,
    OP_TEXT,
    Automaton,
    build_automaton,
)
from explorer.errors import ExplorerError
from explorer.preprocess import AnalyzedPair

__all__ = [
    "PREORDERS", "Batch", "Counts", "EditDistanceModel", "EditStep", "ModelError", "Progress", "automaton_for", "fit",
    "objective",
]

#: Tokens each table's operation consumes (text + hypothesis), for the per-token shift.
_TABLE_TOKENS = {"sub": 2, "b12": 3, "b21": 3, "b22": 4, "ins": 1, "del": 1}
_BLOCKS = ("b12", "b21", "b22")


#: Reading orders of the hypothesis (:attr:`EditDistanceModel.preorder`).
PREORDERS = (0, 1, 2)


class ModelError(ExplorerError, ValueError):
    """A model file that cannot be read, or a pair the model cannot score."""


@cache
def automaton_for(kind: str, max_jump: int) -> Automaton:
    if kind == "pfsm":
        return build_automaton("pfsm", 0)
    if kind == "ppda":
        if max_jump < 2:
            raise ModelError("the pPDA needs a maximum jump distance of at least 2 (a swap of two words)")
        return build_automaton("ppda", max_jump)
    raise ModelError(f"unknown edit machine {kind!r}; choose pfsm or ppda")


# -- batches -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Batch:
    """Many pairs' features stacked into one matrix per table (rows = cells)."""

    n: np.ndarray
    m: np.ndarray
    offsets: dict[str, np.ndarray]  # table -> (P+1,) row offsets
    owner: dict[str, np.ndarray]  # table -> pair index of every row
    matrices: dict[str, sparse.csr_matrix]
    allowed: dict[str, np.ndarray]
    sub_class: np.ndarray
    text_index: np.ndarray
    hyp_index: np.ndarray

    def __len__(self) -> int:
        return len(self.n)

    @classmethod
    def build(cls, encoded: Sequence[PairFeatures], index: FeatureIndex) -> Batch:
        n = np.array([f.n for f in encoded], dtype=np.int64)
        m = np.array([f.m for f in encoded], dtype=np.int64)
        if np.any(n == 0) or np.any(m == 0):
            raise ModelError("every pair needs at least one token on each side")
        sizes = {"sub": n * m, "b12": n * m, "b21": n * m, "b22": n * m, "ins": m, "del": n}
        offsets = {t: np.concatenate([[0], np.cumsum(s)]).astype(np.int64) for t, s in sizes.items()}
        owner = {t: np.repeat(np.arange(len(encoded)), s) for t, s in sizes.items()}
        matrices: dict[str, sparse.csr_matrix] = {}
        allowed: dict[str, np.ndarray] = {}
        for table in TABLES:
            matrices[table], allowed[table] = index.matrix(encoded, table)
        sub_class = np.concatenate([f.sub_class for f in encoded]).astype(np.int64)
        # For every cell row: the global index of its text token and hypothesis token.
        text_index = np.concatenate([offsets["del"][p] + np.repeat(np.arange(f.n), f.m) for p, f in enumerate(encoded)])
        hyp_index = np.concatenate([offsets["ins"][p] + np.tile(np.arange(f.m), f.n) for p, f in enumerate(encoded)])
        return cls(n, m, offsets, owner, matrices, allowed, sub_class,
                   text_index.astype(np.int64), hyp_index.astype(np.int64))


@dataclass
class Counts:
    """Expected operation counts per row and per pair (from the backward pass)."""

    tables: dict[str, np.ndarray]
    trans: np.ndarray  # (P, N_LAST, N_CLASSES)
    jump: np.ndarray  # (P, max_jump)


# -- the model -------------------------------------------------------------------------------

@dataclass(frozen=True)
class EditDistanceModel:
    """A trained (or zero) pFSM / pPDA.

    Attributes:
        kind: ``pfsm`` or ``ppda``.
        max_jump: the pPDA's maximum jump distance (0 for the pFSM).
        names: emission feature names; ``weights`` their weights.
        trans: ``(len(LAST), len(CLASSES))`` transition weights (previous, current).
        jump: forward-jump weights by distance ``1..max_jump``.
        alpha: the regression offset.
        scale: the factor on ``log Z / (|text| + |hypothesis|)`` (1 under the paper's
            squared-loss training; a ranking-loss fit keeps the least-squares scale here so
            values stay on the similarity scale).
        info: training provenance (data, options, objective), kept in the JSON file.
        preorder: read the hypothesis in the text's order before editing
            (:func:`~explorer.edit_distance.features.reorder_hypothesis`): hypothesis
            words that also occur in the text are moved to where they stand there, so
            moving a word costs nothing and the machine scores the words themselves.
            0: as given; 1: by exact word matches; 2: exact matches, then lemma,
            paraphrase and synonym matches for words with no exact match.
    """

    kind: str
    max_jump: int
    names: tuple[str, ...]
    weights: np.ndarray
    trans: np.ndarray
    jump: np.ndarray
    alpha: float = 0.0
    info: dict[str, Any] = field(default_factory=dict, compare=False)
    scale: float = 1.0
    preorder: int = 0

    @classmethod
    def zero(cls, kind: str, index: FeatureIndex, *, max_jump: int = 5, preorder: int = 0) -> EditDistanceModel:
        max_jump = 0 if kind == "pfsm" else max_jump
        automaton_for(kind, max_jump)
        return cls(kind, max_jump, index.names, np.zeros(len(index.names)),
                   np.zeros((N_LAST, N_CLASSES)), np.zeros(max_jump), preorder=preorder)

    @property
    def automaton(self) -> Automaton:
        return automaton_for(self.kind, self.max_jump)

    @property
    def index(self) -> FeatureIndex:
        return FeatureIndex(self.names)

    # -- parameters as one vector (for the optimiser) --

    def theta(self) -> np.ndarray:
        return np.concatenate([self.weights, self.trans.ravel(), self.jump, [self.alpha]])

    def with_theta(self, theta: np.ndarray, **info: Any) -> EditDistanceModel:
        f, t = len(self.names), N_LAST * N_CLASSES
        return EditDistanceModel(
            self.kind, self.max_jump, self.names, theta[:f].copy(),
            theta[f : f + t].reshape(N_LAST, N_CLASSES).copy(), theta[f + t : f + t + self.max_jump].copy(),
            float(theta[-1]), {**self.info, **info}, self.scale, self.preorder,
        )

    def with_scale(self, scale: float) -> EditDistanceModel:
        """The same weights with another output scale."""
        if not (math.isfinite(scale) and scale > 0):
            raise ModelError(f"the output scale must be a positive number, got {scale!r}")
        return EditDistanceModel(self.kind, self.max_jump, self.names, self.weights, self.trans, self.jump,
                                 self.alpha, dict(self.info), float(scale), self.preorder)

    def prepared(self, feats: PairFeatures) -> tuple[PairFeatures, tuple[int, ...]]:
        """The features the machine reads, and the hypothesis reading order: with
        ``preorder``, the hypothesis in the text's order; otherwise as given."""
        if self.preorder:
            return reorder_hypothesis(feats, soft=self.preorder == 2)
        return feats, tuple(range(feats.m))

    def features(self, pair: AnalyzedPair) -> tuple[PairFeatures, tuple[int, ...]]:
        """:meth:`prepared` features of an analysed pair."""
        return self.prepared(pair_features(pair))

    def value(self, log_z: np.ndarray | float, length: np.ndarray | int) -> np.ndarray:
        """The similarity predicted from ``log Z`` and ``|text| + |hypothesis|``."""
        return self.scale * np.asarray(log_z) / length + self.alpha

    # -- scoring --

    def scores(self, batch: Batch) -> dict[str, np.ndarray]:
        """The log-linear score ``w . phi`` of every table row (before any shift)."""
        return {t: batch.matrices[t] @ self.weights for t in TABLES}

    def edge_weights(self, batch: Batch, scores: dict[str, np.ndarray] | None = None,
                     ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Linear (shifted) weights of every table row, and the per-pair shift.

        The shift estimates the best sequence's score per token: each text token and
        each hypothesis token contributes its best per-token option (its deletion or
        insertion, or half of its best substitution, a third or a quarter of a block),
        plus the largest transition weight. Every sequence consumes every token once,
        so the best sequence's shifted weight stays near 1 whatever the weights'
        magnitude. On long or lopsided pairs the sums can still leave float64's range;
        :meth:`log_z` and :meth:`best_sequence` then rerun the pair in log space.
        """
        scores = self.scores(batch) if scores is None else scores
        best_text = scores["del"].copy()
        best_hyp = scores["ins"].copy()
        text_index = batch.text_index
        hyp_index = batch.hyp_index
        for table in ("sub", *_BLOCKS):
            per_token = scores[table] / _TABLE_TOKENS[table]
            if table in _BLOCKS:
                keep = batch.allowed[table]
                if not keep.any():
                    continue
                np.maximum.at(best_text, text_index[keep], per_token[keep])
                np.maximum.at(best_hyp, hyp_index[keep], per_token[keep])
                continue
            np.maximum.at(best_text, text_index, per_token)
            np.maximum.at(best_hyp, hyp_index, per_token)
        total = np.add.reduceat(best_text, batch.offsets["del"][:-1]) + np.add.reduceat(best_hyp, batch.offsets["ins"][:-1])
        shift = total / (batch.n + batch.m) + max(0.0, float(self.trans.max()))
        weights = {}
        for table in TABLES:
            w = np.exp(scores[table] - _TABLE_TOKENS[table] * shift[batch.owner[table]])
            weights[table] = np.where(batch.allowed[table], w, 0.0)
        return weights, shift

    def log_weights(self, batch: Batch, scores: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """Unshifted log weights of every table row, ``-inf`` where the operation is not
        allowed (the log-space kernels' input)."""
        scores = self.scores(batch) if scores is None else scores
        return {t: np.where(batch.allowed[t], scores[t], -np.inf) for t in TABLES}

    def log_z(self, batch: Batch, *, counts: bool = False) -> tuple[np.ndarray, Counts | None]:
        """``log Z`` of every pair (and, with ``counts``, the expected counts).

        Pairs run through the fast linear kernels; a pair whose shifted sum leaves
        ``[SAFE_LOW, SAFE_HIGH]`` (extreme weights) is rerun in log space, and a lattice
        of more than ``LOG_SPACE_CELLS`` cells (long pairs) goes to log space at once.
        """
        a = self.automaton
        scores = self.scores(batch)
        weights, shift = self.edge_weights(batch, scores)
        d = max(self.max_jump, 1)
        c = Counts({t: np.zeros(len(weights[t])) for t in TABLES},
                   np.zeros((len(batch), N_LAST, N_CLASSES)), np.zeros((len(batch), d)))
        z = fsa.run_batch(
            batch.n, batch.m, batch.offsets["sub"], batch.offsets["ins"], batch.offsets["del"],
            weights["sub"], batch.sub_class, weights["b12"], weights["b21"], weights["b22"],
            weights["ins"], weights["del"], np.exp(self.jump) if self.max_jump else np.ones(1),
            np.exp(self.trans), a.last, a.order, a.rank_ptr, a.next_state, a.text_move, a.start, a.final,
            a.ops, counts, c.tables["sub"], c.tables["b12"], c.tables["b21"], c.tables["b22"], c.tables["ins"],
            c.tables["del"], c.jump, c.trans, (batch.n + 1) * (batch.m + 1) > fsa.LOG_SPACE_CELLS,
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            log_z = np.log(z) + shift * (batch.n + batch.m)
        unsafe = np.flatnonzero(~((z >= fsa.SAFE_LOW) & (z <= fsa.SAFE_HIGH)))
        if unsafe.size:
            log_w = self.log_weights(batch, scores)
            for p in unsafe.tolist():
                log_z[p] = self._log_z_one(batch, log_w, p, c if counts else None)
        if not np.all(np.isfinite(log_z)):
            bad = int(np.flatnonzero(~np.isfinite(log_z))[0])
            raise ModelError(f"the edit lattice of pair {bad} has no finite total (weights too large)")
        return log_z, (c if counts else None)

    def _log_z_one(self, batch: Batch, log_w: dict[str, np.ndarray], p: int, counts: Counts | None) -> float:
        """Pair ``p`` of the batch in log space; fills its slices of ``counts``."""
        a = self.automaton
        n, m = int(batch.n[p]), int(batch.m[p])
        cell = slice(int(batch.offsets["sub"][p]), int(batch.offsets["sub"][p + 1]))
        ins = slice(int(batch.offsets["ins"][p]), int(batch.offsets["ins"][p + 1]))
        dels = slice(int(batch.offsets["del"][p]), int(batch.offsets["del"][p + 1]))
        emis, cls_table = fsa.log_tables(n, m, log_w["sub"][cell], batch.sub_class[cell], log_w["b12"][cell],
                                         log_w["b21"][cell], log_w["b22"][cell], log_w["ins"][ins], log_w["del"][dels])
        jump = self.jump if self.max_jump else np.zeros(1)
        alpha = np.empty((m + 1, n + 1, len(a.last)))
        log_z = fsa.forward_log(n, m, emis, cls_table, jump, self.trans, a.last, a.order, a.rank_ptr,
                                a.next_state, a.text_move, a.start, a.final, a.ops, alpha)
        if counts is not None and np.isfinite(log_z):
            for table, rows in (("sub", cell), ("b12", cell), ("b21", cell), ("b22", cell), ("ins", ins), ("del", dels)):
                counts.tables[table][rows] = 0.0
            counts.jump[p] = 0.0
            counts.trans[p] = 0.0
            beta = np.empty_like(alpha)
            fsa.backward_counts_log(
                n, m, emis, cls_table, jump, self.trans, a.last, a.order, a.rank_ptr, a.next_state, a.text_move,
                a.final, a.ops, alpha, beta, log_z, counts.tables["sub"][cell], counts.tables["b12"][cell],
                counts.tables["b21"][cell], counts.tables["b22"][cell], counts.tables["ins"][ins],
                counts.tables["del"][dels], counts.jump[p], counts.trans[p],
            )
        return float(log_z)

    def predict_batch(self, batch: Batch) -> np.ndarray:
        log_z, _ = self.log_z(batch)
        return np.asarray(self.value(log_z, batch.n + batch.m), dtype=float)

    def encode(self, pairs: Sequence[AnalyzedPair]) -> Batch:
        return Batch.build([self.features(p)[0] for p in pairs], self.index)

    def predict(self, pairs: Sequence[AnalyzedPair]) -> np.ndarray:
        """The similarity predicted for each pair."""
        if not pairs:
            return np.zeros(0)
        return self.predict_batch(self.encode(pairs))

    def best_sequence(self, pair: AnalyzedPair, *, features: PairFeatures | None = None) -> tuple[list[EditStep], float]:
        """The Viterbi edit sequence of one pair and its log score (in log space when
        the lattice is large or the linear kernel's best weight leaves
        ``[SAFE_LOW, SAFE_HIGH]``). ``features`` are the ones the machine reads
        (:meth:`prepared`); by default :meth:`features` of the pair, so hypothesis
        positions in the steps are reading positions."""
        feats = features or self.features(pair)[0]
        batch = Batch.build([feats], self.index)
        scores = self.scores(batch)
        weights, shift = self.edge_weights(batch, scores)
        a = self.automaton
        best = 0.0
        in_log = (feats.n + 1) * (feats.m + 1) > fsa.LOG_SPACE_CELLS
        if not in_log:
            emis, cls_table = fsa.tables(feats.n, feats.m, weights["sub"], batch.sub_class, weights["b12"],
                                         weights["b21"], weights["b22"], weights["ins"], weights["del"])
            steps, best = fsa.viterbi(
                feats.n, feats.m, emis, cls_table, np.exp(self.jump) if self.max_jump else np.ones(1),
                np.exp(self.trans), a.last, a.order, a.rank_ptr, a.next_state, a.text_move, a.start, a.final, a.ops,
            )
            in_log = not fsa.SAFE_LOW <= best <= fsa.SAFE_HIGH
        if in_log:
            log_w = self.log_weights(batch, scores)
            emis, cls_table = fsa.log_tables(feats.n, feats.m, log_w["sub"], batch.sub_class, log_w["b12"],
                                             log_w["b21"], log_w["b22"], log_w["ins"], log_w["del"])
            steps, log_best = fsa.viterbi_log(
                feats.n, feats.m, emis, cls_table, self.jump if self.max_jump else np.zeros(1), self.trans,
                a.last, a.order, a.rank_ptr, a.next_state, a.text_move, a.start, a.final, a.ops,
            )
            if not np.isfinite(log_best):
                raise ModelError("no edit sequence found")
        elif best <= 0.0:
            raise ModelError("no edit sequence found")
        out = []
        for op_f, i_f, j_f, cls_f, w in steps:
            op, i, j, cls = int(op_f), int(i_f), int(j_f), int(cls_f)
            kind = OP_NAMES[min(op, states.JUMP_F)]
            t_len = OP_TEXT[op] if op < states.JUMP_F else 0
            h_len = OP_HYP[op] if op < states.JUMP_F else 0
            log_w_step = float(w) if in_log else math.log(w) + float(shift[0]) * (t_len + h_len)
            out.append(EditStep(
                op=kind, cls=CLASSES[cls], text_span=(i, i + t_len) if t_len else None,
                hyp_span=(j, j + h_len) if h_len else None, log_weight=log_w_step,
                jump=(op - states.JUMP_F + 1) if op >= states.JUMP_F else (0 if op != states.JUMP_B else -1),
                text_position=i, hyp_position=j,
            ))
        if in_log:
            return out, float(log_best)
        return out, math.log(best) + float(shift[0]) * (feats.n + feats.m)

    # -- files --

    def to_json(self) -> dict[str, object]:
        def r(x: float) -> float:
            return float(f"{x:.6g}")

        return {
            "format": "explorer.edit_distance/1",
            "kind": self.kind,
            "max_jump": self.max_jump,
            "alpha": r(self.alpha),
            **({"scale": r(self.scale)} if self.scale != 1.0 else {}),
            **({"preorder": int(self.preorder)} if self.preorder else {}),
            "transitions": {f"{LAST[a]}>{CLASSES[b]}": r(self.trans[a, b])
                            for a in range(N_LAST) for b in range(N_CLASSES) if abs(self.trans[a, b]) > 1e-9},
            "jumps": [r(x) for x in self.jump],
            "weights": {name: r(w) for name, w in zip(self.names, self.weights) if abs(w) > 1e-9},
            "info": self.info,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EditDistanceModel:
        try:
            if data.get("format") != "explorer.edit_distance/1":
                raise ModelError(f"not an edit-distance model (format {data.get('format')!r})")
            kind, max_jump = str(data["kind"]), int(data["max_jump"])
            names = tuple(sorted(data["weights"]))
            weights = np.array([float(data["weights"][k]) for k in names])
            trans = np.zeros((N_LAST, N_CLASSES))
            for key, value in data["transitions"].items():
                prev, cur = key.split(">")
                trans[LAST.index(prev), CLASSES.index(cur)] = float(value)
            jump = np.array([float(x) for x in data["jumps"]])
            if len(jump) != (max_jump if kind == "ppda" else 0):
                raise ModelError("jump weights do not match max_jump")
            scale = float(data.get("scale", 1.0))
            if not (math.isfinite(scale) and scale > 0):
                raise ModelError(f"the output scale must be a positive number, got {scale!r}")
            preorder = data.get("preorder", 0)
            if preorder not in PREORDERS or isinstance(preorder, float):
                raise ModelError(f"preorder must be one of {', '.join(map(str, PREORDERS))}, got {preorder!r}")
            preorder = int(preorder)
            model = cls(kind, max_jump, names, weights, trans, jump, float(data["alpha"]), dict(data.get("info", {})),
                        scale, preorder)
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, ModelError):
                raise
            raise ModelError(f"malformed edit-distance model: {err}") from None
        automaton_for(kind, max_jump)
        return model

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> EditDistanceModel:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            raise ModelError(f"cannot read model {path}: {err}") from None
        return cls.from_json(data)


@dataclass(frozen=True)
class EditStep:
    """One operation of an edit sequence.

    Attributes:
        op: INS, DEL, SUB, B12, B21, B22, JUMP_F or JUMP_B.
        cls: the operation's class (S_WORD, S_SYN, ..., as in :data:`CLASSES`).
        text_span / hyp_span: ``[start, end)`` tokens consumed (None when none).
        log_weight: the edge's log weight (transition + features).
        jump: forward distance for JUMP_F, -1 for JUMP_B, else 0.
        text_position / hyp_position: where the machine stood before the step.
    """

    op: str
    cls: str
    text_span: tuple[int, int] | None
    hyp_span: tuple[int, int] | None
    log_weight: float
    jump: int
    text_position: int
    hyp_position: int


# -- training ------------------------------------------------------------------------------

Progress = Callable[[str], None]


def _log(message: str) -> None:
    """Default progress: the ``explorer.edit_distance`` logger (the CLI passes its own)."""
    logging.getLogger("explorer.edit_distance").info(message)


def objective(model: EditDistanceModel, batch: Batch, gold: np.ndarray, theta: np.ndarray, *,
              lam: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Squared loss + ``lam * ||θ without alpha||²``, its gradient, and predictions."""
    current = model.with_theta(theta)
    log_z, counts = current.log_z(batch, counts=True)
    assert counts is not None  # counts=True always returns them
    length = (batch.n + batch.m).astype(float)
    pred = log_z / length + current.alpha
    resid = pred - gold
    factor = 2.0 * resid / length
    f = len(model.names)
    grad = np.zeros_like(theta)
    for table in TABLES:
        weighted = counts.tables[table] * factor[batch.owner[table]]
        grad[:f] += batch.matrices[table].T @ weighted
    t = N_LAST * N_CLASSES
    grad[f : f + t] = np.tensordot(factor, counts.trans, axes=1).ravel()
    if model.max_jump:
        grad[f + t : f + t + model.max_jump] = factor @ counts.jump[:, : model.max_jump]
    grad[-1] = 2.0 * resid.sum()
    reg = theta.copy()
    reg[-1] = 0.0
    loss = float(resid @ resid + lam * reg @ reg)
    grad += 2.0 * lam * reg
    return loss, grad, pred


def fit(model: EditDistanceModel, batch: Batch, gold: Sequence[float] | np.ndarray, *, lam: float = 5.0,
        max_iter: int = 100, progress: Progress | None = _log) -> EditDistanceModel:
    """Fit the weights by L-BFGS from ``model`` (normally zero weights).

    ``alpha`` starts at the least-squares offset for the starting weights, so the first
    steps go to the weights rather than to the mean.
    """
    from scipy.optimize import minimize

    gold = np.asarray(gold, dtype=float)
    if len(gold) != len(batch):
        raise ModelError(f"{len(gold)} gold scores for {len(batch)} pairs")
    start = time.perf_counter()
    log_z, _ = model.log_z(batch)
    theta0 = model.theta()
    theta0[-1] = float(np.mean(gold - log_z / (batch.n + batch.m)))
    calls = [0]

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        calls[0] += 1
        try:
            loss, grad, pred = objective(model, batch, gold, theta, lam=lam)
        except ModelError:
            # A line-search probe with weights so large the lattice overflows: report a
            # huge loss so the search steps back.
            return 1e30, np.zeros_like(theta)
        if progress is not None:
            r = float(np.corrcoef(pred, gold)[0, 1]) if np.std(pred) > 0 else 0.0
            progress(f"{model.kind}: evaluation {calls[0]}: loss {loss:.3f}  pearson {r:.4f}  "
                     f"({time.perf_counter() - start:.0f} s)")
        return loss, grad

    result = minimize(fun, theta0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    return model.with_theta(
        result.x, loss=float(result.fun), iterations=int(result.nit), evaluations=calls[0], stop=str(result.message),
        seconds=round(time.perf_counter() - start, 1), lam=lam, pairs=len(batch),
    )

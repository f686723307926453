"""Cutoffs chosen on whole data sets, kept on disk, and the record every cutoff comes in.

:class:`CutoffChoice` is the one record of a scorer's cutoff: its value, where it came
from (``source``), how it was chosen (``rule``) and a one-line ``detail`` for display.
Which source applies where is :func:`explorer.decision.resolve.resolve_cutoff`'s to say;
this module chooses and keeps the ones that take minutes:

``dataset``
    The best cutoff on the loaded dataset's labelled pairs (rule :data:`~explorer.decision.rules.OWN_RULE`).
    Scoring a whole dataset with a slow method takes minutes, so each scorer's result is
    computed once per dataset *fingerprint* (a hash of the pairs' texts and labels, not of
    the file name) and kept as JSON in :func:`explorer.cache.cutoff_dir`
    (``$EXPLORER_CUTOFF_CACHE`` moves it). The scores themselves are kept too, per pair
    (:mod:`explorer.decision.pair_scores`), so the Pair page can show a pair's verdicts
    without scoring it. The app computes these in the background (:mod:`runtime.cutoff_jobs`).
``dev``
    A cutoff chosen on a development set by :data:`~explorer.decision.rules.DEFAULT_RULE`,
    computed and cached the same way.
``default``
    The shipped cutoffs, :data:`DEFAULT_FILE`: the best cutoff of every registered scorer
    on NLTK's RTE1, RTE2 (the 400 pairs NLTK ships) and RTE3 development sets pooled,
    written by ``python -m explorer.decision.cutoffs build-default`` (the command and the
    data are recorded in the file). A typed pair has no dataset, so it is judged with these.

Pairs a scorer refuses (its explicit size limits) are left out of the cutoff search and
counted.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from explorer.cache import content_hash, cutoff_dir
from explorer.datasets import Dataset
from explorer.decision import pair_scores
from explorer.decision.measures import accuracy
from explorer.decision.rules import DEFAULT_RULE, OWN_RULE, choose_cutoff
from explorer.errors import ExplorerError, command_status
from explorer.pairs import Pair

__all__ = [
    "CACHE_VERSION", "DATASET", "DEFAULT", "DEFAULT_FILE", "DEV", "GIVEN", "MODEL", "NONE", "SOURCE_LABELS",
    "CutoffChoice", "CutoffError", "Progress", "build_default", "cached", "choose", "compute", "default_cutoffs",
    "fingerprint", "labelled", "lookup", "main", "one_sided", "score_all",
]

#: The shipped cutoffs (see the module docstring).
DEFAULT_FILE = Path(__file__).resolve().parents[1] / "models" / "cutoffs_rte_dev.json"
#: Bumped when scorers change in a way that changes their scores, so cached cutoffs of an
#: older version are recomputed rather than trusted.
CACHE_VERSION = 7

#: Where a cutoff came from (:attr:`CutoffChoice.source`); the order of
#: :func:`explorer.decision.resolve.resolve_cutoff`'s precedence.
GIVEN, MODEL, DEV, DATASET, DEFAULT, NONE = "given", "model", "dev", "dataset", "default", "none"
SOURCE_LABELS = {GIVEN: "given", MODEL: "the model's own decision", DEV: "development set",
                 DATASET: "this dataset", DEFAULT: "shipped default", NONE: "no cutoff known"}

#: progress(scorer, pairs done, pairs total)
Progress = Callable[[str, int, int], None]


class CutoffError(ExplorerError, ValueError):
    """Cutoffs that cannot be chosen the way that was asked."""


@dataclass(frozen=True)
class CutoffChoice:
    """One scorer's cutoff, and where it came from.

    Attributes:
        scorer: the registered scorer name.
        value: the cutoff; a pair is entailed when its score is above it.
        source: ``given``, ``model``, ``dev``, ``dataset``, ``default`` or ``none``
            (:data:`SOURCE_LABELS`).
        detail: where it came from, in one line ("best on rte1_dev.xml (567 pairs, 55.9%)").
        accuracy: the accuracy at this cutoff on the pairs it was chosen on (NaN when it
            was not chosen on data).
        n: how many pairs it was chosen on.
        refused: pairs the scorer refused (left out).
        one_sided: the cutoff calls every pair it was chosen on the same way (the
            majority class beats every split): the scorer does not separate the classes
            there, and its verdicts say nothing about the pair.
        rule: the cutoff rule that chose it (:data:`explorer.decision.rules.CUTOFF_RULES`);
            "" when it was not chosen on data. Records written before the field existed
            were all chosen by ``best``.
    """

    scorer: str
    value: float
    source: str
    detail: str
    accuracy: float
    n: int
    refused: int = 0
    one_sided: bool = False
    rule: str = OWN_RULE

    @property
    def origin(self) -> str:
        """Where the cutoff came from, for display ("shipped default: best on ...")."""
        return f"{SOURCE_LABELS.get(self.source, self.source)}: {self.detail}"

    def decides(self, score: float) -> bool:
        """The decision rule: entailed when ``score > value``."""
        return score > self.value


def fingerprint(pairs: Iterable[Pair]) -> str:
    """A content hash of pairs: ids, texts, hypotheses and labels (not the file name, so a
    renamed copy reuses the cache; an edited file does not)."""
    rows = ((pair.id, pair.text, pair.hypothesis, pair.label or "") for pair in pairs)
    return content_hash(rows, f"cutoffs-v{CACHE_VERSION}")


def labelled(pairs: Sequence[Pair]) -> list[Pair]:
    """The pairs with an entailment label (3-way labels count: entailment against the rest)."""
    return [p for p in pairs if p.entails is not None]


def score_all(
    pairs: Sequence[Pair], scorer: str, *, progress: Callable[[int, int], None] | None = None
) -> tuple[np.ndarray, int]:
    """Every pair's score under ``scorer``; pairs the scorer refuses (a ``ValueError`` such
    as a size limit) get NaN. Returns the scores and the number refused."""
    from explorer.preprocess import analyze_pair
    from explorer.scorers import get_scorer

    method = get_scorer(scorer)
    out = np.full(len(pairs), np.nan)
    refused = 0
    step = max(1, len(pairs) // 50)
    for i, pair in enumerate(pairs):
        try:
            value = float(method.score(analyze_pair(pair)).value)
        except ValueError:
            refused += 1
        else:
            if math.isfinite(value):
                out[i] = value
            else:
                refused += 1
        if progress is not None and ((i + 1) % step == 0 or i + 1 == len(pairs)):
            progress(i + 1, len(pairs))
    return out, refused


def choose(scorer: str, scores: np.ndarray, gold: Sequence[bool] | np.ndarray, *, source: str, name: str,
           refused: int, rule: str = OWN_RULE) -> CutoffChoice:
    """The cutoff ``rule`` chooses on the scored pairs (NaN scores left out).

    Raises:
        CutoffError: when no pair could be scored.
        EvaluationError: for an unknown rule.
    """
    g = np.asarray(gold, dtype=bool)
    keep = np.isfinite(scores)
    if not keep.any():
        raise CutoffError(f"{scorer}: no pair of {name} could be scored")
    value = choose_cutoff(scores[keep], g[keep], rule)
    acc = accuracy(scores[keep], g[keep], value)
    n = int(keep.sum())
    left_out = f", {refused} refused" if refused else ""
    detail = f"{rule} on {name} ({n} pairs{left_out}, {100 * acc:.1f}%)"
    flat = one_sided(scores[keep], value)
    if flat:
        said = "entails" if (scores[keep] > value).all() else "does not entail"
        detail += (f"; it calls every one of those pairs '{said}' "
                   "(no split beats the majority class), so this scorer's verdict carries no information")
    return CutoffChoice(scorer, float(value), source, detail, float(acc), n, refused, flat, rule)


def one_sided(scores: np.ndarray, cutoff: float) -> bool:
    """Whether ``cutoff`` gives every (finite) score the same decision: a best cutoff that
    does so says the scorer does not separate the classes on those pairs."""
    said = scores[np.isfinite(scores)] > cutoff
    return bool(said.all() or not said.any())


def _cache_path(fp: str, scorer: str, source: str) -> Path:
    return cutoff_dir() / f"cutoff-{fp}-{source}-{scorer}.json"


def _save(path: Path, choice: CutoffChoice) -> None:
    """Write atomically; an unwritable cache only means recomputing next time."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cutoff.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(choice), handle)
        os.replace(tmp, path)
    except OSError:
        pass


def lookup(fp: str, scorer: str, source: str = DATASET) -> CutoffChoice | None:
    """The cutoff cached for a fingerprint (of labelled pairs, :func:`fingerprint`)."""
    try:
        found = json.loads(_cache_path(fp, scorer, source).read_text(encoding="utf-8"))
        return CutoffChoice(**found)
    except (OSError, ValueError, TypeError):
        return None


def cached(pairs: Sequence[Pair], scorer: str, source: str = DATASET) -> CutoffChoice | None:
    """A cutoff already computed for these pairs' labelled subset as ``source``, or None."""
    subset = labelled(pairs)
    return lookup(fingerprint(subset), scorer, source) if subset else None


def compute(
    dataset: Dataset, scorers: Sequence[str], *, source: str = DATASET,
    progress: Progress | None = None, use_cache: bool = True,
) -> dict[str, CutoffChoice]:
    """The cutoff of each scorer on a dataset's labelled pairs, each cached on disk: the
    rule is :data:`~explorer.decision.rules.DEFAULT_RULE` for a development set (``source="dev"``),
    :data:`~explorer.decision.rules.OWN_RULE` otherwise.

    Raises:
        CutoffError: when the dataset has no entailment labels.
    """
    pairs = labelled(dataset.pairs)
    if not pairs:
        raise CutoffError(f"{dataset.name} has no entailment labels; cutoffs need labelled pairs")
    left_out = len(dataset.pairs) - len(pairs)
    name = dataset.name if not left_out else f"{dataset.name} (labelled subset; {left_out} unlabelled left out)"
    fp = fingerprint(pairs)
    gold = [bool(p.entails) for p in pairs]
    # A dataset's own scores are kept per pair too (bounded, explorer.decision.pair_scores): the Pair
    # page then shows a pair's verdicts without scoring it.
    keep_scores = source == DATASET and pair_scores.storable(len(pairs))
    rule = DEFAULT_RULE if source == DEV else OWN_RULE
    out: dict[str, CutoffChoice] = {}
    for scorer in scorers:
        hit = lookup(fp, scorer, source) if use_cache else None
        if hit is not None and hit.rule != rule:  # chosen by another rule: choose again
            hit = None
        scores_missing = keep_scores and not pair_scores.has(fp, scorer, source)
        if hit is not None and not scores_missing:
            out[scorer] = hit
            if progress is not None:
                progress(scorer, len(pairs), len(pairs))
            continue
        report = (lambda i, n, s=scorer: progress(s, i, n)) if progress is not None else None
        scores, refused = score_all(pairs, scorer, progress=report)
        if keep_scores:
            pair_scores.save(fp, scorer, source, scores)
        if hit is not None:  # only the per-pair scores were missing: the cutoff stays as chosen
            out[scorer] = hit
            continue
        choice = choose(scorer, scores, gold, source=source, name=name, refused=refused, rule=rule)
        _save(_cache_path(fp, scorer, source), choice)
        out[scorer] = choice
    return out


def default_cutoffs(path: Path = DEFAULT_FILE) -> dict[str, CutoffChoice]:
    """The shipped cutoffs (empty when the file is missing or unreadable)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return {}
    return dict(_read_defaults(path, stamp))


@functools.lru_cache(maxsize=8)
def _read_defaults(path: Path, stamp: int) -> dict[str, CutoffChoice]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {name: CutoffChoice(**entry) for name, entry in data["cutoffs"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def build_default(
    paths: Sequence[str | Path], out: Path, scorers: Sequence[str] | None = None, *, update: bool = False
) -> dict[str, Any]:
    """Compute the shipped cutoffs on the pooled labelled pairs of ``paths`` and write them
    (``update``: keep the file's other scorers, recompute only ``scorers``, e.g. after one
    scorer's definition changed). Scorers with their own cutoff (a trained classifier's,
    ``ScorerInfo.cutoff``) are skipped: they decide at it."""
    from explorer.datasets import load_many
    from explorer.scorers import SCORERS

    names = [n for n in (scorers or list(SCORERS)) if SCORERS[n].cutoff is None]
    pooled = labelled(load_many(paths).pairs)
    label = " + ".join(Path(p).name for p in paths)
    pooled_set = Dataset(name=label, format="pooled", pairs=tuple(pooled))
    entries: dict[str, Any] = {}
    previous: dict[str, Any] = {}
    if update and out.is_file():
        previous = json.loads(out.read_text(encoding="utf-8"))
        entries = dict(previous.get("cutoffs", {}))
    for scorer in names:
        start = time.perf_counter()
        choice = compute(pooled_set, [scorer], source=DEFAULT,
                         progress=lambda s, i, n: print(f"\r{s}: {i}/{n}", end="", file=sys.stderr))[scorer]
        entries[scorer] = asdict(choice)
        print(f"\r{scorer}: cutoff {choice.value:.4f}, {100 * choice.accuracy:.1f}% on {choice.n} pairs "
              f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    command = "python -m explorer.decision.cutoffs build-default " + " ".join(
        f"$NLTK_DATA/corpora/rte/{Path(p).name}" for p in paths)
    body = {
        "about": "Best cutoff of each scorer on the pooled development sets below (a pair is "
                 "entailed when score > cutoff; ties to the lowest cutoff).",
        "command": previous.get("command") or command,
        "updates": _updates(previous.get("updates", []), f"{command} --scorer {','.join(names)} --update")
                   if update else [],
        "data": [Path(p).name for p in paths],
        "pairs": len(pooled),
        "cutoffs": entries,
    }
    out.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    return body


def _updates(previous: Sequence[str], command: str) -> list[str]:
    """The file's update commands with ``command`` last, once (a rerun moves it)."""
    return [c for c in previous if c != command] + [command]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m explorer.decision.cutoffs build-default DEV.xml... [--scorer a,b] [--out FILE]
    [--update]``: compute the shipped cutoffs."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m explorer.decision.cutoffs")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build-default", help="compute the shipped cutoffs from dev sets")
    build.add_argument("dev", nargs="+")
    build.add_argument("--scorer", default="all")
    build.add_argument("--out", type=Path, default=DEFAULT_FILE)
    build.add_argument("--update", action="store_true", help="keep the file's other scorers")
    args = parser.parse_args(argv)
    from explorer.scorers import parse_scorer_names

    return command_status(lambda: build_default(args.dev, args.out, parse_scorer_names(args.scorer),
                                                update=args.update))


if __name__ == "__main__":
    raise SystemExit(main())

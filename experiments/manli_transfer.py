"""MANLI across corpora: train on one gold corpus, test on the other.

Corpora: the MSR RTE2 dev alignments (annotators A/B/C merged by majority, SURE links,
800 problems) and the Edinburgh++ training set (SURE links, 714 problems). Protocols:

* ``msr2edi``: train on MSR RTE2 dev, test on Edinburgh++ train;
* ``edi2msr``: train on Edinburgh++ train, test on MSR RTE2 dev;
* ``folds``: k folds split by problem in both corpora at once (fold i = the i-th
  contiguous chunk of each corpus); each fold is tested with weights trained on every
  other fold of *both* corpora; figures per corpus over all its problems;
* ``msrfolds`` / ``edifolds``: the same folds of one corpus alone (trained on it only),
  the like-for-like references for the rows of ``folds``.

``--msr-weight W`` scales the perceptron updates of MSR problems in ``folds`` by W.
``--with embedding`` extracts the features with the lexical similarity's opt-in
``embedding`` component on (static embeddings; its own ``sub:lex_embedding`` column).

Feature variants (``--variants``): ``base`` is the feature set of the shipped ``msr`` model
(every group of :data:`GROUPS` switched off during training, so their weights stay 0);
``msr_edi`` adds the groups of the shipped ``msr_edi`` model (:data:`MSR_EDI_GROUPS`);
``all`` adds every group; ``+name`` / ``-name`` add or remove one group of :data:`GROUPS`
(``numval``: numbers in other formats read as one value; in no shipped model). Phrase-block
and pair-parity groups were measured at commit d513052 and taken out (docs/experiments.md).
Features are extracted once per run and the variants differ only in which weights
training may move, so one run compares them on exactly the same candidates.

Test problems are decoded without the gold blocks training adds to the candidates.

Usage: NLTK_DATA=../shared/nltk_data python -m experiments.manli_transfer
       [--protocols msr2edi,edi2msr,folds] [--variants base,all] [--sample-msr N]
       [--sample-edi N] [--epochs 50] [--folds 4] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

from experiments.common import SHARED, log
from experiments.manli_folds import figures, test
from explorer.aligners.evaluation import load_gold
from explorer.aligners.manli.learn import Problem, TrainConfig, lexical_flags_with, prepare, train
from explorer.aligners.manli.model import lexical_similarity
from explorer.aligners.manli.names import FEATURES, INDEX, N_FEATURES

#: Feature groups beyond the `msr` model's (names in :data:`explorer.aligners.manli.features.FEATURES`).
GROUPS: dict[str, tuple[str, ...]] = {
    "stop": ("sub:stop_unsupported",),
    "be": ("sub:be_mixed", "sub:be_unsupported"),
    "num": ("sub:num_mismatch", "sub:num_one_side"),
    "ctx2": ("sub:context2",),
    "rival": ("sub:rival", "sub:rival_unsupported"),
    "shape": ("del:excess", "ins:excess", "sub:weak_excess"),
    # numbers in other formats read as one value
    "numval": ("sub:num_value_eq", "sub:num_value_clash"),
}
NEW: tuple[str, ...] = tuple(name for group in GROUPS.values() for name in group)
#: The groups the shipped ``msr_edi`` model is trained with.
MSR_EDI_GROUPS: tuple[str, ...] = ("stop", "be", "num", "ctx2", "rival", "shape")


def variant_mask(spec: str) -> np.ndarray:
    """1 for the features training may move under the variant ``spec``."""
    mask = np.ones(N_FEATURES)
    parts = spec.replace("-", " -").replace("+", " +").split()
    head = parts[0] if parts and parts[0] in ("base", "msr_edi", "all") else "base"
    if head != "all":
        for name in NEW:
            mask[INDEX[name]] = 0.0
    if head == "msr_edi":
        parts = parts + [f"+{group}" for group in MSR_EDI_GROUPS]
    for part in parts:
        if part in ("base", "msr_edi", "all"):
            continue
        sign, group = part[0], part[1:]
        if group not in GROUPS:
            raise SystemExit(f"unknown group {group!r}; known: {', '.join(GROUPS)}")
        for name in GROUPS[group]:
            mask[INDEX[name]] = 1.0 if sign == "+" else 0.0
    return mask


def _sample(items: list, n: int | None) -> list:  # type: ignore[type-arg]
    if n is None or n >= len(items):
        return items
    return [items[int(i)] for i in np.linspace(0, len(items) - 1, n).round().astype(int)]


def load(name: str, sample: int | None, similarity: object,
         cache: Path | None = None, lexical: str = "") -> tuple[list[Problem], list]:  # type: ignore[type-arg]
    """The corpus's problems (features extracted) and gold alignments; with ``cache``, kept
    there as a pickle keyed by the corpus, the sample, the feature code's text and the
    opt-in lexical components (``lexical``, as given to ``--with``)."""
    if cache is not None:
        import hashlib
        import pickle

        import explorer.aligners.manli as manli_package

        code = b"".join(p.read_bytes() for p in sorted(Path(manli_package.__file__).parent.glob("*.py")))
        key = hashlib.sha1(code).hexdigest()[:12]
        tag = f"_with-{lexical.replace(',', '+')}" if lexical else ""
        path = cache / f"manli_{name}_{sample or 'all'}_{key}{tag}.pkl"
        if path.is_file():
            return pickle.loads(path.read_bytes())  # type: ignore[no-any-return]
        out = load(name, sample, similarity)
        cache.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(out))
        return out
    paths = [str(SHARED / "msr_align" / f"RTE2_dev_{x}.align.txt") for x in "ABC"] if name == "msr" else [
        str(SHARED / "edinburgh" / "gold.train.sure.json")]
    pairs = _sample([p for p in load_gold(paths).pairs if p.gold_alignment is not None], sample)
    started = time.perf_counter()
    problems = prepare(pairs, similarity, log=log)  # type: ignore[arg-type]
    log(f"{name}: features for {len(problems)} problems in {time.perf_counter() - started:.0f} s, "
         f"median {int(np.median([len(p.features) for p in problems]))} candidates")
    return problems, [p.gold_alignment for p in pairs]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocols", default="msr2edi,edi2msr,folds")
    parser.add_argument("--variants", default="base,all")
    parser.add_argument("--sample-msr", type=int)
    parser.add_argument("--sample-edi", type=int)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--burn-in", type=int, help="epochs left out of the average (default min(10, epochs - 1))")
    parser.add_argument("--msr-weight", type=float, default=1.0,
                        help="factor on the updates of MSR problems when both corpora are trained on (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the perceptron's shuffling seed (default 0)")
    parser.add_argument("--orders", type=int, default=1,
                        help="average the weights of this many training orders (seeds seed, seed+1, ...)")
    parser.add_argument("--decay", type=float, default=0.8, help="learning-rate decay per epoch (default 0.8)")
    parser.add_argument("--save", help="save the first variant's models trained on all of MSR and on MSR + "
                        "Edinburgh++ under this folder (manli_msr.json, manli_msr_edi.json)")
    parser.add_argument("--save-models", default="msr,msr_edi",
                        help="which of the --save models to train and save (default msr,msr_edi)")
    parser.add_argument("--cache", type=Path, help="keep the extracted features here (a pickle per corpus and "
                        "sample, keyed by the feature code), e.g. /tmp/manli_cache")
    parser.add_argument("--with", dest="lexical", default="",
                        help="opt-in lexical components to switch on, comma-separated (embedding)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    protocols = [p for p in args.protocols.split(",") if p]
    burn_in = args.burn_in if args.burn_in is not None else min(10, args.epochs - 1)
    config = TrainConfig(epochs=args.epochs, burn_in=burn_in, decay=args.decay, seed=args.seed, orders=args.orders)
    flags = lexical_flags_with(args.lexical.split(","))
    similarity = lexical_similarity(flags)
    started = time.perf_counter()
    msr, msr_gold = load("msr", args.sample_msr, similarity, args.cache, args.lexical)
    edi, edi_gold = load("edi", args.sample_edi, similarity, args.cache, args.lexical)
    out: dict[str, object] = {"msr": len(msr), "edi": len(edi), "epochs": args.epochs, "lexical": flags, "rows": []}
    rows: list[dict[str, object]] = out["rows"]  # type: ignore[assignment]
    variants = [v for v in args.variants.split(",") if v]
    msr_ids = {id(p) for p in msr}

    def weights_of(problems: list[Problem]) -> list[float] | None:
        """``--msr-weight`` on the MSR problems of a training set (None: every problem counts 1)."""
        return None if args.msr_weight == 1.0 else [args.msr_weight if id(p) in msr_ids else 1.0 for p in problems]

    for variant in variants:
        mask = variant_mask(variant)
        on_msr: np.ndarray | None = None
        if args.save and variant == variants[0]:  # the first variant's models, before its figures
            on_msr = _save(Path(args.save), variant, mask, msr, edi, config, flags,
                           [m for m in args.save_models.split(",") if m])
        if "msr2edi" in protocols:
            w = on_msr if on_msr is not None else train(msr, config=config, mask=mask)
            rows.append({"variant": variant, "protocol": "msr2edi", "test": "edi", **figures(test(edi, edi_gold, w))})
            log(json.dumps(rows[-1]))
        if "edi2msr" in protocols:
            w = train(edi, config=config, mask=mask)
            rows.append({"variant": variant, "protocol": "edi2msr", "test": "msr", **figures(test(msr, msr_gold, w))})
            log(json.dumps(rows[-1]))
        if "folds" in protocols:
            k = args.folds
            mb = np.linspace(0, len(msr), k + 1).astype(int)
            eb = np.linspace(0, len(edi), k + 1).astype(int)
            ms: list = []  # type: ignore[type-arg]
            es: list = []  # type: ignore[type-arg]
            for i in range(k):
                m0, m1, e0, e1 = int(mb[i]), int(mb[i + 1]), int(eb[i]), int(eb[i + 1])
                training = msr[:m0] + msr[m1:] + edi[:e0] + edi[e1:]
                w = train(training, config=config, mask=mask, problem_weights=weights_of(training))
                ms += test(msr[m0:m1], msr_gold[m0:m1], w)
                es += test(edi[e0:e1], edi_gold[e0:e1], w)
                log(f"{variant} fold {i + 1}/{k}: msr so far {figures(ms)}, edi so far {figures(es)}")
            rows.append({"variant": variant, "protocol": f"folds{k}", "test": "msr", **figures(ms)})
            log(json.dumps(rows[-1]))
            rows.append({"variant": variant, "protocol": f"folds{k}", "test": "edi", **figures(es)})
            log(json.dumps(rows[-1]))
        for corpus, probs, golds in (("msr", msr, msr_gold), ("edi", edi, edi_gold)):
            if f"{corpus}folds" not in protocols:
                continue
            k = args.folds
            mb = np.linspace(0, len(probs), k + 1).astype(int)
            ms = []
            for i in range(k):
                m0, m1 = int(mb[i]), int(mb[i + 1])
                ms += test(probs[m0:m1], golds[m0:m1], train(probs[:m0] + probs[m1:], config=config, mask=mask))
            rows.append({"variant": variant, "protocol": f"{corpus}{k}", "test": corpus, **figures(ms)})
            log(json.dumps(rows[-1]))
    out["seconds"] = round(time.perf_counter() - started, 1)
    out["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{'variant':<24} {'protocol':<8} test   P     R     F1    exact")
        for r in rows:
            print(f"{r['variant']:<24} {r['protocol']:<8} {r['test']:<5} {r['precision']:5.1f} {r['recall']:5.1f} "
                  f"{r['f1']:5.1f} {r['exact']:5.1f}")
        print(f"{out['seconds']} s, peak {out['max_rss_mb']} MB")


def _save(folder: Path, variant: str, mask: np.ndarray, msr: list[Problem], edi: list[Problem],
          config: TrainConfig, lexical: dict[str, bool], which: list[str]) -> np.ndarray | None:
    """Train on MSR and / or on MSR + Edinburgh++ (``which``), save them; returns the MSR
    weights (None when not trained)."""
    from explorer.aligners.manli import ManliModel
    from explorer.aligners.manli.features import FeatureConfig

    kept: list[np.ndarray] = []
    for name, problems in (("msr", msr), ("msr_edi", msr + edi)):
        if name not in which:
            continue
        started = time.perf_counter()
        w = np.where(mask > 0, train(problems, config=config, mask=mask), 0.0)
        kept.append(w)
        info = {"trained_on": len(problems), "variant": variant, "epochs": config.epochs, "burn_in": config.burn_in,
                "features_off": [FEATURES[i] for i in np.flatnonzero(mask == 0).tolist()],
                "sure_links": sum(p.n_sure for p in problems), "unreachable_links": sum(p.unreachable for p in problems),
                "seconds": round(time.perf_counter() - started, 1)}
        ManliModel(w, FeatureConfig(), dict(lexical), info).save(folder / f"manli_{name}.json")
        log(f"saved {folder / f'manli_{name}.json'}")
    return kept[0] if "msr" in which else None


if __name__ == "__main__":
    main()

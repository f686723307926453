"""MANLI's weights and the decoder's schedule: the weights file, the shipped models.

A model is one weight per feature name (:data:`explorer.aligners.manli.names.FEATURES`)
with the feature options and the lexical components it was trained with
(MacCartney, Galley & Manning 2008, §3). Features a file does not name load at 0, so
models trained before a feature was added keep working.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from explorer.aligners.manli.features import FeatureConfig
from explorer.aligners.manli.names import FEATURES
from explorer.errors import ExplorerError, read_json
from explorer.methods import model_path

if TYPE_CHECKING:
    from explorer.aligners.manli.evidence import SimilarityMatrix

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
#: The shipped model, named in the method table's ``manli`` row.
DEFAULT_MODEL = model_path("manli")


class ManliModelError(ExplorerError, ValueError):
    """A weights file that cannot be used."""


@dataclass(frozen=True)
class ShippedManli:
    """A MANLI model shipped in ``explorer/models``.

    Attributes:
        name: what ``--model`` and the Aligners page call it.
        file: the weights file in ``explorer/models``.
        label: a short human name.
        trained_on: what it was trained on, in words.
        training_sets: the gold sets it was trained on (:func:`training_set_of` keys),
            so figures on them are labelled training-set figures.
    """

    name: str
    file: str
    label: str
    trained_on: str
    training_sets: tuple[str, ...]

    @property
    def path(self) -> Path:
        return MODELS_DIR / self.file


#: The shipped MANLI models; the first is the default (aligner ``manli`` and scorer ``manli``).
SHIPPED_MODELS: dict[str, ShippedManli] = {
    m.name: m for m in (
        ShippedManli("msr", "manli_rte2dev.json", "MSR RTE2 dev",
                     "the 800 MSR RTE2 dev gold alignments (annotators A/B/C merged by majority, SURE links)",
                     ("msr_rte2_dev",)),
        ShippedManli("msr_edi", "manli_msr_edi.json", "MSR RTE2 dev + Edinburgh++ train",
                     "the 800 MSR RTE2 dev gold alignments (A/B/C merged, SURE) and the 714 Edinburgh++ "
                     "training pairs (SURE links); 30 epochs, weights averaged over 3 training orders",
                     ("msr_rte2_dev", "edinburgh_train")),
    )
}
DEFAULT_MODEL_NAME = "msr"


def model_file(name_or_path: str | Path) -> Path:
    """The weights file of a shipped model's name (:data:`SHIPPED_MODELS`), or the path given.

    Raises:
        ManliModelError: for a string that is neither a shipped name nor an existing file.
    """
    if isinstance(name_or_path, str) and name_or_path in SHIPPED_MODELS:
        return SHIPPED_MODELS[name_or_path].path
    path = Path(name_or_path)
    if not path.is_file():
        raise ManliModelError(
            f"{name_or_path}: no such MANLI model file; give a weights file or a shipped model "
            f"({', '.join(SHIPPED_MODELS)})"
        )
    return path


def training_set_of(dataset_name: str) -> str | None:
    """Which shipped training set a gold dataset's name (file name or merged-file key)
    denotes: ``msr_rte2_dev``, ``edinburgh_train`` or None."""
    lowered = dataset_name.lower()
    if "rte2_dev" in lowered or "msr-rte2-dev" in lowered:
        return "msr_rte2_dev"
    if "gold.train" in lowered:
        return "edinburgh_train"
    return None


@dataclass(frozen=True)
class DecoderConfig:
    """MANLI-ALIGN's schedule: N rounds, initial temperature T0, cooling rate r."""

    iterations: int = 100
    t0: float = 40.0
    rate: float = 0.9
    seed: int = 0

    def __post_init__(self) -> None:
        if self.iterations < 0:
            raise ValueError("iterations must be >= 0")
        if not self.t0 > 0 or not 0 < self.rate <= 1:
            raise ValueError("t0 must be > 0 and rate in (0, 1]")


@dataclass(frozen=True)
class ManliModel:
    """Weights (one per name in :data:`FEATURES`) and the feature options they were
    trained with."""

    weights: np.ndarray
    features: FeatureConfig = FeatureConfig()
    lexical: dict[str, bool] = field(default_factory=dict)
    info: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "model": "manli",
            "features": {"max_phrase": self.features.max_phrase, "contextual": self.features.contextual},
            "lexical": dict(self.lexical),
            "weights": {name: round(float(w), 6) for name, w in zip(FEATURES, self.weights)},
            "info": dict(self.info),
        }

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, payload: dict[str, object], *, source: str = "model") -> ManliModel:
        if not isinstance(payload, dict) or payload.get("model") != "manli":
            raise ManliModelError(f"{source}: not a MANLI weights file (expected \"model\": \"manli\")")
        raw = payload.get("weights")
        if not isinstance(raw, dict):
            raise ManliModelError(f"{source}: \"weights\" must map feature names to numbers")
        unknown = sorted(set(raw) - set(FEATURES))
        if unknown:
            raise ManliModelError(f"{source}: unknown features {', '.join(unknown)}")
        weights = np.array([float(raw.get(name, 0.0)) for name in FEATURES])
        feats = payload.get("features") or {}
        lexical = payload.get("lexical") or {}
        info = payload.get("info") or {}
        if not isinstance(feats, dict) or not isinstance(lexical, dict) or not isinstance(info, dict):
            raise ManliModelError(f"{source}: \"features\", \"lexical\" and \"info\" must be objects")
        config = FeatureConfig(
            max_phrase=int(feats.get("max_phrase", 6)), contextual=bool(feats.get("contextual", True))
        )
        return cls(weights, config, {str(k): bool(v) for k, v in lexical.items()}, dict(info))

    @classmethod
    def load(cls, path: str | Path) -> ManliModel:
        return cls.from_json(read_json(path, ManliModelError), source=str(path))


@lru_cache(maxsize=1)
def default_model() -> ManliModel:
    """The shipped weights, trained on the 800 MSR RTE2 dev problems."""
    return ManliModel.load(DEFAULT_MODEL)


@lru_cache(maxsize=len(SHIPPED_MODELS))
def shipped_model(name: str) -> ManliModel:
    """A shipped model by name (loaded once).

    Raises:
        ManliModelError: for a name not in :data:`SHIPPED_MODELS`.
    """
    if name not in SHIPPED_MODELS:
        raise ManliModelError(f"no shipped MANLI model {name!r}; choose from {', '.join(SHIPPED_MODELS)}")
    return default_model() if name == DEFAULT_MODEL_NAME else ManliModel.load(SHIPPED_MODELS[name].path)



def lexical_similarity(flags: dict[str, bool]) -> SimilarityMatrix:
    """The project's lexical similarity with a model's component switches (``ManliModel.lexical``)."""
    from explorer.lexical import LexicalConfig, similarity_for

    return similarity_for(LexicalConfig(**flags))

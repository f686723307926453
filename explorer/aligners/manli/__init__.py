"""MANLI, the phrase-based alignment model for NLI (MacCartney, Galley & Manning 2008).

The package's public names; the modules hold the parts:

* :mod:`.model` -- the weights file (:class:`ManliModel`), the shipped models, the
  decoder's schedule (:class:`DecoderConfig`);
* :mod:`.features` -- phi(e) of every candidate edit (§3), with the lexical evidence
  (:mod:`.evidence`), the candidate blocks (:mod:`.candidates`) and the number features
  (:mod:`.numbers`) beside it; the feature names in :mod:`.names`;
* :mod:`.search` and :mod:`.kernel` -- MANLI-ALIGN, the simulated-annealing decoder (§4);
* :mod:`.aligner` -- :class:`ManliAligner` and :class:`ManliScorer`, the registered aligner and scorer
  (the result: :mod:`.result`);
* :mod:`.entailment` -- the ``manli`` scorer's entailment value;
* :mod:`.learn` -- the averaged perceptron that trains the weights (§3.2).
"""

from explorer.aligners.manli.aligner import ManliAligner, ManliScorer
from explorer.aligners.manli.entailment import HYPOTHESIS_SCORE_WEIGHT, ManliScore, entailment_score
from explorer.aligners.manli.features import CandidateSpans
from explorer.aligners.manli.model import (
    DEFAULT_MODEL,
    DEFAULT_MODEL_NAME,
    MODELS_DIR,
    SHIPPED_MODELS,
    DecoderConfig,
    ManliModel,
    ManliModelError,
    ShippedManli,
    default_model,
    lexical_similarity,
    model_file,
    shipped_model,
    training_set_of,
)
from explorer.aligners.manli.result import ManliResult
from explorer.aligners.manli.search import AnnealLog, anneal, anneal_logged, decode

__all__ = [
    "DEFAULT_MODEL", "DEFAULT_MODEL_NAME", "HYPOTHESIS_SCORE_WEIGHT", "MODELS_DIR", "SHIPPED_MODELS",
    "AnnealLog", "CandidateSpans", "DecoderConfig", "ManliAligner", "ManliModel", "ManliModelError", "ManliResult",
    "ManliScore", "ManliScorer", "ShippedManli", "anneal", "anneal_logged", "decode", "default_model",
    "entailment_score", "lexical_similarity", "model_file", "shipped_model", "training_set_of",
]

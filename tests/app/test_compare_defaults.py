"""The Compare page opens on two scorers that spread the sample's pairs over the plane."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from components.data import dataset_scores, default_dataset
from tests.deadline import DEADLINE

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_the_default_scatter_is_not_a_stripe_at_zero() -> None:
    at = AppTest.from_file(APP, default_timeout=DEADLINE).run()
    at.switch_page("components/pages/compare.py").run()
    assert not at.exception, at.exception
    x, y = at.selectbox(key="compare_x").value, at.selectbox(key="compare_y").value
    assert x != y
    loaded = default_dataset()
    for name in (x, y):
        scores = dataset_scores(loaded, name)
        # At most a third of the pairs on one value: plain BLEU has 32 of the 56 at 0 (no
        # 4-gram in common); bag of words has 16 at its ceiling (every hypothesis word found).
        _, counts = np.unique(np.round(scores, 6), return_counts=True)
        assert counts.max() <= len(scores) / 3, (name, counts.max(), len(scores))

"""Published figures kept as data (explorer/published.py)."""

from __future__ import annotations

import pytest

from explorer import published
from explorer.scorers import SCORERS


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("rte1_dev.xml", "rte1_dev"),
        ("/data/RTE2_dev.xml", "rte2_dev"),
        ("rte3_dev_3ways.xml", "rte3_dev"),
        ("typical.xml", None),
        ("pairs.csv", None),
    ],
    ids=["rte1", "path-and-case", "3way", "sample", "csv"],
)
def test_dataset_key(name: str, key: str | None) -> None:
    assert published.dataset_key(name) == key


def test_szymanski_figures_for_rte1_dev() -> None:
    (mbleu,) = published.lookup("rte1_dev", "mbleu", metric="accuracy")
    assert mbleu.value == pytest.approx(0.578)
    assert mbleu.cutoff == pytest.approx(0.221)
    (bleu,) = published.lookup("rte1_dev", "bleu")
    assert bleu.value == pytest.approx(0.538)
    assert published.lookup(None, "mbleu") == []
    assert published.lookup("rte1_dev", "no-such-scorer") == []


def test_every_figure_names_a_known_scorer_and_a_fraction() -> None:
    for figure in published.PUBLISHED:
        assert figure.scorer in SCORERS, figure
        assert 0.0 <= figure.value <= 1.0 or figure.metric in ("pearson", "spearman"), figure
        assert figure.source

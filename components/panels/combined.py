"""The combined classifier's tab on the Pair page: its decision and the features that
pushed it (one term per feature of the shipped linear model, largest first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from components import analysis, charts
from explorer.preprocess import AnalyzedPair

if TYPE_CHECKING:
    from explorer.combined import CombinedResult


def contribution_rows(result: CombinedResult, *, top: int | None = None) -> list[dict[str, object]]:
    """Table rows for a :class:`explorer.combined.CombinedResult`: feature, what it
    measures, this pair's value, its push on the decision (+ towards entailment)."""
    from explorer.combined import FEATURES

    rows: list[dict[str, object]] = [{
        "feature": c.feature, "measures": FEATURES.get(c.feature, ""), "value": round(c.value, 4),
        "push": round(c.contribution, 4), "towards": "entails" if c.contribution > 0 else "does not entail",
    } for c in result.contributions]
    return rows[:top] if top else rows


def render_combined_panel(pair: AnalyzedPair, *, key: str = "combined") -> None:
    from explorer.combined import CombinedResult, default_model

    model = default_model()  # its feature names and training files, for the caption
    result = analysis.score_as("combined", pair, CombinedResult)  # the strip's result (the same explanation), else on a worker
    files = model.info.get("trained_on_files")  # free-form metadata read from the model file
    trained_on = ", ".join(str(f) for f in files) if isinstance(files, list) else ""
    st.caption(
        f"A logistic regression over {len(model.features)} features ({', '.join(model.features)}), trained "
        f"on {trained_on or 'RTE dev data'}. Each feature "
        "pushes the decision by weight × (value − its training mean) / its spread; the pushes "
        "and the intercept add up to the decision (entails above 0). The features were chosen by "
        "what transfers across the RTE sets (docs/RESULTS.md)."
    )
    left, middle, right = st.columns(3)
    left.metric("Probability of entailment", f"{result.value:.3f}")
    middle.metric("Decision", "entails" if result.entailed else "does not entail")
    right.metric("Logit (intercept + pushes)", f"{result.decision:+.3f}", help=f"intercept {result.intercept:+.3f}")
    from components.figures.combined import push_bars

    charts.plotly_chart(push_bars(result.contributions, result.intercept), key=f"{key}_pushes")
    rows = contribution_rows(result)
    st.dataframe(rows[:12], hide_index=True, key=f"{key}_contributions")
    if len(rows) > 12:
        with st.expander(f"All {len(rows)} features"):
            st.dataframe(rows, hide_index=True, key=f"{key}_all")

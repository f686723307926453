"""Pure Plotly figure builders, one module per subject: no Streamlit here (tests/unit/test_layering.py
holds them to it), so each is unit-tested on its own."""

"""Streamlit UI pieces and pure Plotly figure builders (the core library is `explorer/`)."""

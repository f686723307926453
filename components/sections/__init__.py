"""Page sections: Streamlit pieces a page draws whole (annotation, bulk tagging, counterfactual,
alignment editor, the MT-metric experiment), each one function taking the page's data."""

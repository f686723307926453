"""The Entailment Alignment Explorer's core library.

Everything here returns data; nothing imports streamlit or plotly. The UI lives in
``components/`` and ``app.py``.
"""

__version__ = "0.1.0"

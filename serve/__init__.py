"""Serving the explorer to a class: ``make serve-class`` (``python -m serve``).

Caddy (Debian's package) in front, as the one gate: HTTP basic authentication on every
request, before anything reaches Streamlit; behind it, K Streamlit processes on internal
localhost ports, picked by a sticky cookie so a browser's page, uploads and media always
reach the process that holds its session. See :mod:`serve.class_server`.
"""

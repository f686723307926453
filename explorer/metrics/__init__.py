"""Scoring methods, one module each (see :mod:`explorer.scorers` for the registry)."""

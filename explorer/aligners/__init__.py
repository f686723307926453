"""The aligner registry: one plain dict read by the CLI (``align-eval``) and the UI.

An aligner turns an analysed pair into a frozen result carrying an
:class:`explorer.alignment.Alignment` (``alignment``) and the number compared to a
cutoff (``value``), plus whatever breakdown the UI draws. The contracts live in
:mod:`explorer.api`. Its row (how to build it, what it needs, its cost model) sits in its
method's row of :data:`explorer.methods.METHODS`; adding an aligner is its module and that row.
"""

from __future__ import annotations

from typing import cast

from explorer.api import Aligner, AlignerInfo, Registry, UnknownNameError
from explorer.methods import aligner_rows


class UnknownAlignerError(UnknownNameError):
    """An aligner name the registry does not have."""


#: Every method's aligners (:data:`explorer.methods.METHODS`), by name.
ALIGNERS: Registry[AlignerInfo] = Registry("aligner", aligner_rows(), error=UnknownAlignerError)


def get_aligner(name: str) -> Aligner:
    """The aligner registered under ``name`` (built once).

    Raises:
        UnknownAlignerError: naming the known aligners.
    """
    return cast(Aligner, ALIGNERS.build(name))


__all__ = ["ALIGNERS", "UnknownAlignerError", "get_aligner"]

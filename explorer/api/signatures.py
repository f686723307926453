"""The settings behind a reported number, as sacreBLEU's signature records them: the
method, the explorer's version, the model file and its sha256 prefix, the lexical
configuration and where the cutoff came from; and where a method's shipped model file is.

>>> sig = signature("mbleu", cutoff_source="dev")
>>> sig["method"], sig["cutoff_source"]
('mbleu', 'dev')
>>> signature_text({"method": "manli", "lexical": {"wordnet": True, "ppdb": False}})
'method:manli|lexical:wordnet=True,ppdb=False'
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.api.rows import MethodInfo


def file_digest(path: str | Path, length: int = 12) -> str | None:
    """The first ``length`` hex digits of a file's sha256 (None when unreadable)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:length]
    except OSError:
        return None


#: The shipped model files (``explorer/models/``), which ``MethodInfo.model`` names.
MODELS_DIR = Path(__file__).resolve().parents[1] / "models"


def model_path(info: MethodInfo) -> Path | None:
    """The shipped model file of a scorer's or aligner's info record (None for
    methods without one)."""
    return MODELS_DIR / info.model if info.model else None


def method_signature(info: MethodInfo, *, model: str | Path | None = None,
                     cutoff_source: str | None = None) -> dict[str, object]:
    """:func:`signature` of a registered method: its model file (``model`` overrides
    the shipped one) and, when the model file records one, its lexical configuration."""
    path = Path(model) if model is not None else model_path(info)
    lexical = None
    if path is not None:
        try:
            import json

            payload = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(payload, dict) and isinstance(payload.get("lexical"), dict):
                lexical = payload["lexical"]
        except (OSError, ValueError):
            pass
    return signature(info.name, model=path, lexical=lexical, cutoff_source=cutoff_source)


def signature(method: str, *, model: str | Path | None = None, lexical: Mapping[str, object] | None = None,
              cutoff_source: str | None = None, **extra: object) -> dict[str, object]:
    """The settings behind a reported number, as sacreBLEU's signature records them:
    the method, the explorer's version, the model file and its sha256 prefix, the
    lexical configuration and where the cutoff came from."""
    from explorer import __version__

    sig: dict[str, object] = {"method": method, "version": __version__}
    if model is not None:
        sig["model"] = Path(model).name
        sig["model_sha256"] = file_digest(model)
    if lexical is not None:
        sig["lexical"] = dict(lexical)
    if cutoff_source is not None:
        sig["cutoff_source"] = cutoff_source
    sig.update(extra)
    return sig


def signature_text(sig: Mapping[str, object]) -> str:
    """``method:mbleu|version:0.1.0|...`` (one line, for text output)."""
    parts = []
    for key, value in sig.items():
        if isinstance(value, Mapping):
            value = ",".join(f"{k}={v}" for k, v in value.items())
        parts.append(f"{key}:{value}")
    return "|".join(parts)

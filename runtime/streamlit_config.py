"""The app's own Streamlit settings (``.streamlit/config.toml``) for code that must agree
with them.

Streamlit's server refuses an upload past ``server.maxUploadSize``; the bounded reader
(:mod:`components.uploads`) takes the same size as its byte limit, and the class server
(:mod:`serve.class_server`) passes it to every Streamlit process and sizes Caddy's request
body limit from it. All of them read it here, from the one file. Standard library only, so
the class server's launcher reads it without importing the app.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml"


def max_upload_mb(config: Path | None = None) -> int:
    """``server.maxUploadSize``: megabytes (MiB, as Streamlit counts them) in one uploaded file.

    Raises:
        ValueError: the file does not set it to a positive whole number.
    """
    config = CONFIG if config is None else config
    with config.open("rb") as f:
        value = tomllib.load(f).get("server", {}).get("maxUploadSize")
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{config}: [server] maxUploadSize must be a positive whole number of megabytes, "
                         f"not {value!r}")
    return value

"""What the browser tests share: the warm-up's disk caches built before the first server
starts, and one served app per test module (starting one takes a while on a shared
machine), with a store and an uploads folder of its own."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.e2e.browser import require_chromium, throwaway_app


@pytest.fixture(scope="session", autouse=True)
def disk_caches_built() -> None:
    """Build what a first start on this checkout builds (numba's kernel cache beside the
    library's modules, the derived lexicons) before any server starts, and wait for it. A
    served app's warm-up would build them itself, inside the first test's wait for its
    first page: minutes of CPU on a busy machine, which no page wait should have to cover.
    Each helper is bounded (:data:`runtime.disk_caches.HELPER_TIMEOUT`)."""
    from runtime import disk_caches

    if disk_caches.missing():
        disk_caches.build_missing(os.cpu_count() or 1)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[str]:
    require_chromium()
    with throwaway_app(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])) as url:
        yield url

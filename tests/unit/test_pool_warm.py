"""The worker pool as the app runs it: workers forked from the warm fork server
(:mod:`runtime.pool.zygote`) give exactly the results of scoring in this process, for every
registered scorer and aligner, and the fork server reports each warm-up step by name; without
NLTK data it says so in one line per skipped resource, with no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from explorer.aligners import ALIGNERS, get_aligner
from explorer.datasets import load
from explorer.preprocess import analyze_pair, make_pair
from explorer.scorers import SCORERS, get_scorer
from runtime import warmup
from runtime.pool import Pool, tasks
from runtime.pool.tasks import Outcome
from tests.deadline import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
WAIT = 2 * DEADLINE  # the warm-up on a busy shared machine, then three pairs (tests/deadline.py)


def _in_process(run: Any) -> tuple[str, Any]:
    try:
        return "ok", run().to_json()
    except Exception as err:  # the same refusal is expected from the worker
        return "error", f"{type(err).__name__}: {err}"


@pytest.mark.slow
def test_workers_of_the_warm_fork_server_give_the_in_process_results() -> None:
    sample = load(ROOT / "sample_data" / "typical.xml").pairs
    pairs = [sample[0], sample[7], make_pair("Kettleby's council sold the old ferry in 1999.", "The ferry was sold.")]
    pool = Pool(1, long_workers=1, budget=WAIT).start()
    try:
        for pair in pairs:
            analyzed = analyze_pair(pair)
            ticket = pool.submit("test", tasks.score_pair, pair, list(SCORERS))
            ticket.result(WAIT)
            outcomes = {o.name: o for o in ticket.partial if isinstance(o, Outcome)}
            assert len(outcomes) == len(ticket.partial)
            for name in SCORERS:
                remote = outcomes[name]
                got = ("ok", remote.result.to_json()) if remote.result is not None else \
                    ("error", f"{type(remote.error).__name__}: {remote.error}")
                assert got == _in_process(lambda n=name, a=analyzed: get_scorer(n).score(a)), (pair.id, name)
            for name in ALIGNERS:
                remote_alignment = pool.submit("test", tasks.align_pair, pair, name).result(WAIT)
                assert remote_alignment.to_json() == get_aligner(name).align(analyzed).to_json(), (pair.id, name)
            parse = pool.submit("test", tasks.itg_parse, pair, "itg_lex").result(WAIT)
            assert parse.to_json() == get_scorer("itg_lex").score(analyzed).to_json()  # type: ignore[attr-defined]
        status = warmup.read_status(warmup.status_path(os.getpid()))
        assert status is not None and status.finished
        assert status.total == len(warmup.default_steps())
    finally:
        pool.close()


#: A server whose pool warms up with no NLTK data at all: it forks a worker, runs one job.
_WITHOUT_DATA = """
import os
from runtime.pool import Pool
pool = Pool(1, long_workers=1, budget=600).start()
try:
    assert pool.submit("test", os.getpid).result(600) != os.getpid()
finally:
    pool.close()
"""


@pytest.mark.slow
def test_a_server_without_nltk_data_says_one_line_per_skipped_resource_and_no_traceback(tmp_path: Path) -> None:
    empty = tmp_path / "nltk_data"
    empty.mkdir()
    env = {**os.environ, "NLTK_DATA": str(empty), "HOME": str(tmp_path), "EXPLORER_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _WITHOUT_DATA], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=WAIT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = (done.stdout + done.stderr).splitlines()
    assert not [line for line in lines if "Traceback" in line or "LookupError" in line], done.stderr[-2000:]
    # The one step that cannot run without data: Brown's information content, said once.
    assert [line for line in lines if line.startswith("warm-up:")] == [
        "warm-up: NLTK resource 'brown' is missing, so 1 step was skipped (WordNet information content from Brown "
        "(disk cache)); the app runs degraded, `make resources` fetches it."]
    assert len(lines) == 1, lines

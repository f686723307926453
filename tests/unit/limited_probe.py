"""A child for tests/unit/test_processes.py (``python -m tests.unit.limited_probe [MB | spin]``):
prints its niceness, its data and processor-time limits and its math libraries' thread
count as JSON; then holds MB megabytes and says so, or spins until its processor time runs
out."""

from __future__ import annotations

import json
import os
import resource
import sys


def main() -> None:
    print(json.dumps({"nice": os.nice(0), "data": resource.getrlimit(resource.RLIMIT_DATA)[0],
                      "cpu": resource.getrlimit(resource.RLIMIT_CPU)[0],
                      "threads": os.environ.get("OPENBLAS_NUM_THREADS", "")}), flush=True)
    if sys.argv[1:] == ["spin"]:
        while True:
            pass
    if len(sys.argv) > 1:
        held = bytearray(int(sys.argv[1]) * 2**20)
        print(f"held {len(held) // 2**20} MB", flush=True)


if __name__ == "__main__":
    main()

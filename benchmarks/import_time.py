"""Time ``import evaltoolkit`` in fresh interpreters and list the heavy modules it loaded.

    python benchmarks/import_time.py [--runs 10]

litellm, matplotlib, ipywidgets, pandas, jsonschema, dask and distributed must load only when
first used.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

PROBE = (
    "import time; started = time.perf_counter(); import evaltoolkit; "
    "elapsed = time.perf_counter() - started; import sys; "
    "heavy = [m for m in ('litellm', 'matplotlib', 'ipywidgets', 'pandas', 'jsonschema', "
    "'dask', 'distributed') "
    "if m in sys.modules]; print(elapsed, ','.join(heavy))"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    timings = []
    heavy = ""
    for _ in range(args.runs):
        completed = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
        )
        elapsed, _, heavy = completed.stdout.strip().partition(" ")
        timings.append(float(elapsed))
    print(
        f"import evaltoolkit: median {statistics.median(timings) * 1000:.0f} ms, "
        f"max {max(timings) * 1000:.0f} ms over {args.runs} fresh interpreters"
    )
    print(f"heavy modules loaded at import: {heavy or 'none'}")


if __name__ == "__main__":
    main()

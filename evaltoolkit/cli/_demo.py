"""``evaltoolkit demo``: score the bundled demo data with the offline judge."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..scorers import create_scorer
from ..scorers._internal import scorer_specs

if TYPE_CHECKING:
    pass
from ._common import (
    _DEMO_SETS,
    NOTEBOOK_COMMAND,
    _check_output,
    _exit_status,
    _judge_options,
    _print_summary,
    _score,
    _write,
)


@contextlib.contextmanager
def _demo_file(name: str) -> Iterator[Path]:
    """A demo data file shipped inside the package (a real path, even from a zip)."""
    from importlib.resources import as_file, files

    with as_file(files("evaltoolkit") / "_demo_data" / name) as path:
        yield path


def _demo(args: argparse.Namespace) -> int:
    options = _judge_options(args)
    out_dir = Path(args.out)
    jobs = [
        (name, file_name, [spec.id for spec in scorer_specs() if name in spec.demo])
        for name, file_name in _DEMO_SETS.items()
    ]
    targets = [
        _check_output(out_dir / f"demo_{name}.parquet", flag="--out", suffixes=(".parquet",))
        for name, _, _ in jobs
    ]
    status = 0
    for (name, file_name, scorer_names), target in zip(jobs, targets, strict=True):
        scorers = [create_scorer(s, **options) for s in scorer_names]
        with _demo_file(file_name) as path:
            from ..records.items import read_records

            rows = read_records(path)
            result = _score(rows, scorers, args, len(rows))
        _print_summary(result, f"demo {name}")
        _write(result, target, wide=False)
        print(f"wrote {target}\n")
        status = max(status, _exit_status(result, f"demo {name}"))
    if Path("notebooks").is_dir():  # run from a clone, where the notebooks are
        print(f"Explore them in a notebook: {NOTEBOOK_COMMAND} (start with 01_quickstart.ipynb).")
    return status


# -- meta-eval ------------------------------------------------------------------------------

"""``evaltoolkit report RESULTS -o FILE``: a self-contained HTML report of saved results."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigurationError

if TYPE_CHECKING:
    pass
from ._common import _check_output


def _report(args: argparse.Namespace) -> int:
    from ..report import write_report

    paths = [Path(path) for path in args.results]
    out = _check_output(args.out, flag="--out", suffixes=(".html",), inputs=paths)
    names = [path.name for path in paths]
    runs = {(path.name if names.count(path.name) == 1 else str(path)): path for path in paths}
    if len(runs) < len(paths):
        raise ConfigurationError("a results file is named twice; name each file once")
    target = write_report(runs, out, title=args.title, max_items=args.max_items)
    print(f"wrote {target} ({target.stat().st_size / 1e6:.1f} MB, {len(runs)} results file(s))")
    return 0


# -- compare --------------------------------------------------------------------------------

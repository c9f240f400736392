"""The ``evaltoolkit`` command line.

evaltoolkit demo                      score the bundled demo data with the offline judge
evaltoolkit run FILE --scorer NAME    score a .jsonl/.json/.csv/.tsv/.parquet file
evaltoolkit meta-eval FILE --task T   agreement of a judge with human labels (several
                                      --model options: a leaderboard of judges)
evaltoolkit report RESULTS -o FILE    a self-contained HTML report of saved results
evaltoolkit cache info|check|prune|clear  look after the judge cache

Every check that can fail (flags, columns, the output path) runs before any scoring, so a
mistake costs nothing. Exit status: 0 when done (the summary says how many items failed), 1
when a scorer failed on every item, 2 for a usage, input or output-path error, 3 when the
--max-cost budget stopped the run before every item was scored (rerun with a larger budget:
the judge cache resumes the run), 130 when interrupted (rerun the same command: a model
judge's cache resumes the run, unless --no-cache).

One module per command (``_run``, ``_demo``, ``_meta_eval``, ``_report``, ``_compare``,
``_cache``); what they share in ``_common``; the parser and :func:`main` in ``_main``.
"""

from __future__ import annotations

from ._main import console_main, main

__all__ = ["console_main", "main"]

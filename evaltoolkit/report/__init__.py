"""A self-contained HTML report of saved results: one file, no network, everything escaped.

The report layer sits beside the views: it reads results (an :class:`~evaltoolkit.EvalResult`,
the rows of an export, or the path of saved results) and never calls a model. The page holds
the run's metadata (judge model, prompts used, run id, date, items scored and failed, tokens and
cost), the per-scorer summary, the figures of :mod:`evaltoolkit.plots` as inline SVG, the items
whose alignment and coverage disagree most, and a table of every item with filters (scorer,
run, failed only, minimum disagreement) and a drill-down per item (source, summary, claims and
questions with their verdicts and reasons, errors). Its style sheet, script, figures and data
are inline, and its Content-Security-Policy forbids loading anything, so it opens from
``file://`` anywhere. Text from data or models is escaped (with markupsafe on the server side,
as DOM text in the page's script), and the values of the environment's API keys and tokens are
removed from the page.

Large runs stay small: drill-downs are kept for ``max_items`` rows (the most disagreeing and
the failed ones first) within a byte budget, texts are stored once and cut to
``max_text_chars``, and the page says what it left out.

Example:
    >>> import evaltoolkit as et, tempfile, pathlib
    >>> result = et.run_evals("data/demo_summaries.jsonl", et.create_summarization_scorer(),
    ...                       progress=False)
    >>> page = build_report(result, title="Demo summaries")
    >>> "Demo summaries" in page and "<link" not in page and "<img" not in page
    True
"""

from __future__ import annotations

from ._report import build_report, write_report

__all__ = ["build_report", "write_report"]

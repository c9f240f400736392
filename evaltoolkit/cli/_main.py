"""The ``evaltoolkit`` parser, :func:`main` and :func:`console_main`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..errors import ConfigurationError, EvalToolkitError
from ..scorers import scorer_ids

if TYPE_CHECKING:
    pass
from ._cache import _add_cache_command
from ._common import (
    _FORMATS,
    ESTIMATE_ABOVE,
    INTERRUPTED,
    _add_judge_arguments,
    _HelpFormatter,
    _Interrupted,
)
from ._compare import _add_compare_command
from ._demo import _demo
from ._meta_eval import _add_meta_eval_judge_arguments, _meta_eval_judges
from ._report import _report
from ._run import _run

_RUN_DESCRIPTION = """\
Score every item of FILE with one or more scorers, print a summary, and write one row per item
and scorer with --out.

FILE formats: .jsonl or .ndjson (one JSON object per line), .json (an array of objects, or
JSON Lines), .csv, .tsv (a header row, then one item per row; UTF-8) or .parquet.
Fields read from each item (rename them with the --*-col options):
  id            the item id (or item_id; default: the item's position)
  input         the input: text or a list of chat messages
  output        the output to score: text or a list of chat messages
  ground_truth  the reference answer (or groundTruth), for answer-similarity and
                textual-difference
  source        kept as a column, read as text like the fields above
Other fields are kept as columns. In CSV and TSV files these fields are read as text, so
"02134" keeps its leading zero; a number elsewhere is scored as its text, with a note.
Exported rows carry item_index (the item's position), which tells apart items sharing an id.

Cost: --estimate prints what the run would cost (judge calls, tokens and a cost range from
litellm's price table, per scorer and step; calls already in the judge cache counted apart)
and makes no request. A run of more than --estimate-above judge calls (default 1,000) prints
that estimate on one line before it starts. --max-cost USD stops starting items once the
spend plus the most the items in flight can cost would pass it.

Exit status: 0 done (the summary says how many items failed), 1 a scorer failed on every
item, 2 a usage, input or output-path error (found before scoring), 3 the --max-cost budget
was reached (the items not started are kept as "not scored"; rerun with a larger budget to
resume from the judge cache), 130 interrupted (rerun the same command: a model judge's
cache resumes the run, unless --no-cache).
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evaltoolkit",
        description="Score LLM outputs: summarization, answer similarity, textual difference.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"evaltoolkit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo",
        help="score the bundled demo data (offline judge: no key, no network)",
        formatter_class=_HelpFormatter,
    )
    demo.add_argument("--out", default="results", help="directory for the result files")
    _add_judge_arguments(demo)
    demo.set_defaults(handler=_demo)

    run = commands.add_parser(
        "run",
        help="score a data file",
        description=_RUN_DESCRIPTION,
        formatter_class=_HelpFormatter,
    )
    run.add_argument("file", type=Path, help="the data file")
    run.add_argument(
        "--scorer",
        action="append",
        required=True,
        choices=scorer_ids(),
        help="a scorer to run (repeat for several)",
    )
    run.add_argument(
        "--out",
        default=None,
        help="write the results to this .parquet, .csv or .jsonl file (never the input); "
        "checked before scoring, written all at once",
    )
    run.add_argument("--wide", action="store_true", help="one row per item instead of per score")
    run.add_argument("--input-col", default="input", help="field of the input")
    run.add_argument("--output-col", default="output", help="field of the output")
    run.add_argument(
        "--ground-truth-col",
        default=None,
        help="field of the ground truth (default: ground_truth or groundTruth)",
    )
    run.add_argument("--id-col", default=None, help="field of the item id (default: id or item_id)")
    run.add_argument(
        "--limit", type=int, default=None, help="score only the first N items (default: all)"
    )
    cost = run.add_argument_group("cost")
    cost.add_argument(
        "--estimate",
        action="store_true",
        help="print what the run would cost, per scorer and step, and exit without a request",
    )
    cost.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="USD",
        help="stop starting items once the spend plus the items in flight could pass this "
        "budget; the rest are kept as not scored (exit status 3)",
    )
    cost.add_argument(
        "--estimate-above",
        type=int,
        default=ESTIMATE_ABOVE,
        metavar="N",
        help="print the estimate on one line before a run of more than N judge calls",
    )
    _add_judge_arguments(run)
    dask = run.add_argument_group('Dask cluster (pip install "evaltoolkit[dask]")')
    where = dask.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="score on this Dask scheduler (tcp://HOST:8786); each worker thread keeps "
        "--concurrency calls in flight",
    )
    where.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="score on a local Dask cluster of N single-threaded worker processes",
    )
    dask.add_argument(
        "--total-concurrency",
        type=int,
        default=None,
        metavar="N",
        help="judge calls in flight across the whole cluster, split over its workers",
    )
    run.set_defaults(handler=_run)

    meta = commands.add_parser(
        "meta-eval",
        help="score a human-labelled file and report agreement with the labels",
        formatter_class=_HelpFormatter,
        conflict_handler="resolve",
    )
    meta.add_argument("file", type=Path, help=f"a labelled file: {_FORMATS}")
    meta.add_argument(
        "--task",
        required=True,
        choices=scorer_ids(),
        help="which scorer to evaluate",
    )
    meta.add_argument("--label", required=True, help="column of the human label")
    meta.add_argument("--group", default=None, help="column grouping items (default: doc_id)")
    meta.add_argument(
        "--input-col",
        "--source-col",
        "--question-col",
        dest="input_col",
        default=None,
        help="input column: summarization source (default: source, else input) or question "
        "(default: question, else input); --source-col and --question-col are its old names",
    )
    meta.add_argument(
        "--output-col",
        "--summary-col",
        "--answer-col",
        dest="output_col",
        default=None,
        help="output column: summary (default: summary, else output) or answer (default: "
        "candidate or sentence1, else output); --summary-col and --answer-col are its old names",
    )
    meta.add_argument(
        "--ground-truth-col",
        "--reference-col",
        dest="ground_truth_col",
        default=None,
        help="reference column (default: golden_answers or sentence2, else ground_truth); "
        "--reference-col is its old name",
    )
    meta.add_argument(
        "--limit", type=int, default=None, help="use only the first N rows (default: all)"
    )
    meta.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="score threshold for boolean labels (default: 0.4 for answer similarity)",
    )
    meta.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    meta.add_argument(
        "--out",
        default=None,
        help="write the agreement table, or the leaderboard for several judges (.csv, "
        ".parquet or .jsonl)",
    )
    meta.add_argument(
        "--plot",
        default=None,
        help="save a figure of scores against labels, or of agreement against cost for several "
        "judges (.png, .pdf, .svg)",
    )
    _add_meta_eval_judge_arguments(meta)
    meta.set_defaults(handler=_meta_eval_judges)

    report = commands.add_parser(
        "report",
        help="write a self-contained HTML report of saved results",
        formatter_class=_HelpFormatter,
    )
    report.add_argument(
        "results", nargs="+", help="results files (.parquet, .csv, .jsonl) written by run --out"
    )
    report.add_argument("-o", "--out", required=True, help="the HTML file to write")
    report.add_argument("--title", default=None, help="the report's title")
    report.add_argument(
        "--max-items",
        type=int,
        default=2000,
        help="rows that get a drill-down, at most (the rest keep their scores)",
    )
    report.set_defaults(handler=_report)

    _add_compare_command(commands)
    _add_cache_command(commands)
    return parser


# -- entry points ---------------------------------------------------------------------------


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    print(f"evaltoolkit: warning: {message}", file=sys.stderr)


def _interrupted(done: int | None, total: int | None, *, resumable: bool | None) -> int:
    """The one line Ctrl-C prints: a resume from the judge cache only where there is one."""
    counts = f" after {done} of {total} items" if done is not None else ""
    if resumable is None:
        what = "rerun the same command"
    elif resumable:
        what = "rerun the same command to resume from the cache"
    else:
        what = (
            "nothing was cached (no model judge, or --no-cache): rerun the same command to "
            "score again"
        )
    print(f"evaltoolkit: interrupted{counts}; {what}", file=sys.stderr)
    return INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Args:
        argv: The arguments, without the program name (default: ``sys.argv[1:]``).

    Returns:
        0 done, 1 a scorer failed on every item, 2 a usage or input error, 3 the
        ``--max-cost`` budget stopped the run before every item, 130 interrupted.

    Example:
        >>> main(["run", "missing.jsonl", "--scorer", "textual-difference"])
        2
    """
    args = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(handler(args))
    except EvalToolkitError as error:
        worded = error.command_line if isinstance(error, ConfigurationError) else None
        print(f"evaltoolkit: error: {worded or error}", file=sys.stderr)
        return 2
    except _Interrupted as interrupted:
        return _interrupted(interrupted.done, interrupted.total, resumable=interrupted.resumable)
    except KeyboardInterrupt:
        return _interrupted(None, None, resumable=None)
    except BrokenPipeError:
        # The reader went away (`evaltoolkit ... | head`): stop quietly, as Python's docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def console_main() -> None:
    """The ``evaltoolkit`` command: :func:`main`, then exit with its status.

    After Ctrl-C the process exits at once, without waiting for a judge step that is still
    running in a worker thread (its result would be thrown away anyway).
    """
    status = main()
    if status == INTERRUPTED:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)
    raise SystemExit(status)

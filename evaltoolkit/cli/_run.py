"""``evaltoolkit run FILE --scorer NAME``: score a data file (``--estimate``, ``--max-cost``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, EvalToolkitError
from ..scorers import create_scorer

if TYPE_CHECKING:
    pass
from ._common import (
    _EXPORTS,
    _check_limit,
    _check_output,
    _check_scorers,
    _exit_status,
    _judge_options,
    _max_cost,
    _print_summary,
    _read_rows,
    _run_fields,
    _score,
    _write,
    _write_elsewhere,
)


def _most_calls(rows: Sequence[Any], scorers: Sequence[Any]) -> int:
    """Judge calls a run makes at most, told without rendering a prompt."""
    from ..scorers import JudgedScorer, Step

    steps = sum(
        len(scorer.steps) + isinstance(scorer.reason, Step)
        for scorer in scorers
        if isinstance(scorer, JudgedScorer) and not scorer.judge.offline
    )
    return len(rows) * steps


def _estimate(rows: list[Any], scorers: list[Any], args: argparse.Namespace) -> Any:
    from ..runner import estimate_cost

    return estimate_cost(rows, scorers, **_run_fields(args))


def _check_cluster(args: argparse.Namespace) -> None:
    for flag, value in (
        ("--workers", args.workers),
        ("--total-concurrency", args.total_concurrency),
    ):
        if value is not None and value < 1:
            raise EvalToolkitError(f"{flag} must be 1 or more, got {value}")
    if args.total_concurrency is not None and args.scheduler is None and args.workers is None:
        raise EvalToolkitError("--total-concurrency needs --scheduler or --workers")


def _run(args: argparse.Namespace) -> int:
    from ..runner._internal import cluster_client

    _check_limit(args.limit)
    _check_scorers(args.scorer)
    _check_cluster(args)
    options = _judge_options(args)
    rows = _read_rows(args)  # the input's problems first: a missing file is not an output clash
    out = None
    if args.out:
        out = _check_output(args.out, flag="--out", suffixes=_EXPORTS, inputs=[args.file])
    scorers = [create_scorer(name, **options) for name in args.scorer]
    _max_cost(args)
    if args.estimate_above < 0:
        raise ConfigurationError(f"--estimate-above must be 0 or more, got {args.estimate_above}")
    if args.estimate:
        print(_estimate(rows, scorers, args))
        return 0
    if _most_calls(rows, scorers) > args.estimate_above:
        print(_estimate(rows, scorers, args).one_line(), flush=True)
    with cluster_client(args.scheduler, args.workers) as client:
        cluster = {} if client is None else {"client": client}
        if client is not None and args.total_concurrency is not None:
            cluster["total_concurrency"] = args.total_concurrency
        result = _score(rows, scorers, args, len(rows), **_run_fields(args), **cluster)
    _print_summary(result, str(args.file))
    if out is not None:
        try:
            _write(result, out, wide=args.wide)
        except OSError as error:
            return _write_elsewhere(result, out, error, args)
        print(f"wrote {out}")
    return _exit_status(result, str(args.file))

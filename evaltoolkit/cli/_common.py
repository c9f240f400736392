"""What the commands share: exit statuses, argument checks, judge options, scoring, summaries."""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.files import check_writable, same_file
from ..errors import ConfigurationError
from ..judge._internal import STRUCTURED_OUTPUT_MODES
from ..records import EvalResult, ItemResult
from ..runner._internal import DEFAULT_CONCURRENCY

if TYPE_CHECKING:
    pass


DEMO_FILES = ("demo_summaries.jsonl", "demo_answers.jsonl")


# The demo data sets by the name a scorer's registry entry (its ``demo``) uses for them.
_DEMO_SETS = {"summaries": DEMO_FILES[0], "answers": DEMO_FILES[1]}


# What the demo suggests next; `jupyter lab` comes with the jupyterlab dependency.
NOTEBOOK_COMMAND = "jupyter lab notebooks/"


_EXPORTS = (".parquet", ".csv", ".jsonl")


_TABLE_EXPORTS = (".csv", ".parquet", ".jsonl")


_FORMATS = ".jsonl, .ndjson, .json, .csv, .tsv or .parquet"


INTERRUPTED = 130


BUDGET_REACHED = 3


#: Before a run of more judge calls than this, the CLI prints the estimate on one line.
ESTIMATE_ABOVE = 1000


class _Interrupted(Exception):
    """Ctrl-C during scoring, with how far the run got and whether a judge cache kept it."""

    def __init__(self, done: int, total: int, *, resumable: bool) -> None:
        super().__init__(f"interrupted after {done} of {total} items")
        self.done = done
        self.total = total
        self.resumable = resumable


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, except where there is none to show (None, a flag)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or "(default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


# -- checks made before any scoring -------------------------------------------------------------


def _check_limit(limit: int | None) -> None:
    if limit is not None and limit < 1:
        raise ConfigurationError(f"--limit must be 1 or more, got {limit}")


def _check_scorers(names: list[str]) -> None:
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigurationError(
            f"--scorer {repeated[0]} is given more than once; give each scorer once"
        )


def _check_output(
    path: str | os.PathLike[str],
    *,
    flag: str,
    suffixes: Sequence[str],
    inputs: Sequence[Path] = (),
    others: Sequence[tuple[str, Path]] = (),
) -> Path:
    """The output path, once it is known to have a known suffix, not to be an input, and to be
    writable; else a ConfigurationError (exit status 2) before anything is scored."""
    out = Path(path)
    if str(path).endswith(("/", os.sep)):  # Path() drops the slash that makes it a folder
        example = out if out.suffix.lower() in suffixes else out / f"results{suffixes[0]}"
        raise ConfigurationError(
            f"{flag} {str(path)!r} ends in a slash, so it names a folder; name a file, "
            f"such as {str(example)!r}"
        )
    if out.suffix.lower() not in suffixes:
        raise ConfigurationError(
            f"{flag} must end in one of {', '.join(suffixes)}, got {str(out)!r}"
        )
    for source in inputs:
        if same_file(out, source):
            raise ConfigurationError(
                f"{flag} {str(out)!r} is the input file; writing there would destroy it. "
                "Name another file."
            )
    for other_flag, other in others:
        if same_file(out, other):
            raise ConfigurationError(f"{flag} and {other_flag} name the same file {str(out)!r}")
    problem = check_writable(out)
    if problem is not None:
        raise ConfigurationError(f"{flag}: {problem}")
    return out


# -- judge options --------------------------------------------------------------------------


def _judge_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.concurrency < 1:
        raise ConfigurationError(f"--concurrency must be 1 or more, got {args.concurrency}")
    options: dict[str, Any] = {"model": args.model, "api_base": args.api_base}
    for option in ("timeout", "max_retries", "max_repairs", "max_tokens"):
        if getattr(args, option) is not None:
            options[option] = getattr(args, option)
    if args.structured_output is not None:
        options["structured_output"] = args.structured_output
    if args.cache_as is not None:
        options["cache_as"] = args.cache_as
    if args.no_cache and args.cache_dir:
        raise ConfigurationError(
            "--no-cache and --cache-dir contradict each other: give --cache-dir to use that "
            "cache, or --no-cache to use none"
        )
    if args.no_cache:
        options["cache"] = False
    elif args.cache_dir:
        options["cache"] = args.cache_dir
    return options


def _add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    judge = parser.add_argument_group("judge")
    judge.add_argument(
        "--model",
        default=None,
        help="litellm model string for model-judged scorers (default: the offline judge: "
        "no key, no network); API keys are read from the provider's environment variable",
    )
    judge.add_argument("--api-base", default=None, help="base URL of an OpenAI-compatible server")
    judge.add_argument(
        "--timeout", type=float, default=None, help="seconds per model request (default 60)"
    )
    judge.add_argument(
        "--max-retries",
        type=int,
        default=None,
        help="retries of a request after a rate limit, server error or dropped connection "
        "(default 6)",
    )
    judge.add_argument(
        "--max-repairs",
        type=int,
        default=None,
        help="follow-up requests that show the model why its reply was not valid (default 2)",
    )
    judge.add_argument(
        "--max-tokens", type=int, default=None, help="most tokens per reply (default: the model's)"
    )
    judge.add_argument(
        "--structured-output",
        choices=STRUCTURED_OUTPUT_MODES,
        default=None,
        help="how to ask the model for JSON (default auto: negotiated with the server)",
    )
    judge.add_argument(
        "--cache-dir",
        default=None,
        help="judge cache directory (default: $EVALTOOLKIT_CACHE_DIR, else ~/.cache/evaltoolkit)",
    )
    judge.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    judge.add_argument(
        "--cache-as",
        metavar="NAME",
        default=None,
        help="cache the model's replies under NAME instead of its model string and host "
        "(reuse a cache wherever the model is served; keep two models apart)",
    )
    judge.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help="items and calls in flight (the calls to a server that sustains fewer adapt down)",
    )
    judge.add_argument("--no-progress", action="store_true", help="hide the progress bar")


# -- scoring and reporting ------------------------------------------------------------------


def _max_cost(args: argparse.Namespace) -> float | None:
    max_cost: float | None = getattr(args, "max_cost", None)
    if max_cost is not None and (not math.isfinite(max_cost) or max_cost <= 0):
        raise ConfigurationError(f"--max-cost must be a positive amount of USD, got {max_cost}")
    return max_cost


def _score(
    data: Any, scorers: list[Any], args: argparse.Namespace, total: int, **fields: Any
) -> EvalResult:
    """run_evals, turning Ctrl-C into _Interrupted with the count of items done."""
    from ..runner import run_evals

    done = 0

    def count(_: ItemResult) -> None:
        nonlocal done
        done += 1

    try:
        return run_evals(
            data,
            scorers,
            concurrency=args.concurrency,
            progress=not args.no_progress,
            on_item_complete=count,
            max_cost=_max_cost(args),
            **fields,
        )
    except KeyboardInterrupt:
        raise _Interrupted(done, total, resumable=_resumable(scorers, args)) from None


def _resumable(scorers: Sequence[Any], args: argparse.Namespace) -> bool:
    """Whether a rerun resumes from a judge cache: a model judge (the offline judge keeps no
    cache) and no --no-cache."""
    from ..judge._internal import OFFLINE_MODEL

    models = [scorer.judge_model for scorer in scorers]
    return not args.no_cache and any(model not in (None, OFFLINE_MODEL) for model in models)


def _write(result: EvalResult, out: Path, *, wide: bool) -> None:
    suffix = out.suffix.lower()
    if suffix == ".parquet":
        result.to_parquet(out, wide=wide)
    elif suffix == ".csv":
        result.to_csv(out, wide=wide)
    else:
        result.to_jsonl(out, wide=wide)


def _failures(result: EvalResult) -> list[tuple[Any, str, str]]:
    return [
        (item.item_id, score.scorer, str(score.error))
        for item in result
        for score in item.scorer_results.values()
        if score.error is not None
    ]


def _print_summary(result: EvalResult, title: str) -> None:
    summary = result.summary()
    print(f"{title}: {len(result)} items in {result.elapsed_s:.1f} s")
    print(summary.to_string(index=False, float_format=lambda value: f"{value:.4f}"))
    usage = result.usage
    if usage is not None:
        cost = "unknown" if result.cost is None else f"${result.cost:.4f}"
        print(f"tokens: {usage.prompt_tokens} prompt, {usage.completion_tokens} completion")
        print(f"cost: {cost}")
    failures = _failures(result)
    for item_id, scorer, error in failures[:5]:
        print(f"  failed: item {item_id!r}, {scorer}: {error}")
    if len(failures) > 5:
        print(f"  ... and {len(failures) - 5} more failures (see the error column)")
    failed_items = sum(1 for item in result if item.failed)
    if failed_items:
        print(f"{failed_items} of {len(result)} items failed (see the error column)")


def _exit_status(result: EvalResult, title: str) -> int:
    """1 when some scorer failed on every item (nothing it was asked for was scored), 3 when
    a budget stopped the run before every item, else 0."""
    status = 0
    not_scored = [
        score.not_scored
        for item in result
        for score in item.scorer_results.values()
        if score.not_scored is not None
    ]
    if not_scored:
        items = sum(
            1 for item in result if any(score.not_scored for score in item.scorer_results.values())
        )
        print(
            f"evaltoolkit: {title}: {not_scored[0].removeprefix('not scored: ')}: {items} of "
            f"{len(result)} items not scored; rerun with a larger --max-cost to resume from "
            "the judge cache",
            file=sys.stderr,
        )
        status = BUDGET_REACHED
    for scorer, summary in result.scores.items():
        if summary.count and not summary.scored:
            first = next(str(s.error) for s in result.results(scorer) if s.error is not None)
            print(
                f"evaltoolkit: {title}: {scorer} failed on all {summary.count} items; "
                f"first error: {first}",
                file=sys.stderr,
            )
            status = 1
    return status


# -- run ------------------------------------------------------------------------------------


def _run_fields(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "input_col": args.input_col,
        "output_col": args.output_col,
        "ground_truth_col": args.ground_truth_col,
        "id_col": args.id_col,
    }


def _read_rows(args: argparse.Namespace) -> list[Any]:
    """The file's rows (first --limit of them), once the columns the flags name are there."""
    from ..records.items import GROUND_TRUTH_ALIASES, ID_FIELDS, read_records, require_columns

    text_columns = [
        args.input_col,
        args.output_col,
        *([args.ground_truth_col] if args.ground_truth_col else GROUND_TRUTH_ALIASES),
        *([args.id_col] if args.id_col else ID_FIELDS),
        "source",
    ]
    rows = read_records(args.file, text_columns=text_columns)
    if args.limit is not None:
        rows = rows[: args.limit]
    required = {"--input-col": args.input_col, "--output-col": args.output_col}
    if args.ground_truth_col:
        required["--ground-truth-col"] = args.ground_truth_col
    if args.id_col:
        required["--id-col"] = args.id_col
    require_columns(rows, required, where=repr(str(args.file)))
    return rows


def _write_elsewhere(
    result: EvalResult, out: Path, error: OSError, args: argparse.Namespace
) -> int:
    """The scores could not be written to --out (its folder went away, or became read-only,
    while the run went on): write them beside the input, else in the temporary folder, and
    say where; exit status 2, as the file is not where it was asked for."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    name = f"{out.stem}-{stamp}{out.suffix}"
    for folder in (Path(args.file).resolve().parent, Path(tempfile.gettempdir())):
        try:
            _write(result, folder / name, wide=args.wide)
        except OSError:
            continue
        print(
            f"evaltoolkit: error: cannot write {str(out)!r} ({error.strerror or error}); "
            f"wrote the results to {str(folder / name)!r} instead",
            file=sys.stderr,
        )
        return 2
    raise error


# -- demo -----------------------------------------------------------------------------------

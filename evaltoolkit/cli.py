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
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._internal.files import atomic_write, check_writable, same_file
from ._version import __version__
from .errors import ConfigurationError, EvalToolkitError
from .judge import STRUCTURED_OUTPUT_MODES
from .records import EvalResult, ItemResult, read_results, write_json_lines
from .scorers import create_scorer, scorer_ids, scorer_spec, scorer_specs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["console_main", "main"]

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
        "(default 4)",
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
    judge.add_argument("--concurrency", type=int, default=8, help="items and calls in flight")
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
    from .runner import run_evals

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
    from .judge import OFFLINE_MODEL

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
        "input_field": args.input_col,
        "output_field": args.output_col,
        "ground_truth_field": args.ground_truth_col,
        "id_field": args.id_col,
    }


def _read_rows(args: argparse.Namespace) -> list[Any]:
    """The file's rows (first --limit of them), once the columns the flags name are there."""
    from ._internal.datasets import GROUND_TRUTH_ALIASES, ID_FIELDS, read_records, require_columns

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


def _most_calls(rows: Sequence[Any], scorers: Sequence[Any]) -> int:
    """Judge calls a run makes at most, told without rendering a prompt."""
    from .scorers import JudgedScorer, Step

    steps = sum(
        len(scorer.steps) + isinstance(scorer.reason, Step)
        for scorer in scorers
        if isinstance(scorer, JudgedScorer) and not scorer.judge.offline
    )
    return len(rows) * steps


def _estimate(rows: list[Any], scorers: list[Any], args: argparse.Namespace) -> Any:
    from .runner import estimate_cost

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
    from .runner import cluster_client

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
            from ._internal.datasets import read_records

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


def _print_agreement(evaluation: Any) -> None:
    table = evaluation.agreement
    judge = f"judge {evaluation.judge_model}" if evaluation.judge_model else "no judge"
    print(f"agreement with {evaluation.label!r} ({evaluation.task}, {judge}):")
    for (score, level), rows in table.groupby(["score", "level"], sort=False):
        used = int(rows["n"].iloc[0])
        groups = rows["groups"].iloc[0]
        scope = {
            "per_group": f"per {evaluation.group} ({groups:.0f} groups)",
            "system": f"system level: means of {groups:.0f} systems",
            "baseline": "no judgement: a random score, the majority label",
        }.get(str(level), "pooled")
        print(f"  {score} [{scope}, n={used}, skipped={int(rows['skipped'].iloc[0])}]")
        notes: dict[str, None] = {}
        for row in rows.itertuples():
            at = "" if math.isnan(row.threshold) else f" @ {row.threshold:.3g}"
            # A figure on too few units keeps its value; its interval is not shown as if
            # it meant something (two items give [-1.000, -1.000]).
            few = "too few" in row.note
            interval = (
                f"(too few {'groups' if level in ('per_group', 'system') else 'items'} for an "
                "interval)"
                if few
                else f"[{row.ci_low: .3f}, {row.ci_high: .3f}]"
            )
            print(f"    {row.metric + at:<22} {row.value: .3f}  {interval}")
            for part in str(row.note).split("; "):
                if part and (few or "too few" not in part):
                    notes[part if "too few" in part else f"{row.metric}: {part}"] = None
        for note in notes:
            print(f"    note: {note}")


def _constant(values: pd.Series) -> tuple[bool, Any]:
    present = values.dropna()
    if present.empty:
        return True, None
    first = present.iloc[0]
    return bool((present == first).all()), first


def _why_undefined(evaluation: Any) -> list[str]:
    """Why some agreement figures are nan: constant labels or scores, or no labels at all."""
    if not evaluation.agreement["value"].isna().any():
        return []
    reasons = []
    constant, value = _constant(evaluation.scores[evaluation.label])
    if constant and value is None:
        reasons.append(f"no item has a {evaluation.label!r} label: nothing to compare with")
    elif constant:
        shown = value.item() if hasattr(value, "item") else value
        if isinstance(shown, bool):
            reasons.append(
                f"all labels are {shown}: AUROC needs both classes, and correlations need "
                "labels that vary"
            )
        else:
            reasons.append(f"all labels are {shown!r}: correlations need labels that vary")
    for column in evaluation.score_columns:
        constant, value = _constant(evaluation.scores[column])
        if constant and value is None:
            reasons.append(f"no item got a {column!r} (every item failed)")
        elif constant:
            reasons.append(f"every {column!r} is {value:.4g}: correlations need scores that vary")
    if not reasons:
        reasons.append(
            "nan marks a figure that is undefined for these items (too few items, or "
            "constant labels or scores within every group)"
        )
    return reasons


def _meta_outputs(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    out = plot = None
    if args.plot:
        from matplotlib.figure import Figure

        formats = tuple(f".{name}" for name in Figure().canvas.get_supported_filetypes())
        plot = _check_output(args.plot, flag="--plot", suffixes=formats, inputs=[args.file])
    if args.out:
        others = [("--plot", plot)] if plot is not None else []
        out = _check_output(
            args.out, flag="--out", suffixes=_TABLE_EXPORTS, inputs=[args.file], others=others
        )
    return out, plot


def _meta_frame(args: argparse.Namespace) -> pd.DataFrame:
    """The labelled file, its text columns read as text (the label columns stay numbers)."""
    from ._internal.datasets import TEXT_COLUMNS, read_table

    named = [
        args.source_col,
        args.summary_col,
        args.question_col,
        args.answer_col,
        args.reference_col,
    ]
    return read_table(args.file, text_columns=[*TEXT_COLUMNS, *(name for name in named if name)])


def _write_table(frame: pd.DataFrame, out: Path) -> None:
    suffix = out.suffix.lower()
    if suffix == ".parquet":
        atomic_write(out, lambda tmp: frame.to_parquet(tmp, index=False))
    elif suffix == ".csv":
        atomic_write(out, lambda tmp: frame.to_csv(tmp, index=False))
    else:
        write_json_lines(frame, out)


def _meta_eval(args: argparse.Namespace) -> int:
    from .meta import meta_evaluate

    _check_limit(args.limit)
    out, plot = _meta_outputs(args)
    options = _judge_options(args)
    frame = _meta_frame(args)
    evaluation = meta_evaluate(
        frame,
        task=args.task,
        label=args.label,
        group=args.group,
        source_col=args.source_col,
        summary_col=args.summary_col,
        question_col=args.question_col,
        answer_col=args.answer_col,
        reference_col=args.reference_col,
        limit=args.limit,
        threshold=args.threshold,
        n_bootstrap=args.bootstrap,
        concurrency=args.concurrency,
        progress=not args.no_progress,
        **options,
    )
    failed = sum(s.failed for s in evaluation.result.results(evaluation.result.scorer_ids[0]))
    scored = len(evaluation.scores)
    labelled = int(evaluation.scores[evaluation.label].notna().sum())
    counted = (
        f"{scored} labelled items scored"
        if labelled == scored
        else f"{scored} items scored, {labelled} of them with a {evaluation.label!r} label"
    )
    print(f"{args.file}: {counted}, {failed} failed")
    _print_agreement(evaluation)
    for reason in _why_undefined(evaluation):
        print(f"  note: {reason}")
    if out is not None:
        _write_table(evaluation.agreement, out)
        print(f"wrote {out}")
    if plot is not None:
        from .plots import score_vs_label

        figure = score_vs_label(evaluation.scores, evaluation.score_columns, evaluation.label)
        atomic_write(
            plot,
            lambda tmp: figure.savefig(
                tmp, dpi=120, bbox_inches="tight", format=plot.suffix[1:].lower()
            ),
        )
        print(f"wrote {plot}")
    return _exit_status(evaluation.result, str(args.file))


def _add_meta_eval_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The judge options of meta-eval: those of every command, with --model repeatable.

    The parser resolves conflicting options, so this --model replaces the shared one.
    """
    _add_judge_arguments(parser)
    parser.add_argument(
        "--model",
        action="append",
        default=None,
        help="litellm model string of a judge (default: the offline judge, also named "
        "'offline'); repeat it to rank several judges in a leaderboard. API keys are read from "
        "the provider's environment variable",
    )
    parser.add_argument(
        "--report",
        default=None,
        help="write an HTML report of the scored runs (with the leaderboard for several judges)",
    )


def _judge_names(models: list[str]) -> list[str]:
    names: list[str] = []
    for model in models:
        name, copy = model, 2
        while name in names:
            name, copy = f"{model} #{copy}", copy + 1
        names.append(name)
    return names


def _print_leaderboard(board: Any, *, file: Any, items: int) -> None:
    attrs = board.attrs
    metric = str(attrs["metric"]).replace("_per_group", f" per {attrs.get('group')}")
    print(f"{file}: {items} labelled items, {len(board)} judges")
    print(
        f"leaderboard: agreement with {attrs['label']!r} ({attrs['task']}, score "
        f"{attrs['score']!r}, {metric}; 95% bootstrap intervals)"
    )
    print(f"ranks: {attrs.get('ranking', 'by the point estimates')}; '=' marks a shared rank")
    width = max(len("judge"), *(len(str(name)) for name in board["judge"]))
    print(
        f"  {'rank':>4}  {'judge':<{width}}  {'agreement':>9}  {'interval':<17}  "
        f"{'vs best (paired)':<27}  {'scored':>6}  {'failed':>6}  {'tokens':>9}  {'cost':>9}  "
        "latency"
    )
    for row in board.to_dict(orient="records"):
        interval = (
            "n/a" if math.isnan(row["ci_low"]) else f"[{row['ci_low']: .3f}, {row['ci_high']: .3f}]"
        )
        versus = (
            "-"
            if math.isnan(row["vs_best"])
            else f"{row['vs_best']:+.3f} "
            + (
                "(no interval)"
                if math.isnan(row["vs_best_ci_low"])
                else f"[{row['vs_best_ci_low']:+.3f}, {row['vs_best_ci_high']:+.3f}]"
            )
        )
        rank = f"{row['rank']}{'=' if row['tied'] else ''}"
        tokens = row["tokens"]
        cost = row["cost"]
        print(
            f"  {rank:>4}  {row['judge']:<{width}}  {row['agreement']:>9.3f}  "
            f"{interval:<17}  {versus:<27}  {row['scored']:>6}  {row['failed']:>6}  "
            f"{'n/a' if tokens is None or tokens != tokens else int(tokens):>9}  "
            f"{'unknown' if cost is None or cost != cost else f'${cost:.4f}':>9}  "
            f"{row['mean_latency_s']:.3f} s"
        )
        if row.get("note"):
            print(f"        note: {row['note']}")
    pairwise = list(attrs.get("pairwise") or [])
    if pairwise:
        print("pairwise agreement of the judges' scores (Spearman, Kendall):")
        for pair in pairwise:
            print(
                f"  {pair['judge_a']} ~ {pair['judge_b']}: {pair['spearman']:.3f}, "
                f"{pair['kendall']:.3f} (n={pair['n']})"
            )


def _meta_judges(args: argparse.Namespace, models: list[str]) -> dict[str, Any]:
    """One scorer per --model, named by its model; the offline one takes shared options only."""
    args.model = None
    options = _judge_options(args)
    del options["model"]
    extra = dict(scorer_spec(args.task).meta_options)
    shared = {key: value for key, value in options.items() if key in ("cache", "concurrency")}
    return {
        name: create_scorer(
            args.task, model=model, **extra, **(shared if model == "offline" else options)
        )
        for name, model in zip(_judge_names(models), models, strict=True)
    }


def _meta_eval_judges(args: argparse.Namespace) -> int:
    """meta-eval with zero, one or several --model options (and --report)."""
    models: list[str] = list(args.model or [])
    if len(models) <= 1 and not args.report:
        args.model = models[0] if models else None
        return _meta_eval(args)
    from .meta import agreement, judge_comparison

    _check_limit(args.limit)
    out, plot = _meta_outputs(args)
    report = (
        None
        if args.report is None
        else _check_output(args.report, flag="--report", suffixes=(".html",), inputs=[args.file])
    )
    judges = _meta_judges(args, models or ["offline"])
    threshold = args.threshold
    if threshold is None:
        threshold = scorer_spec(args.task).threshold
    comparison = judge_comparison(
        _meta_frame(args),
        judges,
        label=args.label,
        group=args.group,
        task=args.task,
        threshold=threshold,
        limit=args.limit,
        n_bootstrap=args.bootstrap,
        concurrency=args.concurrency,
        progress=not args.no_progress,
        source_col=args.source_col,
        summary_col=args.summary_col,
        question_col=args.question_col,
        answer_col=args.answer_col,
        reference_col=args.reference_col,
    )
    board = comparison.leaderboard
    if len(judges) == 1:  # one judge and a report: today's output, then the report
        evaluation = next(iter(comparison.evaluations.values()))
        evaluation.agreement = agreement(
            evaluation.scores,
            evaluation.score_columns,
            evaluation.label,
            group=evaluation.group,
            threshold=threshold,
            n_bootstrap=args.bootstrap,
        )
        failed = sum(s.failed for s in evaluation.result.results(evaluation.result.scorer_ids[0]))
        print(f"{args.file}: {len(evaluation.scores)} labelled items scored, {failed} failed")
        _print_agreement(evaluation)
        table = evaluation.agreement
    else:
        _print_leaderboard(board, file=args.file, items=int(board["items"].max()))
        table = board
    if out is not None:
        _write_table(table, out)
        print(f"wrote {out}")
    if plot is not None:
        from .plots import agreement_vs_cost, score_vs_label

        if len(judges) == 1:
            evaluation = next(iter(comparison.evaluations.values()))
            figure = score_vs_label(evaluation.scores, evaluation.score_columns, args.label)
        else:
            figure = agreement_vs_cost(board)
        atomic_write(
            plot,
            lambda tmp: figure.savefig(
                tmp, dpi=120, bbox_inches="tight", format=plot.suffix[1:].lower()
            ),
        )
        print(f"wrote {plot}")
    if report is not None:
        from .report import write_report

        runs = {name: evaluation.result for name, evaluation in comparison.evaluations.items()}
        write_report(
            runs,
            report,
            title=f"Judges against {args.label!r}: {Path(args.file).name}",
            leaderboard=board if len(judges) > 1 else None,
        )
        print(f"wrote {report}")
    statuses = [
        _exit_status(evaluation.result, f"{args.file} ({name})")
        for name, evaluation in comparison.evaluations.items()
    ]
    return max(statuses)


# -- report ---------------------------------------------------------------------------------


def _report(args: argparse.Namespace) -> int:
    from .report import write_report

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


def _compare(args: argparse.Namespace) -> int:
    from .meta import compare_runs

    first, second = Path(args.a), Path(args.b)
    scorer = args.scorer
    if scorer is not None and len(scorer) > 2:
        raise ConfigurationError(
            f"--scorer takes one id, or two (A's, then B's); got {len(scorer)}: " + " ".join(scorer)
        )
    run_a, run_b = read_results(first), read_results(second)
    table = compare_runs(
        run_a,
        run_b,
        score=args.score,
        scorer=None if scorer is None else scorer[0] if len(scorer) == 1 else tuple(scorer),
        group=args.group,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
    )
    if scorer is None:  # compare_runs took the one scorer both runs have
        scorer = [next(name for name in run_a.scorer_ids if name in run_b.scorer_ids)]
    compared = scorer[0] if len(scorer) == 1 else f"{scorer[0]} (A) and {scorer[1]} (B)"
    print(f"A: {first}\nB: {second}\nscorer: {compared}")
    shown = table.drop(columns=["test", "note"])  # each said in words below
    print(shown.to_string(index=False, float_format=lambda value: f"{value:.4g}"))
    for row in table.to_dict(orient="records"):
        print(
            f"{row['score']}: B - A = {row['difference']:+.4f} "
            f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}] (95% paired bootstrap), "
            f"p = {row['p_value']:.3g} ({row['test']}); B higher on {row['wins']}, equal on "
            f"{row['ties']}, lower on {row['losses']} of {row['n_pairs']} pairs"
            + (f" ({row['failed']} left out: failed in a run)" if row["failed"] else "")
            + (f"; note: {row['note']}" if row["note"] else "")
        )
    return 0


def _add_compare_command(commands: Any) -> None:
    compare = commands.add_parser(
        "compare",
        help="is the difference between two runs of the same items real? (paired)",
        description="Pair two saved runs of the same items by id and print, per score "
        "column, each run's mean, the mean difference B - A with a paired bootstrap interval, "
        "the Wilcoxon signed-rank p-value (over groups with --group) and wins / ties / losses "
        "of B against A.",
        formatter_class=_HelpFormatter,
    )
    compare.add_argument("a", help="results file of run A (.parquet, .csv, .jsonl)")
    compare.add_argument("b", help="results file of run B, the same items")
    compare.add_argument(
        "--score",
        default=None,
        help="the score column (score, or an axis such as alignment; default: all)",
    )
    compare.add_argument(
        "--scorer",
        nargs="+",
        default=None,
        metavar="ID",
        help="the scorer id (default: the shared one), or two: A's and B's, for runs whose "
        "scorers are named differently",
    )
    compare.add_argument(
        "--group",
        default=None,
        help="an item field whose groups are resampled and tested over (e.g. doc_id)",
    )
    compare.add_argument("--n-bootstrap", type=int, default=1000, help="bootstrap resamples")
    compare.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    compare.set_defaults(handler=_compare)


# -- cache ----------------------------------------------------------------------------------


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.fromtimestamp(timestamp).isoformat(sep=" ", timespec="seconds")


def _open_cache(args: argparse.Namespace) -> Any:
    """The cache named by --cache, or None (with a line saying so) when there is none.

    A damaged file is moved aside on opening, with one warning, and a fresh cache started.
    """
    from .judge import JudgeCache, cache_file_path

    path = cache_file_path(args.cache or None)
    if not path.is_file():
        print(f"no judge cache at {path}")
        return None
    return JudgeCache(path, max_bytes=None)


def _print_damaged_copies(copies: list[Path]) -> None:
    if copies:
        size = sum(_size_with_journal(copy) for copy in copies)
        from .judge import format_bytes

        print(f"damaged copies moved aside: {len(copies)} ({format_bytes(size)})")
        for copy in copies:
            print(f"  {copy}")


def _size_with_journal(path: Path) -> int:
    total = 0
    for suffix in ("", "-wal", "-journal"):
        with contextlib.suppress(OSError):
            total += Path(f"{path}{suffix}").stat().st_size
    return total


def _cache_info(args: argparse.Namespace) -> int:
    from .judge import format_bytes

    with warnings.catch_warnings(record=True) as on_open:
        warnings.simplefilter("always")
        cache = _open_cache(args)  # which moves a damaged file aside, with a warning
    if cache is None:
        return 0
    # Also on a file too large for the check on opening: the user asked how the cache is.
    repair = cache.check(full=False)
    found = repair or next((str(caught.message) for caught in on_open), None)
    stats = cache.stats()
    from .judge import max_bytes_from_environment

    bound = max_bytes_from_environment()
    print(f"judge cache: {stats.path}")
    print(f"entries: {stats.entries}")
    print(
        f"bytes: {stats.bytes} ({format_bytes(stats.bytes)} on disk, "
        f"{format_bytes(stats.live_bytes)} in use; "
        f"bound {'none' if bound is None else format_bytes(bound)})"
    )
    print(f"oldest: {_when(stats.oldest)}")
    print(f"newest: {_when(stats.newest)}")
    print(f"quick check: {'ok' if found is None else f'damaged: {found}'}")
    _print_damaged_copies(cache.damaged_copies())
    cache.close()
    return 0


def _cache_check(args: argparse.Namespace) -> int:
    with warnings.catch_warnings(record=True) as on_open:
        warnings.simplefilter("always")
        cache = _open_cache(args)  # which runs the quick check on a file up to 64 MiB
    if cache is None:
        return 0
    repair = cache.check(full=True)
    found = repair or next((str(caught.message) for caught in on_open), None)
    entries = len(cache)
    cache.close()
    if found is None:
        print(f"judge cache {cache.path}: ok ({entries} entries)")
        return 0
    print(f"evaltoolkit: {found}")
    return 1


def _cache_prune(args: argparse.Namespace) -> int:
    from .judge import format_bytes, parse_duration, parse_size

    if args.max_bytes is None and args.older_than is None:
        raise ConfigurationError("cache prune needs --max-bytes SIZE and/or --older-than AGE")
    try:
        max_bytes = None if args.max_bytes is None else parse_size(args.max_bytes)
        older_than = None if args.older_than is None else parse_duration(args.older_than)
    except ValueError as error:
        raise ConfigurationError(str(error)) from error
    cache = _open_cache(args)
    if cache is None:
        return 0
    report = cache.prune(max_bytes=max_bytes, older_than=older_than)
    cache.vacuum()
    stats = cache.stats()
    print(
        f"removed {report.removed} entries ({format_bytes(report.removed_bytes)}) from "
        f"{stats.path}; {stats.entries} left, {format_bytes(stats.bytes)} on disk"
    )
    cache.close()
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    from .judge import format_bytes

    if not args.yes and not sys.stdin.isatty():
        raise ConfigurationError(
            "cache clear asks before deleting, and the input is not a terminal: pass --yes "
            "to clear without asking"
        )
    cache = _open_cache(args)
    if cache is None:
        return 0
    stats = cache.stats()
    copies = cache.damaged_copies()
    if not args.yes:
        also = f" and {len(copies)} damaged copies moved aside" if copies else ""
        answer = input(
            f"remove all {stats.entries} entries ({format_bytes(stats.bytes)}) from "
            f"{stats.path}{also}? [y/N] "
        )
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing removed")
            cache.close()
            return 1
    report = cache.clear()
    cache.vacuum()
    print(
        f"removed {report.removed} entries ({format_bytes(stats.bytes)} on disk) from {stats.path}"
    )
    for copy in copies:
        size = _size_with_journal(copy)
        for suffix in ("", "-wal", "-journal"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        print(f"removed the damaged copy {copy} ({format_bytes(size)})")
    cache.close()
    return 0


def _add_cache_command(commands: Any) -> None:
    cache = commands.add_parser(
        "cache",
        help="look after the judge cache: info, check, prune, clear",
        description="The judge cache keeps every judge reply (sqlite), so reruns and resumed "
        "runs make no model call. It is bounded: past $EVALTOOLKIT_CACHE_MAX_BYTES (default "
        "1 GiB) the least recently used entries are pruned automatically. A damaged file "
        "is moved aside (renamed with the time, never deleted) and a fresh cache started, "
        "with a warning.",
        formatter_class=_HelpFormatter,
    )
    actions = cache.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    location = argparse.ArgumentParser(add_help=False)
    location.add_argument(
        "--cache",
        "--cache-dir",
        dest="cache",
        default=None,
        help="the cache directory or .sqlite3 file (default: $EVALTOOLKIT_CACHE_DIR, else "
        "~/.cache/evaltoolkit)",
    )
    info = actions.add_parser(
        "info", parents=[location], help="entries, bytes, oldest and newest entry"
    )
    info.set_defaults(handler=_cache_info)
    check = actions.add_parser(
        "check",
        parents=[location],
        help="check the file with sqlite's integrity_check; a damaged one is moved aside "
        "(renamed with the time) and a fresh cache started (exit status 1)",
        description="Check the judge cache with sqlite's integrity_check. Exit status 0 when it "
        "is sound; 1 when it was damaged: the file was then renamed "
        "judge-calls.sqlite3.damaged-<UTC time> beside it (never deleted) and a fresh, empty "
        "cache started. Any command that opens a damaged cache does the same, with a warning.",
    )
    check.set_defaults(handler=_cache_check)
    prune = actions.add_parser(
        "prune",
        parents=[location],
        help="remove old or least recently used entries",
        formatter_class=_HelpFormatter,
    )
    prune.add_argument(
        "--max-bytes", default=None, help="keep at most this much (500M, 1G, 2GiB, bytes)"
    )
    prune.add_argument(
        "--older-than", default=None, help="remove entries unused for this long (30d, 12h, 90min)"
    )
    prune.set_defaults(handler=_cache_prune)
    clear = actions.add_parser(
        "clear",
        parents=[location],
        help="remove every entry, and the damaged copies moved aside (asks first; when the "
        "input is not a terminal, as in a script, it needs --yes)",
        description="Remove every entry of the judge cache, and the damaged copies of it that "
        "were moved aside. It asks first when its input is a terminal; when it is not (a "
        "script, a pipe, CI), it deletes nothing and exits with status 2 unless --yes is given.",
    )
    clear.add_argument(
        "--yes", "-y", action="store_true", help="do not ask (needed when input is not a terminal)"
    )
    clear.set_defaults(handler=_cache_clear)


# -- the parser -----------------------------------------------------------------------------

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
        "--source-col", default=None, help="summarization source (default: source, else input)"
    )
    meta.add_argument(
        "--summary-col", default=None, help="summarization summary (default: summary, else output)"
    )
    meta.add_argument(
        "--question-col", default=None, help="question column (default: question, else input)"
    )
    meta.add_argument(
        "--answer-col",
        default=None,
        help="answer column (default: candidate or sentence1, else output)",
    )
    meta.add_argument(
        "--reference-col",
        default=None,
        help="reference column (default: golden_answers or sentence2, else ground_truth)",
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


if __name__ == "__main__":
    console_main()

"""The ``evaltoolkit`` command line.

evaltoolkit demo                      score the bundled demo data with the offline judge
evaltoolkit run FILE --scorer NAME    score a .jsonl/.csv/.parquet file
evaltoolkit meta-eval FILE --task T   agreement of a judge with human labels (several
                                      --model options: a leaderboard of judges)
evaltoolkit report RESULTS -o FILE    a self-contained HTML report of saved results
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import EvalToolkitError
from .judge import STRUCTURED_OUTPUT_MODES
from .records import EvalResult
from .scorers import SCORER_NAMES, create_scorer

__all__ = ["main"]

DEMO_DIR = Path(__file__).resolve().parent.parent / "data"
_EXPORTS = (".parquet", ".csv", ".jsonl")


def _judge_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"model": args.model, "api_base": args.api_base}
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.structured_output is not None:
        options["structured_output"] = args.structured_output
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
        help="litellm model string for model-judged scorers (default: the offline judge); "
        "API keys are read from the provider's environment variable",
    )
    judge.add_argument("--api-base", default=None, help="base URL of an OpenAI-compatible server")
    judge.add_argument(
        "--timeout", type=float, default=None, help="seconds per model request (default 60)"
    )
    judge.add_argument(
        "--structured-output",
        choices=STRUCTURED_OUTPUT_MODES,
        default=None,
        help="how to ask the model for JSON (default auto: negotiated with the server)",
    )
    judge.add_argument("--cache-dir", default=None, help="judge cache directory")
    judge.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    judge.add_argument("--concurrency", type=int, default=8, help="items and calls in flight")
    judge.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _write(result: EvalResult, out: Path, *, wide: bool) -> None:
    suffix = out.suffix.lower()
    if suffix not in _EXPORTS:
        raise EvalToolkitError(f"--out must end in one of {', '.join(_EXPORTS)}, got {str(out)!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".parquet":
        result.to_parquet(out, wide=wide)
    elif suffix == ".csv":
        result.to_csv(out, wide=wide)
    else:
        result.to_jsonl(out, wide=wide)


def _print_summary(result: EvalResult, title: str) -> None:
    summary = result.summary()
    print(f"{title}: {len(result)} items in {result.elapsed_s:.1f} s")
    print(summary.to_string(index=False, float_format=lambda value: f"{value:.4f}"))
    usage = result.usage
    if usage is not None:
        cost = "unknown" if result.cost is None else f"${result.cost:.4f}"
        print(f"tokens: {usage.prompt_tokens} prompt, {usage.completion_tokens} completion")
        print(f"cost: {cost}")
    failures = [
        (item.item_id, score.scorer, str(score.error))
        for item in result
        for score in item.scorer_results.values()
        if score.error is not None
    ]
    for item_id, scorer, error in failures[:5]:
        print(f"  failed: item {item_id!r}, {scorer}: {error}")
    if len(failures) > 5:
        print(f"  ... and {len(failures) - 5} more failures (see the error column)")


def _run(args: argparse.Namespace) -> int:
    from .runner import run_evals

    options = _judge_options(args)
    scorers = [create_scorer(name, **options) for name in args.scorer]
    data: Any = args.file
    if args.limit is not None:
        from ._datasets import read_records

        data = read_records(args.file)[: args.limit]
    result = run_evals(
        data,
        scorers,
        concurrency=args.concurrency,
        progress=not args.no_progress,
        input_field=args.input_col,
        output_field=args.output_col,
        ground_truth_field=args.ground_truth_col,
        id_field=args.id_col,
    )
    _print_summary(result, str(args.file))
    if args.out:
        _write(result, Path(args.out), wide=args.wide)
        print(f"wrote {args.out}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .runner import run_evals

    options = _judge_options(args)
    out_dir = Path(args.out)
    jobs = (
        ("summaries", DEMO_DIR / "demo_summaries.jsonl", ["summarization", "textual-difference"]),
        ("answers", DEMO_DIR / "demo_answers.jsonl", ["answer-similarity", "textual-difference"]),
    )
    available = set(SCORER_NAMES)
    for name, path, scorer_names in jobs:
        scorers = [create_scorer(s, **options) for s in scorer_names if s in available]
        result = run_evals(
            path, scorers, concurrency=args.concurrency, progress=not args.no_progress
        )
        _print_summary(result, f"demo {name}")
        target = out_dir / f"demo_{name}.parquet"
        _write(result, target, wide=False)
        print(f"wrote {target}\n")
    print("Explore them in a notebook: jupyter lab notebooks/ (start with 01_quickstart.ipynb).")
    return 0


def _print_agreement(evaluation: Any) -> None:
    table = evaluation.agreement
    judge = f"judge {evaluation.judge_model}" if evaluation.judge_model else "no judge"
    print(f"agreement with {evaluation.label!r} ({evaluation.task}, {judge}):")
    for (score, level), rows in table.groupby(["score", "level"], sort=False):
        used = int(rows["n"].iloc[0])
        groups = rows["groups"].iloc[0]
        scope = (
            f"per {evaluation.group} ({int(groups)} groups)" if level == "per_group" else "pooled"
        )
        print(f"  {score} [{scope}, n={used}, skipped={int(rows['skipped'].iloc[0])}]")
        for row in rows.itertuples():
            at = "" if math.isnan(row.threshold) else f" @ {row.threshold:.3g}"
            print(
                f"    {row.metric + at:<22} {row.value: .3f}  "
                f"[{row.ci_low: .3f}, {row.ci_high: .3f}]"
            )


def _meta_eval(args: argparse.Namespace) -> int:
    from .meta import meta_evaluate

    options = _judge_options(args)
    evaluation = meta_evaluate(
        args.file,
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
    print(f"{args.file}: {len(evaluation.scores)} labelled items scored, {failed} failed")
    _print_agreement(evaluation)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix.lower() == ".parquet":
            evaluation.agreement.to_parquet(out, index=False)
        else:
            evaluation.agreement.to_csv(out, index=False)
        print(f"wrote {out}")
    if args.plot:
        from .plots import score_vs_label

        figure = score_vs_label(evaluation.scores, evaluation.score_columns, evaluation.label)
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"wrote {args.plot}")
    return 0


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
    width = max(len("judge"), *(len(str(name)) for name in board["judge"]))
    print(
        f"  {'rank':>4}  {'judge':<{width}}  {'agreement':>9}  {'interval':<17}  "
        f"{'scored':>6}  {'failed':>6}  {'tokens':>9}  {'cost':>9}  latency"
    )
    for row in board.to_dict(orient="records"):
        interval = (
            "n/a" if math.isnan(row["ci_low"]) else f"[{row['ci_low']: .3f}, {row['ci_high']: .3f}]"
        )
        tokens = row["tokens"]
        cost = row["cost"]
        print(
            f"  {row['rank']:>4}  {row['judge']:<{width}}  {row['agreement']:>9.3f}  "
            f"{interval:<17}  {row['scored']:>6}  {row['failed']:>6}  "
            f"{'n/a' if tokens is None or tokens != tokens else int(tokens):>9}  "
            f"{'unknown' if cost is None or cost != cost else f'${cost:.4f}':>9}  "
            f"{row['mean_latency_s']:.3f} s"
        )
    pairwise = list(attrs.get("pairwise") or [])
    if pairwise:
        print("pairwise agreement of the judges' scores (Spearman, Kendall):")
        for pair in pairwise:
            print(
                f"  {pair['judge_a']} ~ {pair['judge_b']}: {pair['spearman']:.3f}, "
                f"{pair['kendall']:.3f} (n={pair['n']})"
            )


def _meta_eval_judges(args: argparse.Namespace) -> int:
    """meta-eval with zero, one or several --model options (and --report)."""
    models: list[str] = list(args.model or [])
    if len(models) <= 1 and not args.report:
        args.model = models[0] if models else None
        return _meta_eval(args)
    from .meta import ANSWER_THRESHOLD, agreement, judge_comparison
    from .report import write_report

    args.model = None
    options = _judge_options(args)
    del options["model"]
    models = models or ["offline"]
    extra = {"reason": "template"} if args.task == "summarization" else {}
    # The offline judge among model judges takes the options every judge shares only.
    shared = {key: value for key, value in options.items() if key in ("cache", "concurrency")}
    judges = {
        name: create_scorer(
            args.task, model=model, **extra, **(shared if model == "offline" else options)
        )
        for name, model in zip(_judge_names(models), models, strict=True)
    }
    threshold = args.threshold
    if threshold is None and args.task == "answer-similarity":
        threshold = ANSWER_THRESHOLD
    comparison = judge_comparison(
        args.file,
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
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix.lower() == ".parquet":
            table.to_parquet(out, index=False)
        else:
            table.to_csv(out, index=False)
        print(f"wrote {out}")
    if args.plot:
        from .plots import agreement_vs_cost, score_vs_label

        if len(judges) == 1:
            evaluation = next(iter(comparison.evaluations.values()))
            figure = score_vs_label(evaluation.scores, evaluation.score_columns, args.label)
        else:
            figure = agreement_vs_cost(board)
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"wrote {args.plot}")
    if args.report:
        runs = {name: evaluation.result for name, evaluation in comparison.evaluations.items()}
        write_report(
            runs,
            args.report,
            title=f"Judges against {args.label!r}: {Path(args.file).name}",
            leaderboard=board if len(judges) > 1 else None,
        )
        print(f"wrote {args.report}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from .report import write_report

    paths = [Path(path) for path in args.results]
    names = [path.name for path in paths]
    runs = {(path.name if names.count(path.name) == 1 else str(path)): path for path in paths}
    if len(runs) < len(paths):
        raise EvalToolkitError("a results file is named twice; name each file once")
    target = write_report(runs, args.out, title=args.title, max_items=args.max_items)
    print(f"wrote {target} ({target.stat().st_size / 1e6:.1f} MB, {len(runs)} results file(s))")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evaltoolkit",
        description="Score LLM outputs: summarization, answer similarity, textual difference.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = commands.add_parser(
        "demo", help="score the bundled demo data (offline judge: no key, no network)"
    )
    demo.add_argument("--out", default="results", help="directory for the result files")
    _add_judge_arguments(demo)
    demo.set_defaults(handler=_demo)

    run = commands.add_parser("run", help="score a .jsonl, .csv or .parquet file")
    run.add_argument("file", type=Path, help="the data file")
    run.add_argument(
        "--scorer",
        action="append",
        required=True,
        choices=SCORER_NAMES,
        help="a scorer to run (repeat for several)",
    )
    run.add_argument("--out", default=None, help="write results (.parquet, .csv or .jsonl)")
    run.add_argument("--wide", action="store_true", help="one row per item instead of per score")
    run.add_argument("--input-col", default="input", help="column of the input")
    run.add_argument("--output-col", default="output", help="column of the output")
    run.add_argument("--ground-truth-col", default=None, help="column of the ground truth")
    run.add_argument("--id-col", default=None, help="column of the item id")
    run.add_argument("--limit", type=int, default=None, help="score only the first N items")
    _add_judge_arguments(run)
    run.set_defaults(handler=_run)

    meta = commands.add_parser(
        "meta-eval",
        help="score a human-labelled file and report agreement with the labels",
        conflict_handler="resolve",
    )
    meta.add_argument("file", type=Path, help="a .jsonl, .csv or .parquet file with labels")
    meta.add_argument(
        "--task",
        required=True,
        choices=("summarization", "answer-similarity", "textual-difference"),
        help="which scorer to evaluate",
    )
    meta.add_argument("--label", required=True, help="column of the human label")
    meta.add_argument("--group", default=None, help="column grouping items (default: doc_id)")
    meta.add_argument("--source-col", default=None, help="summarization source (source)")
    meta.add_argument("--summary-col", default=None, help="summarization summary (summary)")
    meta.add_argument("--question-col", default=None, help="question column (question)")
    meta.add_argument("--answer-col", default=None, help="answer column (candidate, sentence1)")
    meta.add_argument(
        "--reference-col", default=None, help="reference column (golden_answers, sentence2)"
    )
    meta.add_argument("--limit", type=int, default=None, help="use only the first N rows")
    meta.add_argument(
        "--threshold", type=float, default=None, help="score threshold for boolean labels"
    )
    meta.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    meta.add_argument(
        "--out",
        default=None,
        help="write the agreement table, or the leaderboard for several judges (.csv, .parquet)",
    )
    meta.add_argument(
        "--plot",
        default=None,
        help="save a figure of scores against labels (of agreement against cost for several "
        "judges)",
    )
    _add_meta_eval_judge_arguments(meta)
    meta.set_defaults(handler=_meta_eval_judges)

    report = commands.add_parser(
        "report", help="write a self-contained HTML report of saved results"
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
        help="rows that get a drill-down, at most (default 2000; the rest keep their scores)",
    )
    report.set_defaults(handler=_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except EvalToolkitError as error:
        print(f"evaltoolkit: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`evaltoolkit ... | head`): stop quietly, as Python's docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

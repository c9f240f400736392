"""``evaltoolkit meta-eval FILE --task T``: agreement with human labels, or a leaderboard."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.files import atomic_write
from ..records._internal import write_json_lines
from ..scorers import create_scorer
from ..scorers._internal import scorer_spec

if TYPE_CHECKING:
    import pandas as pd
from ._common import (
    _TABLE_EXPORTS,
    _add_judge_arguments,
    _check_limit,
    _check_output,
    _exit_status,
    _judge_options,
)


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
    from ..records.items import TEXT_COLUMNS, read_table

    named = [
        args.input_col,
        args.output_col,
        args.ground_truth_col,
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
    from ..meta import meta_evaluate

    _check_limit(args.limit)
    out, plot = _meta_outputs(args)
    options = _judge_options(args)
    frame = _meta_frame(args)
    evaluation = meta_evaluate(
        frame,
        task=args.task,
        label=args.label,
        group=args.group,
        input_col=args.input_col,
        output_col=args.output_col,
        ground_truth_col=args.ground_truth_col,
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
        from ..plots import score_vs_label

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
    from .._internal.sync import run_sync
    from ..meta import acompare_judges, agreement

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
    # The awaitable twin keeps the keep_runs=True overload (the blocking one types the first).
    comparison = run_sync(
        acompare_judges(
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
            input_col=args.input_col,
            output_col=args.output_col,
            ground_truth_col=args.ground_truth_col,
            keep_runs=True,
        )
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
        from ..plots import agreement_vs_cost, score_vs_label

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
        from ..report import write_report

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

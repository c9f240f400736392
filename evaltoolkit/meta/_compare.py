"""Compare judges against human labels: one leaderboard row per judge, and their agreement.

:func:`compare_judges` scores the same labelled data with every judge (different models,
prompts or settings of one scorer) through :func:`~evaltoolkit.meta.meta_evaluate`, measures
each judge's agreement with the label with :func:`~evaltoolkit.meta.agreement`, and ranks
them. The agreement between each pair of judges comes with it.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, overload

from .._internal.deprecation import renamed_keywords
from .._internal.sync import blocking
from ..errors import ConfigurationError
from ..records.items import as_table
from ..runner._internal import DEFAULT_CONCURRENCY
from ..scorers import Scorer, ScorerSpec, scorer_ids
from ..scorers._internal import scorer_spec, scorer_spec_of
from ._agreement import agreement
from ._evaluate import COLUMN_RENAMES, SYSTEM_COLUMN, MetaEvaluation, Task, ameta_evaluate
from ._human_labels import with_human_labels
from ._judge_comparison import JudgeComparison
from .stats.resampling import FEW_UNITS, few_note
from .stats.system import SYSTEM_LEVEL
from .stats.williams import WilliamsTest, williams_test

if TYPE_CHECKING:
    import pandas as pd

P = ParamSpec("P")
T = TypeVar("T")

__all__ = [
    "JudgeComparison",
    "acompare_judges",
    "ajudge_comparison",
    "compare_judges",
    "judge_comparison",
]

#: Leaderboard columns always present, in order (the metric columns depend on the label).
LEADING_COLUMNS = (
    "rank",
    "tied",
    "judge",
    "judge_model",
    "metric",
    "agreement",
    "ci_low",
    "ci_high",
    "vs_best",
    "vs_best_ci_low",
    "vs_best_ci_high",
)
TRAILING_COLUMNS = (
    "n",
    "items",
    "scored",
    "failed",
    "prompt_tokens",
    "completion_tokens",
    "tokens",
    "cost",
    "mean_latency_s",
    "note",
)

_COLUMN_OPTIONS = frozenset({"input_col", "output_col", "ground_truth_col"})


def _tasks_of(judges: Mapping[str, Scorer], task: Task | None) -> dict[str, ScorerSpec]:
    """Each judge's registered scorer: judges of one layout (a task and its baselines)."""
    given = None if task is None else scorer_spec(task, what="task")
    found: dict[str, ScorerSpec] = {}
    for name, judge in judges.items():
        spec = scorer_spec_of(judge)
        if spec is None and given is None:
            raise ConfigurationError(
                f"judge {name!r} is a {type(judge).__name__}, whose task is unknown; pass "
                f"task= (one of {', '.join(scorer_ids())})"
            )
        if spec is None or (given is not None and spec.layout != given.layout):
            assert given is not None
            spec = given
        found[name] = spec
    if len({spec.layout for spec in found.values()}) > 1:
        kinds = {name: spec.id for name, spec in found.items()}
        raise ConfigurationError(
            f"the judges score different tasks ({kinds}); compare judges of one task (and "
            "the baselines of its layout)"
        )
    return found


def _compared_columns(evaluations: Mapping[str, MetaEvaluation], chosen: str) -> dict[str, str]:
    """Each judge's column for ``chosen``: its own, or its final score for the first's.

    A baseline names its final score after itself (``score_token_f1``) where the task's
    judge names it after the task (``score_answer_similarity``): both are the final score.
    """
    first = next(iter(evaluations.values()))
    final = _final_column(first)
    columns = {}
    for name, evaluation in evaluations.items():
        if chosen in evaluation.score_columns:
            columns[name] = chosen
        elif chosen == final and _final_column(evaluation) is not None:
            columns[name] = str(_final_column(evaluation))
        else:
            raise ConfigurationError(
                f"judge {name!r} has no {chosen!r} score (its scores: "
                f"{', '.join(evaluation.score_columns)}); compare the judges on a score they "
                "all have, such as their final score"
            )
    return columns


def _final_column(evaluation: MetaEvaluation) -> str | None:
    """The column holding an evaluation's final score (the last one read)."""
    return evaluation.score_columns[-1] if evaluation.score_columns else None


def _check_judges(judges: Mapping[str, Scorer]) -> dict[str, Scorer]:
    if not isinstance(judges, Mapping) or not judges:
        raise ConfigurationError(
            "judges must be a non-empty dict of names to scorers, e.g. "
            '{"gpt-4o-mini": create_summarization_scorer("openai/gpt-4o-mini"), '
            '"offline": create_summarization_scorer()}'
        )
    for name, judge in judges.items():
        if not isinstance(judge, Scorer):
            raise ConfigurationError(
                f"judge {name!r} is {type(judge).__name__}, not a scorer (from create_*_scorer)"
            )
    return {str(name): judge for name, judge in judges.items()}


def _metric_value(table: pd.DataFrame, metric: str, level: str) -> tuple[float, float, float]:
    rows = table[(table["metric"] == metric) & (table["level"] == level)]
    if not len(rows):
        return math.nan, math.nan, math.nan
    row = rows.iloc[0]
    return float(row["value"]), float(row["ci_low"]), float(row["ci_high"])


def _leaderboard_row(
    name: str,
    evaluation: MetaEvaluation,
    table: pd.DataFrame,
    score: str,
    group: str | None,
) -> dict[str, Any]:
    binary = bool((table["metric"] == "auroc").any())
    row: dict[str, Any] = {"judge": name, "judge_model": evaluation.judge_model}
    if binary:
        metrics = [("auroc", "pooled", "auroc")]
        accuracy = "accuracy" if (table["metric"] == "accuracy").any() else "best_accuracy"
        metrics.append((accuracy, "pooled", "accuracy"))
        primary = "auroc"
    else:
        metrics = [("spearman", "pooled", "spearman"), ("kendall", "pooled", "kendall")]
        if group is not None:
            metrics += [
                ("spearman", "per_group", "spearman_per_group"),
                ("kendall", "per_group", "kendall_per_group"),
            ]
        primary = "spearman_per_group" if group is not None else "spearman"
        if (table["level"] == SYSTEM_LEVEL).any():
            metrics.append(("spearman", SYSTEM_LEVEL, "spearman_system"))
    values: dict[str, tuple[float, float, float]] = {}
    for metric, level, column in metrics:
        values[column] = _metric_value(table, metric, level)
        row[column], row[f"{column}_ci_low"], row[f"{column}_ci_high"] = values[column]
    if binary:
        thresholds = table[table["metric"].isin(["accuracy", "best_accuracy"])]["threshold"]
        row["threshold"] = float(thresholds.iloc[0]) if len(thresholds) else math.nan
    elif group is not None:
        groups = table[(table["level"] == "per_group") & (table["metric"] == "spearman")]
        row["groups"] = int(groups["groups"].iloc[0]) if len(groups) else 0
    row["metric"] = primary
    row["agreement"], row["ci_low"], row["ci_high"] = values[primary]

    scores = evaluation.scores[score]
    finite = [
        value
        for value in scores.tolist()
        if isinstance(value, float | int) and math.isfinite(value)
    ]
    result = evaluation.result
    usage = result.usage
    latencies = [
        score_result.latency_s for item in result for score_result in item.scorer_results.values()
    ]
    pooled = table[(table["level"] == "pooled")]
    row.update(
        {
            "n": int(pooled["n"].iloc[0]) if len(pooled) else 0,
            "items": len(scores),
            "scored": len(finite),
            "failed": len(scores) - len(finite),
            "prompt_tokens": usage.prompt_tokens if usage else None,
            "completion_tokens": usage.completion_tokens if usage else None,
            "tokens": usage.total_tokens if usage else None,
            "cost": result.cost,
            "mean_latency_s": math.fsum(latencies) / len(latencies) if latencies else math.nan,
        }
    )
    if primary == "spearman_per_group":
        row["note"] = few_note(int(row.get("groups", 0)), "documents")
    else:
        row["note"] = few_note(int(row["n"]), "items")
    return row


def _pairwise(
    evaluations: Mapping[str, MetaEvaluation],
    compared: Mapping[str, str],
    group: str | None,
    label: str,
    *,
    williams: bool,
    n_bootstrap: int,
    confidence: float,
    seed: int,
) -> pd.DataFrame:
    import pandas as pd

    columns = ["judge_a", "judge_b", "n", "spearman", "spearman_ci_low", "spearman_ci_high"]
    columns += ["kendall", "kendall_ci_low", "kendall_ci_high", "pearson"]
    if group is not None:
        columns += ["spearman_per_group", "groups"]
    first = next(iter(evaluations.values()))
    systems = SYSTEM_COLUMN in first.scores.columns
    if williams:
        columns += ["williams_t", "williams_p"]
        if systems:
            columns += ["williams_system_t", "williams_system_p", "systems"]
    rows = []
    for first_name, second_name in itertools.combinations(evaluations, 2):
        frame = pd.DataFrame(
            {
                "a": evaluations[first_name].scores[compared[first_name]].astype(float).to_numpy(),
                "b": evaluations[second_name]
                .scores[compared[second_name]]
                .astype(float)
                .to_numpy(),
            }
        )
        if group is not None:
            frame["group"] = evaluations[first_name].scores[group].to_numpy()
        table = agreement(
            frame,
            "a",
            "b",
            group="group" if group is not None else None,
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            seed=seed,
        )
        row: dict[str, Any] = {"judge_a": first_name, "judge_b": second_name}
        pooled = table[table["level"] == "pooled"]
        row["n"] = int(pooled["n"].iloc[0]) if len(pooled) else 0
        for metric in ("spearman", "kendall"):
            row[metric], row[f"{metric}_ci_low"], row[f"{metric}_ci_high"] = _metric_value(
                table, metric, "pooled"
            )
        row["pearson"] = _metric_value(table, "pearson", "pooled")[0]
        if group is not None:
            row["spearman_per_group"] = _metric_value(table, "spearman", "per_group")[0]
            per_group = table[(table["level"] == "per_group") & (table["metric"] == "spearman")]
            row["groups"] = int(per_group["groups"].iloc[0]) if len(per_group) else 0
        if williams:
            frame["label"] = first.scores[label].astype(float).to_numpy()
            if systems:
                frame["system"] = first.scores[SYSTEM_COLUMN].to_numpy()
            row.update(_williams_columns(frame, systems))
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def _williams_columns(frame: pd.DataFrame, systems: bool) -> dict[str, Any]:
    """Williams' test of the two judges' Spearman with the label: over items, over systems."""
    import warnings

    from scipy import stats

    usable = frame.dropna(subset=["a", "b", "label"])

    def test(table: pd.DataFrame) -> WilliamsTest:
        if len(table) < 4:
            return WilliamsTest(math.nan, max(len(table) - 3, 0), math.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a constant judge: NaN, and so is the test
            r_a = float(stats.spearmanr(table["a"], table["label"]).statistic)
            r_b = float(stats.spearmanr(table["b"], table["label"]).statistic)
            r_ab = float(stats.spearmanr(table["a"], table["b"]).statistic)
        return williams_test(r_a, r_b, r_ab, len(table))

    pooled = test(usable)
    columns: dict[str, Any] = {"williams_t": pooled.statistic, "williams_p": pooled.p_value}
    if systems:
        means = usable.groupby("system")[["a", "b", "label"]].mean()
        system = test(means)
        columns.update(
            {
                "williams_system_t": system.statistic,
                "williams_system_p": system.p_value,
                "systems": len(means),
            }
        )
    return columns


@renamed_keywords(**COLUMN_RENAMES)
async def _judge_comparison(
    data: str | os.PathLike[str] | pd.DataFrame | Sequence[Mapping[str, Any]],
    judges: Mapping[str, Scorer],
    *,
    label: str,
    group: str | None = None,
    task: Task | None = None,
    score: str | None = None,
    threshold: float | None = None,
    limit: int | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    labels: str | os.PathLike[str] | pd.DataFrame | None = None,
    williams: bool = False,
    **columns: str | None,
) -> JudgeComparison:
    """Score the data with every judge and rank them: what :func:`acompare_judges` does."""
    import pandas as pd

    named = _check_judges(judges)
    unknown = sorted(set(columns) - _COLUMN_OPTIONS)
    if unknown:
        raise ConfigurationError(
            f"unknown option(s) {', '.join(unknown)}; compare_judges takes the column options "
            f"{', '.join(sorted(_COLUMN_OPTIONS))}, and each judge's model options belong on "
            "its scorer"
        )
    specs = _tasks_of(named, task)
    spec = next(iter(specs.values()))
    frame = as_table(data, who="compare_judges")
    if limit is not None:
        frame = frame.head(limit)
    frame = frame.reset_index(drop=True)
    if labels is not None:  # a labels file from the Annotator: each item's resolved label
        frame = with_human_labels(frame, labels, label=label)
    if group is None and spec.group is not None and spec.group in frame.columns:
        group = spec.group
    evaluations: dict[str, MetaEvaluation] = {}
    for name, judge in named.items():
        evaluations[name] = await ameta_evaluate(
            frame,
            task=specs[name].id,
            label=label,
            group=group,
            scorer=judge,
            threshold=threshold if threshold is not None else specs[name].threshold,
            n_bootstrap=0,
            concurrency=concurrency,
            progress=progress,
            input_col=columns.get("input_col"),
            output_col=columns.get("output_col"),
            ground_truth_col=columns.get("ground_truth_col"),
        )
    first = next(iter(evaluations.values()))
    chosen = score or first.score_columns[-1]
    if chosen not in first.score_columns:
        raise ConfigurationError(
            f"score={chosen!r} is not a score of this task; choose one of {first.score_columns}"
        )
    compared = _compared_columns(evaluations, chosen)
    rows = []
    for name, evaluation in evaluations.items():
        table = agreement(
            evaluation.scores,
            compared[name],
            label,
            group=group,
            threshold=threshold if threshold is not None else specs[name].threshold,
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            seed=seed,
            system=SYSTEM_COLUMN if SYSTEM_COLUMN in evaluation.scores.columns else None,
        )
        rows.append(_leaderboard_row(name, evaluation, table, compared[name], group))
    leaderboard = pd.DataFrame(rows)
    leaderboard = leaderboard.sort_values(
        "agreement", ascending=False, na_position="last", kind="stable"
    ).reset_index(drop=True)
    leaderboard.insert(0, "rank", range(1, len(leaderboard) + 1))
    for column in ("tied", "vs_best", "vs_best_ci_low", "vs_best_ci_high"):
        leaderboard[column] = False if column == "tied" else math.nan
    metric_columns = [
        column
        for column in leaderboard.columns
        if column not in LEADING_COLUMNS and column not in TRAILING_COLUMNS
    ]
    leaderboard = leaderboard[[*LEADING_COLUMNS, *metric_columns, *TRAILING_COLUMNS]]
    pairwise = _pairwise(
        evaluations,
        compared,
        group,
        label,
        williams=williams,
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        seed=seed,
    )
    # Plain values only: pandas deep-copies attrs on every operation and compares them when
    # combining frames (a DataFrame there would break board.merge(...)).
    leaderboard.attrs = {
        "pairwise": pairwise.to_dict(orient="records"),
        "task": spec.id,
        "label": label,
        "score": chosen,
        "group": group,
        "metric": str(leaderboard["metric"].iloc[0]),
        "columns": compared,
    }
    comparison = JudgeComparison(
        leaderboard=leaderboard, pairwise=pairwise, evaluations=evaluations
    )
    _rank_by_paired_intervals(comparison, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)
    return comparison


def _rank_by_paired_intervals(
    comparison: JudgeComparison, *, n_bootstrap: int, confidence: float, seed: int
) -> None:
    """Rank each judge 1 + the number of judges that beat it on a paired interval.

    A judge beats another when the paired interval of their difference
    (:meth:`JudgeComparison.paired`, the ranking metric) lies wholly on its side of 0 and
    rests on at least :data:`FEW_UNITS` documents (items without documents). Judges no other
    judge beats share rank 1, and so on; ``tied`` marks a rank held by several judges, and
    ``vs_best`` (with its interval) is each judge's paired difference to the first one.
    Judges without a figure come last.
    """
    board = comparison.leaderboard
    metric = str(board.attrs["metric"])
    names = [str(name) for name in board["judge"]]
    finite = [name for name, value in zip(names, board["agreement"], strict=True) if value == value]
    if n_bootstrap == 0 or len(finite) < 2:
        board.attrs["ranking"] = (
            "by the point estimates only (n_bootstrap=0): no paired interval tells the judges apart"
            if n_bootstrap == 0
            else "one judge with a figure: nothing to tell apart"
        )
        return
    beaten = dict.fromkeys(names, 0)
    for position, better in enumerate(finite):
        for worse in finite[position + 1 :]:
            row = comparison.paired(
                better,
                worse,
                metric=metric,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed=seed,
            ).iloc[0]
            units = row["n"] if row["groups"] != row["groups"] else row["groups"]
            if units < FEW_UNITS:
                continue
            if row["ci_low"] > 0:
                beaten[worse] += 1
            elif row["ci_high"] < 0:
                beaten[better] += 1
    ranks = {name: 1 + beaten[name] for name in finite}
    for name in names:
        ranks.setdefault(name, len(finite) + 1)
    best = finite[0]
    for index, name in enumerate(names):
        board.loc[index, "rank"] = ranks[name]
        board.loc[index, "tied"] = sum(rank == ranks[name] for rank in ranks.values()) > 1
        if name != best and name in finite:
            row = comparison.paired(
                name,
                best,
                metric=metric,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed=seed,
            ).iloc[0]
            board.loc[index, "vs_best"] = row["difference"]
            board.loc[index, "vs_best_ci_low"] = row["ci_low"]
            board.loc[index, "vs_best_ci_high"] = row["ci_high"]
    board.attrs["ranking"] = (
        f"a judge ranks below another only when the paired {confidence:.0%} interval of their "
        f"{metric} difference excludes 0 over at least {FEW_UNITS} documents (items without "
        "documents); judges no interval separates share a rank (tied)"
    )


@overload
async def acompare_judges(
    data: str | os.PathLike[str] | pd.DataFrame | Sequence[Mapping[str, Any]],
    judges: Mapping[str, Scorer],
    *,
    label: str,
    group: str | None = None,
    task: Task | None = None,
    score: str | None = None,
    threshold: float | None = None,
    limit: int | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    labels: str | os.PathLike[str] | pd.DataFrame | None = None,
    williams: bool = False,
    keep_runs: Literal[False] = False,
    **columns: str | None,
) -> pd.DataFrame: ...


@overload
async def acompare_judges(
    data: str | os.PathLike[str] | pd.DataFrame | Sequence[Mapping[str, Any]],
    judges: Mapping[str, Scorer],
    *,
    label: str,
    group: str | None = None,
    task: Task | None = None,
    score: str | None = None,
    threshold: float | None = None,
    limit: int | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    labels: str | os.PathLike[str] | pd.DataFrame | None = None,
    williams: bool = False,
    keep_runs: Literal[True],
    **columns: str | None,
) -> JudgeComparison: ...


@renamed_keywords(**COLUMN_RENAMES)
async def acompare_judges(
    data: str | os.PathLike[str] | pd.DataFrame | Sequence[Mapping[str, Any]],
    judges: Mapping[str, Scorer],
    *,
    label: str,
    group: str | None = None,
    task: Task | None = None,
    score: str | None = None,
    threshold: float | None = None,
    limit: int | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    labels: str | os.PathLike[str] | pd.DataFrame | None = None,
    williams: bool = False,
    keep_runs: bool = False,
    **columns: str | None,
) -> pd.DataFrame | JudgeComparison:
    """Score one labelled data set with several judges and rank them by agreement with the label.

    Each judge is a scorer of the same task: different models, prompts or settings
    (``create_summarization_scorer("openai/gpt-4o-mini")``,
    ``create_summarization_scorer(max_questions=5)``, ...). The data is laid out as
    :func:`~evaltoolkit.meta.meta_evaluate` does (summarization: ``source`` and ``summary``
    columns; answer similarity: ``question``, ``candidate`` and ``golden_answers``, a list of
    golden answers being scored one by one and the best kept; textual difference:
    ``sentence1`` and ``sentence2``; rename with ``input_col=``, ``output_col=`` and
    ``ground_truth_col=``).

    Agreement is measured with :func:`~evaltoolkit.meta.agreement` on one score column
    (``score=``; summarization has ``alignment``, ``coverage`` and ``score``, the default):

    - numeric labels: Spearman and Kendall, pooled and, with ``group`` (summarization
      defaults to ``doc_id`` when present), averaged per group; the leaderboard ranks by the
      per-group Spearman when there is a group, else the pooled one; data with a
      ``system_id`` column adds ``spearman_system``, the system-level Spearman (each
      system's mean score against its mean label, over systems);
    - boolean labels: AUROC (the ranking metric) and accuracy at ``threshold`` (answer
      similarity defaults to :data:`ANSWER_THRESHOLD`; without a threshold, at the
      threshold that maximises accuracy, named in the ``threshold`` column).

    Every metric has a percentile bootstrap interval (``<metric>_ci_low``,
    ``<metric>_ci_high``; ``n_bootstrap=0`` skips them).

    Returns:
        The leaderboard, one row per judge, best first: ``rank``, ``judge``,
        ``judge_model``, ``metric`` (the ranking metric), ``agreement`` with ``ci_low`` and
        ``ci_high``, the metric columns above, then ``n`` (items in the agreement),
        ``items`` (labelled rows), ``scored``, ``failed``, ``prompt_tokens``,
        ``completion_tokens``, ``tokens``, ``cost`` (USD; None when the model is not
        priced), ``mean_latency_s`` (per scored item). ``leaderboard.attrs["pairwise"]``
        holds the agreement between each pair of judges' scores, as records (read them
        with ``pd.DataFrame(leaderboard.attrs["pairwise"])``): one per pair, with
        ``judge_a``, ``judge_b``, ``n``, ``spearman`` and ``kendall`` with intervals,
        ``pearson``, and with a group ``spearman_per_group`` and ``groups``. The other
        attrs name the ``task``, ``label``, ``score``, ``group`` and ranking ``metric``.
        :func:`evaltoolkit.plots.agreement_vs_cost` draws it. With ``keep_runs=True``, a
        :class:`JudgeComparison` instead: ``leaderboard`` (the DataFrame above),
        ``pairwise`` (a DataFrame), ``evaluations`` and ``results`` by judge name, and
        :meth:`JudgeComparison.paired` for the paired interval of two judges' difference.

    Args:
        data: A .jsonl/.csv/.parquet path, a DataFrame or a list of dicts (one per row),
            with the label column.
        judges: Judge names to scorers; the names label the leaderboard rows.
        label: The human label column.
        group: Column grouping items for per-group correlations (e.g. ``doc_id``).
        task: The task, when the judges are custom scorers (else read from the scorers).
        score: The score column compared with the label.
        threshold: Score threshold for accuracy with boolean labels.
        limit: Use only the first N rows.
        n_bootstrap: Bootstrap resamples for the intervals.
        confidence: Coverage of the intervals.
        seed: Seed of the bootstrap.
        concurrency: Items and judge calls in flight, per judge.
        progress: Show a progress bar per judge.
        labels: A labels file made with the Annotator (or the frame of
            :func:`~evaltoolkit.meta.read_labels`) as the label source: ``label`` names a
            label in it, resolved per item from its annotators; only labelled items count.
        williams: Add Williams' test (:func:`~evaltoolkit.meta.williams_test`) of each pair
            of judges' Spearman with the label to the pairwise records: ``williams_t`` and
            ``williams_p`` over the items both scored, and with a ``system_id`` column
            ``williams_system_t``, ``williams_system_p`` over the systems' means (as WMT's
            metrics task reads it) and ``systems``. The test treats items as independent;
            with documents, the leaderboard's paired bootstrap is the one to read.
        keep_runs: Return a :class:`JudgeComparison` that keeps each judge's run (to read
            the items on which the judges differ, or to write a report of their runs beside
            the leaderboard, without scoring the data again) instead of the leaderboard
            alone. This replaces the deprecated ``judge_comparison``.
        **columns: ``input_col``, ``output_col``, ``ground_truth_col`` (see
            :func:`~evaltoolkit.meta.meta_evaluate`).

    Raises:
        ConfigurationError: No judges, a judge that is not a scorer, judges of different
            tasks, or a missing column.

    :func:`compare_judges` is its blocking twin (the examples use it; in a notebook cell
    ``await acompare_judges(...)`` as well).

    Example:
        >>> import evaltoolkit as et, pandas as pd
        >>> board = et.compare_judges(
        ...     "data/demo_summaries.jsonl",
        ...     {"5 questions": et.create_summarization_scorer(max_questions=5),
        ...      "10 questions": et.create_summarization_scorer(max_questions=10)},
        ...     label="human_score", input_col="input", output_col="output",
        ...     n_bootstrap=0, progress=False)
        >>> sorted(board["judge"])
        ['10 questions', '5 questions']
        >>> pairs = pd.DataFrame(board.attrs["pairwise"])
        >>> list(pairs[["judge_a", "judge_b"]].iloc[0])
        ['5 questions', '10 questions']
        >>> comparison = et.compare_judges(
        ...     "data/demo_summaries.jsonl",
        ...     {"5 questions": et.create_summarization_scorer(max_questions=5)},
        ...     label="human_score", input_col="input", output_col="output",
        ...     n_bootstrap=0, progress=False, keep_runs=True)
        >>> len(comparison.results["5 questions"])
        16
    """
    comparison = await _judge_comparison(
        data,
        judges,
        label=label,
        group=group,
        task=task,
        score=score,
        threshold=threshold,
        limit=limit,
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        seed=seed,
        concurrency=concurrency,
        progress=progress,
        labels=labels,
        williams=williams,
        **columns,
    )
    return comparison if keep_runs else comparison.leaderboard


compare_judges = renamed_keywords(**COLUMN_RENAMES)(blocking(acompare_judges))
"""The blocking twin of :func:`acompare_judges`: same arguments, same result (its docstring)."""


def _replaced_by(function: Callable[P, T], *, old: str, new: str) -> Callable[P, T]:
    """``function`` under its deprecated name ``old``: each call warns, naming ``new``."""

    @functools.wraps(function)
    def alias(*args: P.args, **kwargs: P.kwargs) -> T:
        warnings.warn(
            f"{old} is deprecated: use {new}, which returns the same",
            DeprecationWarning,
            stacklevel=2,
        )
        return function(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = (
        f"Deprecated: use {new}, which returns the same :class:`JudgeComparison`.\n\n"
        "Takes the arguments of :func:`compare_judges` except ``keep_runs``."
    )
    return alias


#: Deprecated: ``acompare_judges(..., keep_runs=True)``.
ajudge_comparison = _replaced_by(
    _judge_comparison, old="ajudge_comparison", new="acompare_judges(..., keep_runs=True)"
)
#: Deprecated: ``compare_judges(..., keep_runs=True)``.
judge_comparison = _replaced_by(
    blocking(_judge_comparison, name="judge_comparison"),
    old="judge_comparison",
    new="compare_judges(..., keep_runs=True)",
)

"""Score a human-labelled file with a judge and measure the agreement: ``meta_evaluate``.

One function serves the command line (``evaltoolkit meta-eval``) and notebooks. The file can
be any JSON Lines, CSV or Parquet file with the right columns; the defaults fit the layouts in
the shared benchmarks. Judge calls go through the judge cache, so running the same
meta-evaluation twice costs nothing the second time.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._internal.deprecation import renamed_keywords
from .._internal.sync import blocking
from ..errors import ConfigurationError
from ..records import EvalResult, ScoreResult
from ..records._internal import RESULT_COLUMNS
from ..records.items import as_table
from ..runner import arun_evals
from ..runner._internal import DEFAULT_CONCURRENCY
from ..scorers import Scorer, ScorerSpec
from ..scorers._internal import ANSWER_THRESHOLD, scorer_spec
from ._agreement import agreement
from ._human_comparison import HumanComparison, judge_vs_humans
from ._human_labels import with_human_labels
from ._loaders import _as_answer_list

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ANSWER_THRESHOLD", "MetaEvaluation", "Task", "ameta_evaluate", "meta_evaluate"]

#: A meta-evaluation task: the id of a registered scorer (see
#: :func:`evaltoolkit.scorers.scorer_ids`), whose registry entry says which columns to read.
Task = str

#: The column naming the system behind each item; when present, agreement adds system level.
SYSTEM_COLUMN = "system_id"


@dataclass(slots=True)
class MetaEvaluation:
    """What a meta-evaluation produced.

    Attributes:
        task: The task scored.
        scores: One row per labelled item: its id, label, group, ``system_id`` when the data
            has one, and each score column.
        agreement: The agreement table (see :func:`~evaltoolkit.meta.agreement`).
        score_columns: The score columns compared with the label.
        label: The label column.
        group: The column grouping items for per-group correlations, if any.
        result: The scoring run behind the scores (one item per reference for
            answer similarity with several references).
        judge_model: The judge model, None for a scorer without one.
        versus_humans: With a labels file, the judge's agreement with the annotators beside
            theirs with each other (print it for the one-line comparison).
    """

    task: Task
    scores: pd.DataFrame
    agreement: pd.DataFrame
    score_columns: list[str]
    label: str
    group: str | None
    result: EvalResult
    judge_model: str | None = None
    versus_humans: HumanComparison | None = None
    # What against() needs: the labelled rows as scored, and the agreement options.
    _data: pd.DataFrame | None = field(default=None, repr=False, compare=False)
    _threshold: float | None = field(default=None, repr=False, compare=False)
    _n_bootstrap: int = field(default=1000, repr=False, compare=False)

    def summary(self) -> pd.DataFrame:
        """The agreement table's main figures, one row per score column and metric."""
        columns = ["score", "metric", "level", "value", "ci_low", "ci_high", "n", "groups"]
        return self.agreement[columns]

    def against(self, label: str) -> MetaEvaluation:
        """The same scores compared with another label column of the same data, unscored again.

        A data set often carries several human labels (SummEval: consistency, relevance,
        coherence, fluency); score it once and measure the agreement with each.

        Args:
            label: Another label column of the data given to :func:`meta_evaluate`.

        Returns:
            A :class:`MetaEvaluation` with the same scores, run and group, and the agreement
            with ``label`` (same threshold and bootstrap resamples).

        Raises:
            ConfigurationError: The data has no such column, or its name is taken by a score
                column.

        Example:
            >>> import pandas as pd
            >>> frame = pd.DataFrame({"sentence1": ["a cat", "a dog", "the sun"],
            ...                       "sentence2": ["a cat", "a log", "a moon"],
            ...                       "meaning": [5.0, 3.0, 0.5], "wording": [5.0, 4.0, 1.0]})
            >>> meaning = meta_evaluate(frame, task="textual-difference", label="meaning",
            ...                         n_bootstrap=0, progress=False)
            >>> wording = meaning.against("wording")
            >>> wording.label, wording.scores.columns.tolist()
            ('wording', ['item_id', 'wording', 'score_textual_difference'])
        """
        if self._data is None:
            raise ConfigurationError(
                "this MetaEvaluation does not hold its data; call meta_evaluate again with "
                f"label={label!r}"
            )
        _require(self._data, label, "--label")
        _check_column_names(label, self.group, self.score_columns)
        scores = self.scores.drop(columns=[self.label])
        scores.insert(1, label, self._data[label].to_numpy())
        table = agreement(
            scores,
            self.score_columns,
            label,
            group=self.group,
            threshold=self._threshold,
            n_bootstrap=self._n_bootstrap,
            system=SYSTEM_COLUMN if SYSTEM_COLUMN in scores.columns else None,
        )
        return MetaEvaluation(
            task=self.task,
            scores=scores,
            agreement=table,
            score_columns=self.score_columns,
            label=label,
            group=self.group,
            result=self.result,
            judge_model=self.judge_model,
            _data=self._data,
            _threshold=self._threshold,
            _n_bootstrap=self._n_bootstrap,
        )


# The columns `evaltoolkit run` and run_evals read, for each role of a meta-evaluation layout:
# where a benchmark's column name (source, candidate, ...) is missing, these are read instead.
_RUN_COLUMNS: dict[str, tuple[str, ...]] = {
    "source": ("input",),
    "summary": ("output",),
    "question": ("input",),
    "answer": ("output",),
    "reference": ("ground_truth", "groundTruth"),
}
# The option naming each role's column, in Python and on the command line.
_OPTIONS = {
    role: f"{option}= / --{option.replace('_', '-')}"
    for role, option in {
        "source": "input_col",
        "summary": "output_col",
        "question": "input_col",
        "answer": "output_col",
        "reference": "ground_truth_col",
    }.items()
}

# Keyword names renamed after 0.1.0 (the glossary: one name per concept), accepted for one
# release; compare_judges takes the same.
COLUMN_RENAMES = {
    "source_col": "input_col",
    "question_col": "input_col",
    "summary_col": "output_col",
    "answer_col": "output_col",
    "reference_col": "ground_truth_col",
}


def _column(frame: pd.DataFrame, role: str, given: str | None, default: str | None) -> str | None:
    """The column a role reads: the one named, else the layout's default, else the name
    ``run`` reads (``input``, ``output``, ``ground_truth``); an error names every name tried."""
    if given is not None:
        _require(frame, given, _OPTIONS[role])
        return given
    if default is None:  # the layout has no such column (textual difference's question)
        return None
    for name in (default, *_RUN_COLUMNS[role]):
        if name in frame.columns:
            return name
    if role == "question":
        return None  # without a question column the answer stands in as the input
    others = " or ".join(repr(name) for name in _RUN_COLUMNS[role])
    raise ConfigurationError(
        f"no column {default!r} (from {_OPTIONS[role]}) in the file, nor {others} (the name "
        f"`evaltoolkit run` reads); its columns are {', '.join(map(str, frame.columns))}. "
        f"Name the right one with {_OPTIONS[role]}."
    )


def _require(frame: pd.DataFrame, column: str, option: str) -> None:
    if column not in frame.columns:
        raise ConfigurationError(
            f"no column {column!r} (from {option}) in the file; its columns are "
            f"{', '.join(map(str, frame.columns))}. Name the right one with {option}."
        )


# Names an item field may not take: the item's own parts.
_ITEM_PARTS = frozenset({"id", "item_id", "input", "output", "ground_truth", "groundTruth"})


def _carried_fields(row: Mapping[Any, Any], used: Sequence[str | None]) -> dict[str, Any]:
    """The row's plain values (document, system, labels) that go with its item into the run.

    So a saved run, the views and the report can group and compare items by them. A field
    with the name of a result column (a label called ``score``) is carried as ``item_<name>``,
    the name its export gives it.
    """
    return {
        str(name) if name not in RESULT_COLUMNS else f"item_{name}": value
        for name, value in row.items()
        if name not in used
        and name not in _ITEM_PARTS
        and (value is None or isinstance(value, str | int | float | bool))
    }


def _summarization_items(frame: pd.DataFrame, source: str, summary: str) -> list[dict[str, Any]]:
    _require(frame, source, "--source-col")
    _require(frame, summary, "--summary-col")
    return [
        {
            **_carried_fields(row, (source, summary)),
            "id": position,
            "input": row[source],
            "output": row[summary],
        }
        for position, row in enumerate(frame.to_dict(orient="records"))
    ]


def _reference_items(
    frame: pd.DataFrame, question: str | None, answer: str, reference: str
) -> tuple[list[dict[str, Any]], list[int]]:
    """One item per (answer, reference) pair; the second list maps items to their rows."""
    if question is not None:
        _require(frame, question, "--question-col")
    _require(frame, answer, "--answer-col")
    _require(frame, reference, "--reference-col")
    items: list[dict[str, Any]] = []
    owners: list[int] = []
    for position, row in enumerate(frame.to_dict(orient="records")):
        # A row without a reference still gets one item, which fails with a clear error.
        answers = _as_answer_list(row[reference])
        references: list[str | None] = list(answers) if answers else [None]
        for alternative, truth in enumerate(references):
            items.append(
                {
                    **_carried_fields(row, (question, answer, reference)),
                    "id": f"{position}#{alternative}",
                    "input": row[question] if question is not None else row[answer],
                    "output": row[answer],
                    "ground_truth": truth,
                }
            )
            owners.append(position)
    return items, owners


def _value(result: ScoreResult, value: str) -> float:
    """The score, or the detail named ``value``, of one result (NaN when it has none)."""
    if value == "score":
        return result.score
    detail = result.details.get(value, math.nan)
    return float(detail) if isinstance(detail, int | float) else math.nan


def _best_per_row(
    result: EvalResult, owners: Sequence[int], rows: int, scorer: str, value: str
) -> list[float]:
    best = [math.nan] * rows
    for item, owner in zip(result, owners, strict=True):
        score = _value(item.scorer_results[scorer], value)
        if not math.isnan(score) and (math.isnan(best[owner]) or score > best[owner]):
            best[owner] = score
    return best


def _item_ids(frame: pd.DataFrame) -> list[Any]:
    for column in ("item_id", "id"):
        if column in frame.columns:
            return list(frame[column])
    if {"doc_id", "system_id"} <= set(frame.columns):
        return [
            f"{doc}/{system}"
            for doc, system in zip(frame["doc_id"], frame["system_id"], strict=True)
        ]
    return list(range(len(frame)))


def _check_column_names(label: str, group: str | None, score_columns: list[str]) -> None:
    """Refuse a label or group whose name a column of the scores table would overwrite."""
    if group is not None and group == label:
        raise ConfigurationError(
            f"the label and the group are the same column ({label!r}); group by another column"
        )
    taken = ["item_id", *score_columns]
    for name, option in ((label, "--label"), (group, "--group")):
        if name in taken:
            raise ConfigurationError(
                f"the {option.removeprefix('--')} column {name!r} has the name of a column "
                f"that meta-evaluation adds ({', '.join(taken)}); rename it first (e.g. "
                f"df.rename(columns={{{name!r}: 'human_{name}'}}), or in the file) and name "
                f"the new column as the {option.removeprefix('--')}"
            )


def _scorer_for(spec: ScorerSpec, model: str | None, judge_options: dict[str, Any]) -> Scorer:
    if not spec.takes_judge:
        return spec.factory()
    return spec.factory(model, **spec.meta_options, **judge_options)


@renamed_keywords(**COLUMN_RENAMES)
async def ameta_evaluate(
    data: str | os.PathLike[str] | pd.DataFrame | Sequence[Mapping[str, Any]],
    *,
    task: Task,
    label: str,
    model: str | None = None,
    group: str | None = None,
    input_col: str | None = None,
    output_col: str | None = None,
    ground_truth_col: str | None = None,
    limit: int | None = None,
    threshold: float | None = None,
    n_bootstrap: int = 1000,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: bool = True,
    scorer: Scorer | None = None,
    labels: str | os.PathLike[str] | pd.DataFrame | None = None,
    **judge_options: Any,
) -> MetaEvaluation:
    """Score a labelled data set with a judge and measure its agreement with the labels.

    Summarization compares the alignment axis, the coverage axis and the final score with the
    label. Data with a ``system_id`` column (SummEval, REALSumm, Newsroom) also gets the
    system-level rows (``level="system"``): each system's mean score against its mean label,
    correlated over systems, the interval resampling documents. Answer similarity scores the
    answer against each reference (a list of golden answers is expanded) and keeps the best.
    Textual difference compares the answer column with the reference column.

    Args:
        data: A .jsonl/.csv/.parquet path, a DataFrame or a list of dicts (one per row).
        task: The id of a registered scorer (``evaltoolkit.scorers.scorer_ids()``): the
            built-in ``summarization``, ``answer-similarity`` and ``textual-difference``, or
            one you registered with :func:`~evaltoolkit.scorers.register_scorer`.
        label: The human label column.
        model: The judge model (None: the offline judge).
        group: Column grouping items for per-group correlations (e.g. ``doc_id``).
        input_col: The input column: for summarization the source (default ``source``, else
            ``input``, the column :func:`~evaltoolkit.run_evals` reads); for answer
            similarity the question (default ``question``, else ``input``, else none: the
            answer stands in).
        output_col: The output column: the summary (default ``summary``, else ``output``)
            or the answer (``candidate``; ``sentence1`` for textual difference; else
            ``output``).
        ground_truth_col: The reference column (``golden_answers``; ``sentence2`` for
            textual difference; else ``ground_truth``), a single text or a list.
        limit: Use only the first N rows.
        threshold: Score threshold for accuracy and F1 with boolean labels (answer
            similarity defaults to :data:`ANSWER_THRESHOLD`).
        n_bootstrap: Bootstrap resamples of the intervals.
        concurrency: Items and judge calls in flight.
        progress: Show a progress bar.
        scorer: A scorer of the task to use as it is (its own model, prompts and options)
            instead of building one from ``model`` and ``judge_options``; see also
            :func:`~evaltoolkit.meta.compare_judges`.
        labels: A labels file made with the :class:`~evaltoolkit.widgets.Annotator` (or
            the frame of :func:`~evaltoolkit.meta.read_labels`) as the label source:
            ``label`` names a label in it, each item's value is resolved from its annotators,
            only labelled items are scored, and
            ``versus_humans`` sets the judge's agreement with the annotators beside theirs.
        **judge_options: Passed to the judge (``api_base``, ``cache``, ...).

    :func:`meta_evaluate` is its blocking twin (the example uses it).

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"sentence1": ["a cat", "a dog", "the sun"],
        ...                       "sentence2": ["a cat", "a log", "a moon"],
        ...                       "score": [5.0, 3.0, 0.5]})
        >>> evaluation = meta_evaluate(frame, task="textual-difference", label="score",
        ...                            n_bootstrap=0, progress=False)
        >>> evaluation.score_columns
        ['score_textual_difference']
    """
    spec = scorer_spec(task, what="task")
    frame = as_table(data, who="meta_evaluate")
    if limit is not None:
        frame = frame.head(limit)
    frame = frame.reset_index(drop=True)
    if labels is not None:
        frame = with_human_labels(frame, labels, label=label)
    _require(frame, label, "--label")
    if group is None and spec.group is not None and spec.group in frame.columns:
        group = spec.group
    if group is not None:
        _require(frame, group, "--group")
    if scorer is None:
        scorer = _scorer_for(spec, model, judge_options)
    elif model is not None or judge_options:
        raise ConfigurationError(
            "pass either scorer= or a model and judge options, not both; set the model and "
            "its options on the scorer itself"
        )

    read = spec.score_columns(scorer)
    score_columns = [column for column, _ in read]
    _check_column_names(label, group, score_columns)
    defaults = spec.columns
    scores = frame[[label] + ([group] if group else [])].copy()
    scores.insert(0, "item_id", _item_ids(frame))
    system = SYSTEM_COLUMN if SYSTEM_COLUMN in frame.columns else None
    if system is not None and system not in scores.columns:
        scores[system] = frame[system].to_numpy()
    if labels is not None:
        scores["annotators"] = frame["annotators"].to_numpy()
    if spec.layout == "source-summary":
        items = _summarization_items(
            frame,
            str(_column(frame, "source", input_col, defaults["source"])),
            str(_column(frame, "summary", output_col, defaults["summary"])),
        )
        result = await arun_evals(items, scorer, concurrency=concurrency, progress=progress)
        results = result.results(scorer.id)
        for column, value in read:
            scores[column] = [_value(s, value) for s in results]
    else:
        items, owners = _reference_items(
            frame,
            _column(frame, "question", input_col, defaults["question"]),
            str(_column(frame, "answer", output_col, defaults["answer"])),
            str(_column(frame, "reference", ground_truth_col, defaults["reference"])),
        )
        result = await arun_evals(items, scorer, concurrency=concurrency, progress=progress)
        for column, value in read:
            scores[column] = _best_per_row(result, owners, len(frame), scorer.id, value)
    if threshold is None:
        threshold = spec.threshold
    table = agreement(
        scores,
        score_columns,
        label,
        group=group,
        threshold=threshold,
        n_bootstrap=n_bootstrap,
        system=system,
    )
    return MetaEvaluation(
        task=task,
        scores=scores,
        agreement=table,
        score_columns=score_columns,
        label=label,
        group=group,
        result=result,
        judge_model=scorer.judge_model,
        versus_humans=None
        if labels is None
        else judge_vs_humans(
            scores, labels, label=label, score=score_columns[-1], n_bootstrap=n_bootstrap
        ),
        _data=frame,
        _threshold=threshold,
        _n_bootstrap=n_bootstrap,
    )


meta_evaluate = renamed_keywords(**COLUMN_RENAMES)(blocking(ameta_evaluate))
"""The blocking twin of :func:`ameta_evaluate`: same arguments, same result (its docstring)."""

"""One flat view of a scored item, read from an EvalResult, the rows of an export, or a file.

Rows and files are read by :mod:`evaltoolkit.records` (``EvalResult.from_frame`` and
``read_results``), the one place that knows the export columns; nothing here parses them.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..records import EvalResult, ItemResult, ScoreResult
from ..records._internal import as_eval_result
from ..records.messages import input_text, output_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ResultRow",
    "judged_another_source",
    "result_rows",
    "source_text",
    "summary_text",
]


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One scorer's result on one item, with everything the views show about it.

    Attributes:
        position: The row's position among all rows of the result (a unique key).
        item_id: The item's id.
        scorer: The scorer id.
        score: The score, NaN when the item failed.
        reason: The scorer's explanation.
        error_step: The step that failed, None on success.
        error_message: Why it failed.
        error_kind: The exception class behind the failure, when known.
        error_raw_reply: The model's last raw reply for a reply that never validated.
        input: The item's input (the source, for summarization).
        output: The output scored.
        ground_truth: The item's ground truth.
        extra: The scorer's details and the item's other fields (``decided_by``, ``doc_id``).
        preprocess: The preprocessing step's result (claims and questions, units).
        analyze: The analysis step's result (coverage verdicts, matches).
        prompts: The prompt of each judge call, by step.
        raw_replies: The raw reply of each judge call, by step.
        judge_model: The judge model, None for scorers without one.
        source: The source text the scorer judged (the summarization scorer's ``source``
            detail), None when the result does not record one.
    """

    position: int
    item_id: Any
    scorer: str
    score: float
    reason: str | None = None
    error_step: str | None = None
    error_message: str | None = None
    error_kind: str | None = None
    error_raw_reply: str | None = None
    input: Any = None
    output: Any = None
    ground_truth: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    preprocess: dict[str, Any] | None = None
    analyze: dict[str, Any] | None = None
    prompts: dict[str, str] = field(default_factory=dict)
    raw_replies: dict[str, str | None] = field(default_factory=dict)
    judge_model: str | None = None
    source: str | None = None

    @property
    def failed(self) -> bool:
        """Whether the item could not be scored."""
        return self.error_step is not None or self.error_message is not None

    def number(self, key: str) -> float:
        """A numeric detail (``alignment_score``), NaN when absent or not a number."""
        value = self.extra.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return math.nan
        return float(value)


def _from_score(position: int, item: ItemResult, result: ScoreResult) -> ResultRow:
    error = result.error
    source = result.details.get("source")
    return ResultRow(
        position=position,
        item_id=item.item_id,
        scorer=result.scorer,
        score=result.score,
        reason=result.reason,
        error_step=error.step if error else None,
        error_message=error.message if error else None,
        error_kind=error.kind if error else None,
        error_raw_reply=error.raw_reply if error else None,
        input=item.input,
        output=item.output,
        ground_truth=item.ground_truth,
        extra={
            **result.details,
            **{k: v for k, v in item.fields.items() if k not in result.details},
        },
        preprocess=result.preprocess_step_result,
        analyze=result.analyze_step_result,
        prompts=result.prompts,
        raw_replies=result.raw_replies,
        judge_model=result.judge_model,
        source=source if isinstance(source, str) else None,
    )


def result_rows(
    result: EvalResult | pd.DataFrame | str | os.PathLike[str],
) -> list[ResultRow]:
    """Every (item, scorer) result as a :class:`ResultRow`, in data order.

    Args:
        result: An :class:`~evaltoolkit.EvalResult`, the DataFrame of its ``to_frame()`` or
            ``to_wide()``, or the path of saved results (read with
            :func:`~evaltoolkit.read_results`).

    Raises:
        ConfigurationError: Anything else, or rows that are not a results export.
        DataLoadError: A path that cannot be read as results.

    Example:
        >>> from evaltoolkit import create_textual_difference_scorer, run_evals
        >>> result = run_evals([{"input": "a", "output": "a"}],
        ...                    create_textual_difference_scorer(), progress=False)
        >>> [row.score for row in result_rows(result)]
        [1.0]
    """
    rows: list[ResultRow] = []
    for item in as_eval_result(result).items:
        for score in item.scorer_results.values():
            rows.append(_from_score(len(rows), item, score))
    return rows


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _input_source(row: ResultRow) -> str:
    """The input's first user message: the source the summarization scorer reads by default."""
    try:
        return input_text(row.input)
    except InputError:
        return _text(row.input)


def source_text(row: ResultRow) -> str:
    """The source document of a summarization row.

    The text the scorer judged when its result records it (``source=`` or
    ``source_extractor=`` may have chosen another text than the input), else the input's
    first user message, as the scorer reads it by default.
    """
    return row.source if row.source is not None else _input_source(row)


def judged_another_source(row: ResultRow) -> bool:
    """Whether the scorer judged a source other than the input's (``source_extractor=``)."""
    return row.source is not None and row.source != _input_source(row)


def summary_text(row: ResultRow) -> str:
    """The summary of a summarization row (the output's last assistant text)."""
    try:
        return output_text(row.output)
    except InputError:
        return _text(row.output)

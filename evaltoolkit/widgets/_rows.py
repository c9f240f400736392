"""One flat view of a scored item, read from an EvalResult or from its ``to_frame()`` rows."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, InputError
from ..messages import input_text, output_text
from ..records import EvalResult, ItemResult, ScoreResult

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultRow", "result_rows", "source_text", "summary_text"]

# Columns of EvalResult.to_frame() that are not a scorer's details nor an item's own fields.
_KNOWN_COLUMNS = frozenset(
    {
        "item_id",
        "scorer",
        "score",
        "reason",
        "error",
        "error_step",
        "input",
        "output",
        "ground_truth",
        "judge_model",
        "model_calls",
        "attempts",
        "cached_calls",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "latency_s",
        "run_id",
        "preprocess_step_result",
        "analyze_step_result",
        "prompts",
        "raw_replies",
    }
)


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
    )


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _cell(value: Any) -> Any:
    """A frame cell as a Python value: None for missing cells, numpy scalars unwrapped."""
    if _missing(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            return value.item()
        except (TypeError, ValueError):
            return value
    return value


def _json_cell(value: Any) -> Any:
    """A cell that to_frame() wrote as JSON text, parsed back."""
    value = _cell(value)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _mapping_cell(value: Any) -> dict[str, Any]:
    parsed = _json_cell(value)
    return dict(parsed) if isinstance(parsed, Mapping) else {}


def _text_or_none(value: Any) -> str | None:
    value = _cell(value)
    return None if value is None else str(value)


def _from_record(position: int, record: Mapping[str, Any]) -> ResultRow:
    score = _cell(record.get("score"))
    preprocess = _json_cell(record.get("preprocess_step_result"))
    analyze = _json_cell(record.get("analyze_step_result"))
    return ResultRow(
        position=position,
        item_id=_cell(record.get("item_id", position)),
        scorer=str(_cell(record.get("scorer")) or "score"),
        score=math.nan if score is None else float(score),
        reason=_text_or_none(record.get("reason")),
        error_step=_text_or_none(record.get("error_step")),
        error_message=_text_or_none(record.get("error")),
        input=_cell(record.get("input")),
        output=_cell(record.get("output")),
        ground_truth=_cell(record.get("ground_truth")),
        extra={
            str(key): _cell(value)
            for key, value in record.items()
            if key not in _KNOWN_COLUMNS and not _missing(value)
        },
        preprocess=preprocess if isinstance(preprocess, dict) else None,
        analyze=analyze if isinstance(analyze, dict) else None,
        prompts={str(k): str(v) for k, v in _mapping_cell(record.get("prompts")).items()},
        raw_replies={
            str(k): None if v is None else str(v)
            for k, v in _mapping_cell(record.get("raw_replies")).items()
        },
        judge_model=_text_or_none(record.get("judge_model")),
    )


def result_rows(result_or_frame: EvalResult | pd.DataFrame) -> list[ResultRow]:
    """Every (item, scorer) result as a :class:`ResultRow`, in data order.

    Args:
        result_or_frame: An :class:`~evaltoolkit.EvalResult`, or the DataFrame of its
            ``to_frame()`` (read back from Parquet or CSV, for example).

    Raises:
        ConfigurationError: Anything else, or a frame without a ``score`` column.

    Example:
        >>> from evaltoolkit import create_textual_difference_scorer, run_evals
        >>> result = run_evals([{"input": "a", "output": "a"}],
        ...                    create_textual_difference_scorer(), progress=False)
        >>> [row.score for row in result_rows(result)]
        [1.0]
    """
    if isinstance(result_or_frame, EvalResult):
        rows: list[ResultRow] = []
        for item in result_or_frame.items:
            for score in item.scorer_results.values():
                rows.append(_from_score(len(rows), item, score))
        return rows
    if hasattr(result_or_frame, "to_dict") and hasattr(result_or_frame, "columns"):
        if "score" not in result_or_frame.columns:
            raise ConfigurationError(
                "the frame has no 'score' column; pass an EvalResult or result.to_frame()"
            )
        records = result_or_frame.to_dict(orient="records")
        return [
            _from_record(position, {str(key): value for key, value in record.items()})
            for position, record in enumerate(records)
        ]
    raise ConfigurationError(
        f"expected an EvalResult or the DataFrame of result.to_frame(), "
        f"got {type(result_or_frame).__name__}"
    )


def _as_messages(value: Any) -> Any:
    """Message lists come back from a frame as JSON text; parse them, leave other text alone."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return value
        if isinstance(parsed, list | dict):
            return parsed
    return value


def source_text(row: ResultRow) -> str:
    """The source document of a summarization row (the input's first user message)."""
    for candidate in (_as_messages(row.input), row.input):
        try:
            return input_text(candidate)
        except InputError:
            continue
    return "" if row.input is None else str(row.input)


def summary_text(row: ResultRow) -> str:
    """The summary of a summarization row (the output's last assistant text)."""
    for candidate in (_as_messages(row.output), row.output):
        try:
            return output_text(candidate)
        except InputError:
            continue
    return "" if row.output is None else str(row.output)

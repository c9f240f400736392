"""Typed result records and their flattening into pandas-friendly rows.

A scorer returns a :class:`ScoreResult`; the runner gathers one :class:`ItemResult` per data
item and returns an :class:`EvalResult`. Every record flattens to rows of scalars
(``to_record()``, ``EvalResult.to_frame()``), nested values becoming JSON text, so the rows
export to Parquet, CSV or JSON Lines as they are.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EvalResult",
    "ItemResult",
    "ModelCall",
    "ScoreResult",
    "ScoreSummary",
    "StepError",
    "Usage",
]

Stage = Literal["preprocess", "analyze", "reason"]
Scalar = str | int | float | bool | None

# Columns every row of EvalResult.to_frame() starts with, in this order.
_LEADING_COLUMNS = ("item_id", "scorer", "score", "reason", "error", "error_step")


def new_run_id() -> str:
    """Return a fresh random run id."""
    return uuid.uuid4().hex


def to_json_text(value: Any) -> str:
    """Serialise ``value`` as compact JSON text, falling back to ``str`` for unknown objects."""
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def _as_cell(value: Any) -> Scalar:
    """Return ``value`` as a scalar cell: scalars as they are, anything nested as JSON text."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return to_json_text(value)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one or more model calls, as the provider reported it."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


def sum_usage(usages: Sequence[Usage | None]) -> Usage | None:
    """Sum the reported usages; None when no call reported any."""
    reported = [usage for usage in usages if usage is not None]
    if not reported:
        return None
    total = Usage()
    for usage in reported:
        total += usage
    return total


def sum_cost(costs: Sequence[float | None]) -> float | None:
    """Sum costs; None (unknown) as soon as one of them is unknown."""
    if any(cost is None for cost in costs):
        return None
    return float(sum(cost for cost in costs if cost is not None))


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One judge call made by a scorer step.

    Attributes:
        step: The scorer step (``"source_judgement"``, ``"coverage"``, ``"extract"``, ...).
        stage: Which part of the scorer pipeline the step is: preprocess, analyze or reason.
        model: The judge model that answered (``"offline"`` for the built-in judge).
        prompt: The request's messages rendered as text.
        raw_reply: The model's raw reply text (the last one, when a reply was repaired).
        usage: Token usage, None when the provider reported none.
        cost: Cost in USD from litellm's price map, None when the model is not priced.
        latency_s: Wall time of the call, retries included (0 for a cache hit).
        cached: Whether the reply came from the judge cache.
        attempts: Requests made for this step (retries and repairs included).
    """

    step: str
    stage: Stage
    model: str
    prompt: str
    raw_reply: str | None
    usage: Usage | None = None
    cost: float | None = None
    latency_s: float = 0.0
    cached: bool = False
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class StepError:
    """Why a score could not be computed, and at which step.

    Attributes:
        step: The step that failed (``"input"``, ``"target"``, or a judge step name).
        message: What went wrong and, where possible, what to do about it.
        kind: The exception class behind the failure.
        raw_reply: The model's last raw reply, for a reply that never validated.
        attempts: Requests made before giving up, for judge steps.
    """

    step: str
    message: str
    kind: str = "EvalToolkitError"
    raw_reply: str | None = None
    attempts: int | None = None

    def __str__(self) -> str:
        return f"[{self.step}] {self.message}"


@dataclass(slots=True)
class ScoreResult:
    """The result of one scorer on one item.

    A failed score is NaN and carries an :class:`StepError`; it is never a silent 0.

    Attributes:
        scorer: The scorer id (``"summarization"``, ``"answer-similarity"``, ...).
        score: The score, NaN when the item could not be scored.
        reason: A human-readable explanation of the score.
        preprocess_step_result: What the first step produced (claims and questions, units).
        analyze_step_result: What the analysis step produced (coverage verdicts, matches).
        details: Derived figures (axis scores, counts, the reference used, ...).
        calls: Every judge call made, in order.
        judge_model: The judge model, None for scorers that use no model.
        latency_s: Wall time spent scoring this item.
        error: Why the item could not be scored, None on success.
        run_id: A unique id of this scoring run.

    Example:
        >>> result = ScoreResult(scorer="demo", score=0.5, reason="half right")
        >>> result.to_record()["score"]
        0.5
    """

    scorer: str
    score: float
    reason: str | None = None
    preprocess_step_result: dict[str, Any] | None = None
    analyze_step_result: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    calls: tuple[ModelCall, ...] = ()
    judge_model: str | None = None
    latency_s: float = 0.0
    error: StepError | None = None
    run_id: str = field(default_factory=new_run_id)

    @property
    def failed(self) -> bool:
        """Whether the item could not be scored."""
        return self.error is not None

    @property
    def prompts(self) -> dict[str, str]:
        """The prompt of each judge call, by step name."""
        return {call.step: call.prompt for call in self.calls}

    @property
    def raw_replies(self) -> dict[str, str | None]:
        """The raw reply of each judge call, by step name."""
        return {call.step: call.raw_reply for call in self.calls}

    def _stage_prompt(self, stage: Stage) -> str | None:
        return next((call.prompt for call in self.calls if call.stage == stage), None)

    @property
    def preprocess_prompt(self) -> str | None:
        """The prompt of the preprocessing call (claims and questions, or semantic units)."""
        return self._stage_prompt("preprocess")

    @property
    def analyze_prompt(self) -> str | None:
        """The prompt of the analysis call (coverage, or unit matching)."""
        return self._stage_prompt("analyze")

    @property
    def generate_reason_prompt(self) -> str | None:
        """The prompt of the call that wrote the reason, None when it was a template."""
        return self._stage_prompt("reason")

    @property
    def usage(self) -> Usage | None:
        """Tokens spent by this scoring: summed over the calls not answered by the cache.

        None when no such call reported usage. A cached call keeps the usage it had when it
        was made, on its :class:`ModelCall`.
        """
        return sum_usage([call.usage for call in self.calls if not call.cached])

    @property
    def cost(self) -> float | None:
        """Cost of this scoring over the calls not answered by the cache (0 for cache hits).

        None when any such call's cost is unknown (a model missing from litellm's price map).
        """
        return sum_cost([call.cost for call in self.calls if not call.cached])

    def to_record(self) -> dict[str, Scalar]:
        """Flatten into one row of scalars; nested values become JSON text.

        Returns:
            The score, reason and error first, then every entry of ``details``, then the
            bookkeeping (judge model, usage, cost, latency, prompts and raw replies).
        """
        usage = self.usage
        record: dict[str, Scalar] = {
            "scorer": self.scorer,
            "score": self.score,
            "reason": self.reason,
            "error": self.error.message if self.error else None,
            "error_step": self.error.step if self.error else None,
        }
        for key, value in self.details.items():
            record.setdefault(key, _as_cell(value))
        record.update(
            {
                "judge_model": self.judge_model,
                "model_calls": len(self.calls),
                "cached_calls": sum(call.cached for call in self.calls),
                "prompt_tokens": usage.prompt_tokens if usage else None,
                "completion_tokens": usage.completion_tokens if usage else None,
                "cost": self.cost,
                "latency_s": self.latency_s,
                "run_id": self.run_id,
                "preprocess_step_result": _as_cell(self.preprocess_step_result),
                "analyze_step_result": _as_cell(self.analyze_step_result),
                "prompts": _as_cell(self.prompts) if self.calls else None,
                "raw_replies": _as_cell(self.raw_replies) if self.calls else None,
            }
        )
        return record

    def __repr__(self) -> str:
        parts = [f"scorer={self.scorer!r}", f"score={_format_score(self.score)}"]
        if self.error is not None:
            parts.append(f"error={str(self.error)!r}")
        elif self.reason:
            parts.append(f"reason={_shorten(self.reason, 100)!r}")
        if self.judge_model:
            parts.append(f"judge_model={self.judge_model!r}")
        return f"ScoreResult({', '.join(parts)})"

    def _repr_html_(self) -> str:
        rows: list[tuple[str, str]] = [
            ("scorer", self.scorer),
            ("score", _format_score(self.score)),
        ]
        if self.error is not None:
            rows.append(("error", str(self.error)))
        if self.reason:
            rows.append(("reason", self.reason))
        rows.extend((key, str(_as_cell(value))) for key, value in self.details.items())
        if self.judge_model:
            rows.append(("judge model", self.judge_model))
        return _html_table(rows)


@dataclass(frozen=True, slots=True)
class ScoreSummary:
    """The mean score of one scorer over a run, with how many items it scored and failed."""

    mean: float
    scored: int
    failed: int

    @property
    def count(self) -> int:
        """Items the scorer saw, scored or failed."""
        return self.scored + self.failed

    def __float__(self) -> float:
        return self.mean

    def __repr__(self) -> str:
        mean = _format_score(self.mean)
        return f"ScoreSummary(mean={mean}, scored={self.scored}, failed={self.failed})"


@dataclass(slots=True)
class ItemResult:
    """Every scorer's result on one data item.

    Attributes:
        item_id: The item's ``id`` (or ``item_id``) field, else its position in the data.
        index: The item's position in the data.
        input: The item's input, as given.
        output: The output scored (given, or produced by the target).
        ground_truth: The item's ground truth, None when it has none.
        fields: The item's other fields, kept for the result rows.
        scorer_results: Each scorer's result, by scorer id.
        latency_s: Wall time for the item, target call included.
    """

    item_id: Any
    index: int
    input: Any
    output: Any
    ground_truth: Any = None
    fields: dict[str, Any] = field(default_factory=dict)
    scorer_results: dict[str, ScoreResult] = field(default_factory=dict)
    latency_s: float = 0.0

    @property
    def failed(self) -> bool:
        """Whether any scorer failed on this item."""
        return any(result.failed for result in self.scorer_results.values())

    def item_columns(self) -> dict[str, Scalar]:
        """The item's own fields as scalar cells (input, output, ground truth, then the rest)."""
        columns: dict[str, Scalar] = {
            "input": _as_cell(self.input),
            "output": _as_cell(self.output),
            "ground_truth": _as_cell(self.ground_truth),
        }
        for key, value in self.fields.items():
            columns[key if key not in columns else f"item_{key}"] = _as_cell(value)
        return columns

    def __repr__(self) -> str:
        scores = ", ".join(
            f"{scorer}={_format_score(result.score)}"
            for scorer, result in self.scorer_results.items()
        )
        return f"ItemResult(item_id={self.item_id!r}, {scores})"


@dataclass(slots=True)
class EvalResult:
    """The result of a run: one :class:`ItemResult` per data item, in data order.

    Example:
        >>> from evaltoolkit import create_textual_difference_scorer, run_evals
        >>> result = run_evals(
        ...     [{"input": "q", "output": "Paris", "ground_truth": "Paris"}],
        ...     [create_textual_difference_scorer()],
        ...     progress=False,
        ... )
        >>> result.scores["textual-difference"].mean
        1.0
    """

    items: list[ItemResult]
    scorer_ids: list[str]
    run_id: str = field(default_factory=new_run_id)
    elapsed_s: float = 0.0

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[ItemResult]:
        return iter(self.items)

    def __getitem__(self, index: int) -> ItemResult:
        return self.items[index]

    def results(self, scorer: str) -> list[ScoreResult]:
        """Every item's result for one scorer id, in data order."""
        if scorer not in self.scorer_ids:
            raise KeyError(f"no scorer {scorer!r} in this run; it has {self.scorer_ids}")
        return [item.scorer_results[scorer] for item in self.items]

    @property
    def scores(self) -> dict[str, ScoreSummary]:
        """Mean score per scorer id (NaN scores skipped), with the counts scored and failed."""
        summaries: dict[str, ScoreSummary] = {}
        for scorer in self.scorer_ids:
            values = [result.score for result in self.results(scorer)]
            scored = [value for value in values if not math.isnan(value)]
            mean = math.fsum(scored) / len(scored) if scored else math.nan
            summaries[scorer] = ScoreSummary(mean, len(scored), len(values) - len(scored))
        return summaries

    @property
    def usage(self) -> Usage | None:
        """Tokens spent by the run (cache hits excluded), None when no call reported any."""
        return sum_usage([result.usage for result in self._all_results()])

    @property
    def cost(self) -> float | None:
        """Cost of the run (cache hits excluded); None when any call's cost is unknown."""
        return sum_cost([result.cost for result in self._all_results() if result.calls])

    def _all_results(self) -> Iterator[ScoreResult]:
        for item in self.items:
            yield from item.scorer_results.values()

    def summary(self) -> pd.DataFrame:
        """One row per scorer: mean, scored, failed."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"scorer": scorer, "mean": s.mean, "scored": s.scored, "failed": s.failed}
                for scorer, s in self.scores.items()
            ]
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per item and scorer.

        Columns: item_id, scorer, score, reason, error, error_step, then each scorer's
        details, the item's own fields, and the bookkeeping columns of
        :meth:`ScoreResult.to_record`.
        """
        import pandas as pd

        rows: list[dict[str, Scalar]] = []
        for item in self.items:
            for result in item.scorer_results.values():
                record = result.to_record()
                row: dict[str, Scalar] = {"item_id": item.item_id}
                row.update({key: record.pop(key) for key in _LEADING_COLUMNS[1:]})
                detail_keys = [key for key in result.details if key in record]
                row.update({key: record.pop(key) for key in detail_keys})
                for key, value in item.item_columns().items():
                    row[key if key not in record and key not in row else f"item_{key}"] = value
                row.update(record)
                rows.append(row)
        frame = pd.DataFrame(rows)
        if frame.empty:
            frame = pd.DataFrame(columns=list(_LEADING_COLUMNS))
        return frame

    def to_wide(self) -> pd.DataFrame:
        """One row per item: the item's fields, then ``<scorer id>.<column>`` per scorer."""
        import pandas as pd

        rows: list[dict[str, Scalar]] = []
        for item in self.items:
            row: dict[str, Scalar] = {"item_id": item.item_id, **item.item_columns()}
            for scorer, result in item.scorer_results.items():
                record = result.to_record()
                del record["scorer"]
                row.update({f"{scorer}.{key}": value for key, value in record.items()})
            rows.append(row)
        return pd.DataFrame(rows)

    def to_parquet(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) to a Parquet file and return its path."""
        target = Path(path)
        _export_ready(self.to_wide() if wide else self.to_frame()).to_parquet(target, index=False)
        return target

    def to_csv(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) to a CSV file and return its path."""
        target = Path(path)
        (self.to_wide() if wide else self.to_frame()).to_csv(target, index=False)
        return target

    def to_jsonl(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) as JSON Lines and return its path."""
        target = Path(path)
        frame = self.to_wide() if wide else self.to_frame()
        frame.to_json(target, orient="records", lines=True, force_ascii=False)
        return target

    def __repr__(self) -> str:
        scores = ", ".join(
            f"{scorer}: mean={_format_score(s.mean)} ({s.scored} scored, {s.failed} failed)"
            for scorer, s in self.scores.items()
        )
        return f"EvalResult({len(self.items)} items; {scores})"

    def _repr_html_(self) -> str:
        from ._html import Markup, table

        rows = [
            (scorer, _format_score(s.mean), s.scored, s.failed) for scorer, s in self.scores.items()
        ]
        caption = Markup("<p>EvalResult: {} items</p>").format(len(self.items))
        return str(
            caption
            + table(["scorer", "mean", "scored", "failed"], rows, css_class="evaltoolkit-summary")
        )


def _export_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Make mixed-type object columns uniform text so that Parquet accepts them."""
    frame = frame.copy()
    for column in frame.columns:
        if frame[column].dtype != object:
            continue
        kinds = {type(value) for value in frame[column] if value is not None}
        if len(kinds) > 1:
            frame[column] = [
                value if value is None or isinstance(value, str) else to_json_text(value)
                for value in frame[column]
            ]
    return frame


def _format_score(score: float) -> str:
    return "nan" if math.isnan(score) else f"{score:.4g}"


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _html_table(rows: Sequence[tuple[str, str]]) -> str:
    from ._html import key_value_table

    return str(key_value_table(rows, css_class="evaltoolkit-result"))

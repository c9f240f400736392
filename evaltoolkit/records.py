"""Typed result records and their flattening into pandas-friendly rows.

A scorer returns a :class:`ScoreResult`; the runner gathers one :class:`ItemResult` per data
item and returns an :class:`EvalResult`. Every record flattens to rows of scalars
(``to_record()``, ``EvalResult.to_frame()``), nested values becoming JSON text, so the rows
export to Parquet, CSV or JSON Lines as they are.
"""

from __future__ import annotations

import json
import math
import os
import re
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from ._internal.secrets import SecretMasker, secret_masker
from .errors import ConfigurationError, DataLoadError

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
    "as_eval_result",
    "frame_layout",
    "read_results",
]

Stage = Literal["preprocess", "analyze", "reason"]
Scalar = str | int | float | bool | None

# Columns every row of EvalResult.to_frame() starts with, in this order.
_LEADING_COLUMNS = ("item_id", "scorer", "score", "reason", "error", "error_step")
# The item's own columns that every row has (its other fields follow them).
_ITEM_COLUMNS = ("item_index", "input", "output", "ground_truth", "notes")
# The bookkeeping columns that end every row of to_frame(), in this order.
_BOOKKEEPING_COLUMNS = (
    "judge_model",
    "model_calls",
    "attempts",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "cached_prompt_tokens",
    "cost",
    "latency_s",
    "run_id",
    "preprocess_step_result",
    "analyze_step_result",
    "prompts",
    "raw_replies",
    "not_scored",
)
# Columns of to_frame() that exports written by earlier versions lack.
_OPTIONAL_COLUMNS = frozenset(
    {"attempts", "item_index", "notes", "cached_prompt_tokens", "not_scored"}
)
# Every column of to_frame() that is not a detail or an item field, in order.
_FIXED_COLUMNS = _LEADING_COLUMNS + _ITEM_COLUMNS + _BOOKKEEPING_COLUMNS
#: The columns a result row has whatever the data: an item field of one of these names is
#: exported as ``item_<name>`` (a field ``score`` as ``item_score``).
RESULT_COLUMNS = _FIXED_COLUMNS
#: Every column a long export (``to_frame()``) has, whatever the scorers.
EXPORT_COLUMNS = tuple(column for column in _FIXED_COLUMNS if column not in _OPTIONAL_COLUMNS)
# Keys of ScoreResult.to_record() every scorer has (a wide export prefixes them with the id).
_RECORD_KEYS = ("score", "reason", "error", "error_step", *_BOOKKEEPING_COLUMNS)
_REQUIRED_RECORD_KEYS = tuple(key for key in _RECORD_KEYS if key not in _OPTIONAL_COLUMNS)
# Keys of a record that hold numbers (or nothing), whoever edited the file.
_NUMBER_KEYS = (
    "score",
    "model_calls",
    "attempts",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "latency_s",
)
# Columns that hold text whatever it looks like (read as text from CSV).
_TEXT_KEYS = frozenset(
    {
        "scorer",
        "reason",
        "error",
        "error_step",
        "judge_model",
        "run_id",
        "preprocess_step_result",
        "analyze_step_result",
        "prompts",
        "raw_replies",
        "not_scored",
        *(column for column in _ITEM_COLUMNS if column != "item_index"),
    }
)


def new_run_id() -> str:
    """Return a fresh random run id."""
    return uuid.uuid4().hex


def to_json_text(value: Any) -> str:
    """Serialise ``value`` as compact JSON text, falling back to ``str`` for unknown objects."""
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))


def number_or_nan(value: Any) -> float:
    """A cell's value as a float: NaN for None, booleans and anything not a number.

    Example:
        >>> number_or_nan("0.5"), number_or_nan(None), number_or_nan(True)
        (0.5, nan, nan)
    """
    if value is None or isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _as_cell(value: Any) -> Scalar:
    """Return ``value`` as a scalar cell: scalars as they are, anything nested as JSON text."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return to_json_text(value)


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one or more model calls, as the provider reported it.

    Attributes:
        prompt_tokens: Input tokens, those read from the provider's prompt cache included.
        completion_tokens: Output tokens.
        cached_prompt_tokens: The part of ``prompt_tokens`` the provider read from its prompt
            cache (OpenAI's ``prompt_tokens_details.cached_tokens``, Anthropic's cache read
            tokens), which it bills at a lower price; 0 when it reported none.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_prompt_tokens + other.cached_prompt_tokens,
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

    The message and the raw reply are stored with every known secret masked (the values of
    secret-named environment variables, the keys given to a judge).

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

    def __post_init__(self) -> None:
        # Whatever failed (a judge, a target quoting $MY_SERVICE_TOKEN), the stored error
        # holds no secret.
        masker = secret_masker()
        if isinstance(self.message, str):
            object.__setattr__(self, "message", masker.text(self.message))
        if isinstance(self.raw_reply, str):
            object.__setattr__(self, "raw_reply", masker.text(self.raw_reply))

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
        not_scored: Why the item was not scored though nothing failed (``"not scored:
            budget of $2.00 reached"``): the score is NaN, and the item counts as neither
            scored nor failed. None for an item the scorer was run on.

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
    not_scored: str | None = None

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

        Every request counts, retries, repairs and failed steps included. None when no such
        call reported usage. A cached call keeps the usage it had when it was made, on its
        :class:`ModelCall`.
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
                "attempts": sum(call.attempts for call in self.calls),
                "cached_calls": sum(call.cached for call in self.calls),
                "prompt_tokens": usage.prompt_tokens if usage else None,
                "completion_tokens": usage.completion_tokens if usage else None,
                "cached_prompt_tokens": usage.cached_prompt_tokens if usage else None,
                "cost": self.cost,
                "latency_s": self.latency_s,
                "run_id": self.run_id,
                "preprocess_step_result": _as_cell(self.preprocess_step_result),
                "analyze_step_result": _as_cell(self.analyze_step_result),
                "prompts": _as_cell(self.prompts) if self.calls else None,
                "raw_replies": _as_cell(self.raw_replies) if self.calls else None,
                "not_scored": self.not_scored,
            }
        )
        return record

    def __repr__(self) -> str:
        parts = [f"scorer={self.scorer!r}", f"score={_format_score(self.score)}"]
        if self.error is not None:
            parts.append(f"error={str(self.error)!r}")
        elif self.not_scored:
            parts.append(f"not_scored={self.not_scored!r}")
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
    """The mean score of one scorer over a run, with how many items it scored and failed.

    ``not_scored`` counts the items it was never run on (a budget reached), which are
    neither scored nor failed.
    """

    mean: float
    scored: int
    failed: int
    not_scored: int = 0

    @property
    def count(self) -> int:
        """Items the scorer saw, scored or failed."""
        return self.scored + self.failed

    def __float__(self) -> float:
        return self.mean

    def __repr__(self) -> str:
        mean = _format_score(self.mean)
        skipped = f", not_scored={self.not_scored}" if self.not_scored else ""
        return f"ScoreSummary(mean={mean}, scored={self.scored}, failed={self.failed}{skipped})"


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
        notes: What loading changed in the item's fields (a number read as text, a character
            that cannot be encoded replaced), one sentence each; empty when nothing changed.
    """

    item_id: Any
    index: int
    input: Any
    output: Any
    ground_truth: Any = None
    fields: dict[str, Any] = field(default_factory=dict)
    scorer_results: dict[str, ScoreResult] = field(default_factory=dict)
    latency_s: float = 0.0
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """Whether any scorer failed on this item."""
        return any(result.failed for result in self.scorer_results.values())

    def item_columns(self) -> dict[str, Scalar]:
        """The item's own fields as scalar cells.

        ``item_index`` (the item's position in the data, which tells apart items that share
        an id), input, output, ground truth, ``notes`` (None when loading changed nothing),
        then the item's other fields.
        """
        columns: dict[str, Scalar] = {
            "item_index": self.index,
            "input": _as_cell(self.input),
            "output": _as_cell(self.output),
            "ground_truth": _as_cell(self.ground_truth),
            "notes": "; ".join(self.notes) if self.notes else None,
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

    @overload
    def __getitem__(self, key: int) -> ItemResult: ...

    @overload
    def __getitem__(self, key: slice) -> list[ItemResult]: ...

    @overload
    def __getitem__(self, key: str) -> ItemResult: ...

    def __getitem__(self, key: int | slice | str) -> ItemResult | list[ItemResult]:
        """An item by position (``result[0]``), a slice of items, or an item by its text id.

        An integer is always a position, as in a list; look up an item whose id is a number
        with ``next(item for item in result if item.item_id == 12)``.

        Raises:
            KeyError: No item has that id, or several do (then index by position).

        Example:
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"id": "harbour-bridge-1", "input": "q", "output": "a"}],
            ...                    create_textual_difference_scorer(), progress=False)
            >>> result["harbour-bridge-1"] is result[0]
            True
        """
        if not isinstance(key, str):
            return self.items[key]
        positions = [n for n, item in enumerate(self.items) if item.item_id == key]
        if len(positions) == 1:
            return self.items[positions[0]]
        if positions:
            shown = ", ".join(map(str, positions[:5]))
            raise KeyError(
                f"{len(positions)} items have the id {key!r} (positions {shown}); index them "
                f"by position, as in result[{positions[0]}]"
            )
        ids = ", ".join(repr(item.item_id) for item in self.items[:3])
        more = ", ..." if len(self.items) > 3 else ""
        raise KeyError(f"no item has the id {key!r}; the ids are {ids}{more}")

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
            results = self.results(scorer)
            skipped = sum(1 for result in results if result.not_scored is not None)
            values = [result.score for result in results if result.not_scored is None]
            scored = [value for value in values if not math.isnan(value)]
            mean = math.fsum(scored) / len(scored) if scored else math.nan
            summaries[scorer] = ScoreSummary(mean, len(scored), len(values) - len(scored), skipped)
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
        """One row per scorer: mean, scored, failed (and not_scored, when a budget stopped
        the run before some items)."""
        import pandas as pd

        scores = self.scores
        budget_stopped = any(s.not_scored for s in scores.values())
        return pd.DataFrame(
            [
                {
                    "scorer": scorer,
                    "mean": s.mean,
                    "scored": s.scored,
                    "failed": s.failed,
                    **({"not_scored": s.not_scored} if budget_stopped else {}),
                }
                for scorer, s in scores.items()
            ]
        )

    def rule_counts(self) -> pd.DataFrame:
        """How often each named rule decided a verdict in this run.

        The offline summarization judge names the rule behind each claim and question verdict
        (the ``rule`` field of the step results); this counts them per scorer and per list of
        verdicts (``alignment`` for claims, ``coverage`` for questions). Verdicts without a
        rule (a model judge's) and failed items are left out.

        Returns:
            Columns scorer, step, rule, count: most frequent first within each scorer and
            step; no rows when no verdict names a rule.

        Example:
            >>> from evaltoolkit import create_summarization_scorer, run_evals
            >>> result = run_evals(
            ...     [{"input": "Acme was founded in 1995 in Boston.",
            ...       "output": "Acme was founded in 1997."}],
            ...     create_summarization_scorer(reason="template"),
            ...     progress=False,
            ... )
            >>> result.rule_counts().query("step == 'alignment'").to_dict("records")
            [{'scorer': 'summarization', 'step': 'alignment', 'rule': 'low_support', 'count': 1}]
        """
        import pandas as pd

        counts: dict[tuple[str, str, str], int] = {}
        for result in self._all_results():
            for steps in (result.preprocess_step_result, result.analyze_step_result):
                for step, entries in (steps or {}).items():
                    for entry in entries if isinstance(entries, list) else []:
                        if isinstance(entry, Mapping) and isinstance(entry.get("rule"), str):
                            key = (result.scorer, step, entry["rule"])
                            counts[key] = counts.get(key, 0) + 1
        rows = [(*key, count) for key, count in counts.items()]
        rows.sort(key=lambda row: (row[0], row[1], -row[3], row[2]))
        return pd.DataFrame(rows, columns=["scorer", "step", "rule", "count"])

    def to_frame(self) -> pd.DataFrame:
        """One row per item and scorer.

        Columns: item_id, scorer, score, reason, error, error_step, then each scorer's
        details, the item's own columns (:meth:`ItemResult.item_columns`: item_index, input,
        output, ground_truth, notes and the item's other fields), and the bookkeeping
        columns of :meth:`ScoreResult.to_record`. A row without a column's key (a detail
        another scorer reports) holds a missing value there, as does a key whose value is
        None. Characters that UTF-8 cannot encode (lone surrogates, say from a target's
        output) appear as U+FFFD, so the frame always exports, and the values of secret-named
        environment variables and of judges' keys appear as ``***``. :meth:`from_frame` and
        :func:`read_results` turn these rows back into an EvalResult.
        """
        rows: list[dict[str, Scalar]] = []
        masker = secret_masker(key_shapes=False)
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
                rows.append(_storable_row(row, masker))
        return _frame_of(rows, empty_columns=_LEADING_COLUMNS)

    def to_wide(self) -> pd.DataFrame:
        """One row per item: the item's fields, then ``<scorer id>.<column>`` per scorer."""
        rows: list[dict[str, Scalar]] = []
        masker = secret_masker(key_shapes=False)
        for item in self.items:
            row: dict[str, Scalar] = {"item_id": item.item_id, **item.item_columns()}
            for scorer, result in item.scorer_results.items():
                record = result.to_record()
                del record["scorer"]
                row.update({f"{scorer}.{key}": value for key, value in record.items()})
            rows.append(_storable_row(row, masker))
        return _frame_of(rows, empty_columns=("item_id",))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> EvalResult:
        """Rebuild a result from the rows of :meth:`to_frame` or :meth:`to_wide`.

        The inverse of the exports: ``EvalResult.from_frame(result.to_frame()).to_frame()``
        equals ``result.to_frame()``. Scores, reasons, errors, details, step results, item
        fields, prompts, raw replies, token counts, cost and latencies come back; what the
        rows never held stays unknown: each call's own usage, cost and latency (the totals
        are kept), an error's exception class and the run's wall time.

        Args:
            frame: The long rows (one per item and scorer) or the wide rows (one per item).

        Returns:
            An EvalResult with one ItemResult per item, in row order.

        Raises:
            ConfigurationError: The frame is neither layout; the message names the columns
                that are missing.

        Example:
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"id": 7, "input": "q", "output": "a", "ground_truth": "a"}],
            ...                    create_textual_difference_scorer(), progress=False)
            >>> again = EvalResult.from_frame(result.to_frame())
            >>> again[0].item_id, again.scores["textual-difference"].mean
            (7, 1.0)
        """
        columns = [str(column) for column in frame.columns]
        if len(set(columns)) != len(columns):
            raise ConfigurationError("the frame has duplicate column names; it is not an export")
        cells = {
            name: _column_values(frame[column])
            for name, column in zip(columns, frame.columns, strict=True)
        }
        encoded = (getattr(frame, "attrs", None) or {}).get("evaltoolkit", {})
        for column, positions in dict(encoded.get("json_cells", {})).items():
            if column in cells:
                for position in positions:
                    text = cells[column][position]
                    if isinstance(text, str):
                        cells[column][position] = json.loads(text)
        return _from_columns(columns, cells, len(frame))

    def _export_frame(self, wide: bool) -> pd.DataFrame:
        return self.to_wide() if wide else self.to_frame()

    def to_parquet(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) to a Parquet file and return its path.

        A column mixing types (item ids that are numbers and text) is stored as text; the
        file's metadata records which cells were not text, so :func:`read_results` restores
        them. The file is written beside ``path`` under a temporary name and renamed into
        place, so an error or an interrupt never leaves half a file (nor harms an earlier
        one). Characters that cannot be encoded as UTF-8 (lone surrogates) are written as
        U+FFFD.

        Example:
            >>> import tempfile
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"input": "q", "output": "a", "ground_truth": "a"}],
            ...                    [create_textual_difference_scorer()], progress=False)
            >>> result.to_parquet(Path(tempfile.mkdtemp()) / "r.parquet").suffix
            '.parquet'
        """
        frame = _export_ready(self._export_frame(wide))
        return _write_atomically(path, lambda tmp: frame.to_parquet(tmp, index=False))

    def to_csv(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) to a UTF-8 CSV file; return its path.

        Written under a temporary name and renamed into place, like :meth:`to_parquet`.

        Example:
            >>> import tempfile
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"input": "q", "output": "a", "ground_truth": "a"}],
            ...                    [create_textual_difference_scorer()], progress=False)
            >>> result.to_csv(Path(tempfile.mkdtemp()) / "r.csv").suffix
            '.csv'
        """
        frame = self._export_frame(wide)
        return _write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False, encoding="utf-8"))

    def to_jsonl(self, path: str | Path, *, wide: bool = False) -> Path:
        """Write :meth:`to_frame` (or :meth:`to_wide`) as JSON Lines and return its path.

        One JSON object per row, every column in order; missing values are ``null`` and
        numbers are written exactly (``pd.read_json(path, lines=True)`` reads the file too).
        JSON has no infinite numbers, so an infinite value (a label of ``Infinity``, a
        score) is written as the text ``"Infinity"`` or ``"-Infinity"``, which
        :func:`read_results` reads back as the number where the column holds numbers (NaN,
        like any missing value, is ``null``). Written under a temporary name and renamed
        into place, like :meth:`to_parquet`.

        Example:
            >>> import tempfile
            >>> from evaltoolkit import create_textual_difference_scorer, run_evals
            >>> result = run_evals([{"input": "q", "output": "a", "ground_truth": "a"}],
            ...                    [create_textual_difference_scorer()], progress=False)
            >>> result.to_jsonl(Path(tempfile.mkdtemp()) / "r.jsonl").suffix
            '.jsonl'
        """
        return write_json_lines(self._export_frame(wide), path)

    def __repr__(self) -> str:
        scores = ", ".join(
            f"{scorer}: mean={_format_score(s.mean)} ({s.scored} scored, {s.failed} failed)"
            for scorer, s in self.scores.items()
        )
        return f"EvalResult({len(self.items)} items; {scores})"

    def _repr_html_(self) -> str:
        from ._internal.html import Markup, table

        rows = [
            (scorer, _format_score(s.mean), s.scored, s.failed) for scorer, s in self.scores.items()
        ]
        caption = Markup("<p>EvalResult: {} items</p>").format(len(self.items))
        return str(
            caption
            + table(["scorer", "mean", "scored", "failed"], rows, css_class="evaltoolkit-summary")
        )


#: How JSON exports write the infinite numbers that JSON lacks.
INFINITY_TEXT = {math.inf: "Infinity", -math.inf: "-Infinity"}
_INFINITY_OF_TEXT = {text: number for number, text in INFINITY_TEXT.items()}


def _json_cell(value: Any) -> Any:
    if isinstance(value, float) and math.isinf(value):
        return INFINITY_TEXT[value]
    return value


def write_json_lines(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a frame's rows as JSON Lines, atomically; return the path.

    One object per row, columns in order, missing values (NaN included) as ``null``,
    numbers exact, and an infinite number as the text ``"Infinity"`` or ``"-Infinity"``
    (strict JSON has no such numbers, and a JSON export must always be writable).

    Example:
        >>> import pandas as pd, tempfile
        >>> path = Path(tempfile.mkdtemp()) / "rows.jsonl"
        >>> print(write_json_lines(pd.DataFrame({"x": [0.1, float("inf")]}), path).read_text())
        {"x": 0.1}
        {"x": "Infinity"}
        <BLANKLINE>
    """
    columns = [str(column) for column in frame.columns]
    values = [_column_values(frame[column]) for column in frame.columns]

    def write(target: Path) -> None:
        with target.open("w", encoding="utf-8") as out:
            for row in zip(*values, strict=True):
                record = {
                    column: _json_cell(value) for column, value in zip(columns, row, strict=True)
                }
                out.write(json.dumps(record, ensure_ascii=False, allow_nan=False, default=str))
                out.write("\n")

    return _write_atomically(path, write)


def _write_atomically(path: str | Path, write: Callable[[Path], object]) -> Path:
    from ._internal.files import atomic_write

    atomic_write(path, write)
    return Path(path)


def encodable_text(text: str) -> str:
    """``text`` with every code point that UTF-8 cannot encode (a lone surrogate) as U+FFFD.

    Example:
        >>> encodable_text("caf\\u00e9 \\ud800!")
        'café �!'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16: a surrogate pair split in two code points joins up again, and each
        # lone surrogate becomes one U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _storable_row(row: dict[str, Scalar], masker: SecretMasker) -> dict[str, Scalar]:
    """The row with every text (names included) encodable as UTF-8, U+FFFD for the rest, and
    every known secret masked.

    Loading already replaces such characters in data items (with a note); this catches the
    ones a target or a model produced, which pandas, Parquet and CSV would all refuse. The
    secrets are those of :mod:`evaltoolkit._internal.secrets` (a key a target copied into its
    output).
    """
    if masker.masks_values:
        row = {
            key: masker.text(value) if isinstance(value, str) else value
            for key, value in row.items()
        }
    if all(
        key.isascii() and (not isinstance(value, str) or value.isascii())
        for key, value in row.items()
    ):
        return row
    return {
        encodable_text(key): encodable_text(value) if isinstance(value, str) else value
        for key, value in row.items()
    }


def _export_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Make mixed-type object columns uniform text so that Parquet accepts them.

    The positions of the cells turned into JSON text are kept in ``frame.attrs`` (which
    pandas stores in the Parquet file's metadata), so that reading restores their types.
    """
    frame = frame.copy()
    json_cells: dict[str, list[int]] = {}
    for column in frame.columns:
        if frame[column].dtype != object:
            continue
        kinds = {type(value) for value in frame[column] if value is not None}
        if len(kinds) > 1:
            values = list(frame[column])
            json_cells[str(column)] = [
                position
                for position, value in enumerate(values)
                if value is not None and not isinstance(value, str)
            ]
            frame[column] = [
                value if value is None or isinstance(value, str) else to_json_text(value)
                for value in values
            ]
    frame.attrs = {"evaltoolkit": {"format": 1, "json_cells": json_cells}} if json_cells else {}
    return frame


def _format_score(score: float) -> str:
    return "nan" if math.isnan(score) else f"{score:.4g}"


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _html_table(rows: Sequence[tuple[str, str]]) -> str:
    from ._internal.html import key_value_table

    return str(key_value_table(rows, css_class="evaltoolkit-result"))


# Reading results back ----------------------------------------------------------------------
#
# The rows of to_frame() lose no value, but they do not say which of a row's columns are the
# scorer's details and which are the item's own fields. The layout tells: the first row holds
# its details between ``error_step`` and ``input`` and its fields between ``ground_truth`` and
# ``judge_model``; columns first reported by later rows come after ``raw_replies``, and among
# those a column whose value is the same on every row of an item (in a run of several
# scorers) is an item field, any other a detail.

_Layout = Literal["long", "wide"]
_INT_TEXT = re.compile(r"-?[0-9]+")


def _frame_of(
    rows: Sequence[Mapping[str, Scalar]], *, empty_columns: Sequence[str]
) -> pd.DataFrame:
    """A frame of ``rows``: columns in order of first appearance, None where a key is absent."""
    import pandas as pd

    if not rows:
        return pd.DataFrame(columns=list(empty_columns))
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return pd.DataFrame({column: [row.get(column) for row in rows] for column in columns})


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")


def _column_values(series: Any) -> list[Any]:
    """A column's cells as plain Python values, every missing value as None."""
    values: list[Any] = series.tolist()
    return [
        None
        if _is_missing(value)
        else value.item()
        if hasattr(value, "item") and not isinstance(value, str | bytes)
        else value
        for value in values
    ]


def _parsed_json(value: Any) -> Any:
    """JSON text of an object or list that to_frame() wrote, parsed; anything else as it is.

    Text is parsed only when writing the parsed value again gives the same text, so that
    the round trip keeps every cell as it was.
    """
    if not isinstance(value, str) or value[:1] not in ("{", "["):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if to_json_text(parsed) == value else value


def frame_layout(frame: Any) -> _Layout | None:
    """Which export layout a DataFrame has: ``"long"`` (to_frame), ``"wide"`` or None.

    Example:
        >>> import pandas as pd
        >>> frame_layout(pd.DataFrame({"score": [1.0]})) is None
        True
    """
    columns = {str(column) for column in getattr(frame, "columns", ())}
    if set(EXPORT_COLUMNS) <= columns:
        return "long"
    if "item_id" in columns and _wide_scorers([str(column) for column in frame.columns]):
        return "wide"
    if not len(frame) and set(_LEADING_COLUMNS) <= columns:
        return "long"
    return None


def _wide_scorers(columns: Sequence[str]) -> list[str]:
    present = set(columns)
    scorers = [column[: -len(".score")] for column in columns if column.endswith(".score")]
    return [
        scorer
        for scorer in scorers
        if all(f"{scorer}.{key}" in present for key in _REQUIRED_RECORD_KEYS)
    ]


def _missing_columns_message(columns: Sequence[str]) -> str:
    present = set(columns)
    missing = [column for column in EXPORT_COLUMNS if column not in present]
    shown = ", ".join(repr(column) for column in missing)
    return (
        f"these rows are not an evaltoolkit results export: they lack the columns {shown} "
        "(and no '<scorer>.score' columns of the wide layout). Read a file written by "
        "EvalResult.to_parquet/to_csv/to_jsonl or `evaltoolkit run --out`."
    )


def _frame_row(row: int) -> str:
    return f"the row at position {row}"


def _from_columns(
    columns: list[str],
    cells: dict[str, list[Any]],
    rows: int,
    row_name: Callable[[int], str] = _frame_row,
) -> EvalResult:
    """An EvalResult from an export's cells; ``row_name`` names a row for the messages."""
    if rows == 0 and set(_LEADING_COLUMNS) <= set(columns):
        return EvalResult(items=[], scorer_ids=[])
    if set(EXPORT_COLUMNS) <= set(columns):
        _check_numbers(cells, ["item_index", *_NUMBER_KEYS], row_name)
        return _from_long(columns, cells, rows, row_name)
    if "item_id" in columns and _wide_scorers(columns):
        numeric = [f"{scorer}.{key}" for scorer in _wide_scorers(columns) for key in _NUMBER_KEYS]
        _check_numbers(cells, ["item_index", *numeric], row_name)
        return _from_wide(columns, cells, rows)
    raise ConfigurationError(_missing_columns_message(columns))


def _check_numbers(
    cells: dict[str, list[Any]], columns: Sequence[str], row_name: Callable[[int], str]
) -> None:
    """Make the number columns numbers; an edited cell that is not one is an error.

    A CSV column with one cell that is not a number comes back as text throughout, so text
    that reads as a number is taken as that number.
    """
    for column in columns:
        if column not in cells:
            continue
        values = cells[column]
        for row, value in enumerate(values):
            if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
                continue
            number = _number_of_text(value)
            if number is None:
                raise ConfigurationError(
                    f"{row_name(row)}, column {column!r}: {value!r} is not a number; put a "
                    "number there, or leave the cell empty for a missing value"
                )
            values[row] = number


def _number_of_text(value: Any) -> float | int | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _INT_TEXT.fullmatch(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return None


def _presence_rows(
    late: Sequence[str], cells: Mapping[str, list[Any]], rows: int
) -> dict[str, int]:
    """The row where each late column first has its key, as the column order requires.

    A column first shows a value in some row, but its key may have been there earlier with
    no value; the columns after it appeared no earlier, so each column's row is the first row
    holding a value of it or of any column after it.
    """
    first = [
        next((row for row in range(rows) if cells[column][row] is not None), rows)
        for column in late
    ]
    chosen: dict[str, int] = {}
    earliest = rows
    for column, row in zip(reversed(late), reversed(first), strict=True):
        earliest = min(earliest, row)
        chosen[column] = earliest
    fallback = 0
    for column in late:  # a column with no value at all: beside the column before it
        if chosen[column] >= rows:
            chosen[column] = min(fallback, rows - 1)
        fallback = chosen[column]
    return chosen


def _consecutive_items(ids: Sequence[Any], scorers: Sequence[Any]) -> list[list[int]]:
    """Consecutive rows of one item id, a repeated scorer starting the next item."""
    groups: list[list[int]] = []
    for row, (item_id, scorer) in enumerate(zip(ids, scorers, strict=True)):
        group = groups[-1] if groups else None
        if (
            group is not None
            and _same_value(ids[group[0]], item_id)
            and all(scorers[other] != scorer for other in group)
        ):
            group.append(row)
        else:
            groups.append([row])
    return groups


def _id_key(value: Any) -> tuple[str, Any]:
    """A hashable key telling ids apart as :func:`_same_value` does (1 is not "1")."""
    try:
        hash(value)
    except TypeError:
        return type(value).__name__, repr(value)
    return type(value).__name__, value


def _rows_text(rows: Sequence[int], row_name: Callable[[int], str]) -> str:
    names = [row_name(row) for row in rows[:6]]
    return ", ".join(names) + (", ..." if len(rows) > 6 else "")


def _group_items(
    cells: Mapping[str, list[Any]], rows: int, row_name: Callable[[int], str]
) -> list[list[int]]:
    """The rows of each item, items in data order, whatever order the rows are in.

    Rows belong together by ``item_index`` and ``item_id`` (by the id alone in exports
    that predate ``item_index``), so a file sorted by score, or with a row deleted, still
    gives each item once. Rows that contradict each other (two rows of one item for the
    same scorer, one ``item_index`` with two ids) raise a ConfigurationError naming them.
    """
    ids, scorers = cells["item_id"], cells["scorer"]
    for row, scorer in enumerate(scorers):
        if scorer is None:
            raise ConfigurationError(
                f"{row_name(row)}, column 'scorer': the cell is empty; every row names the "
                "scorer it is the result of"
            )
    indexes = cells.get("item_index")
    if indexes is None:
        keys: list[Any] = [_id_key(item_id) for item_id in ids]
    else:
        for row, index in enumerate(indexes):
            if index is None:
                raise ConfigurationError(
                    f"{row_name(row)}, column 'item_index': the cell is empty; every row needs "
                    "the position of its item (or delete the whole column to group by item_id)"
                )
        keys = [(index, _id_key(item_id)) for index, item_id in zip(indexes, ids, strict=True)]
        ids_at: dict[Any, list[int]] = {}
        for row, index in enumerate(indexes):
            ids_at.setdefault(index, []).append(row)
        for index, members in ids_at.items():
            if len({keys[row] for row in members}) > 1:
                raise ConfigurationError(
                    f"rows of item_index {index} have different item ids "
                    f"({', '.join(dict.fromkeys(repr(ids[row]) for row in members))}): "
                    f"{_rows_text(members, row_name)}; one item has one id, so correct the "
                    "item_index or the item_id of the rows that do not fit"
                )
    groups: dict[Any, list[int]] = {}
    for row in range(rows):
        groups.setdefault(keys[row], []).append(row)
    for members in groups.values():
        seen: dict[Any, int] = {}
        for row in members:
            if scorers[row] in seen:
                if indexes is None:  # an older export whose items share ids: rows in order
                    return _consecutive_items(ids, scorers)
                raise ConfigurationError(
                    f"{row_name(seen[scorers[row]])} and {row_name(row)} are both the "
                    f"{scorers[row]!r} row of item {ids[row]!r} (item_index {indexes[row]}); "
                    "delete the one that does not belong"
                )
            seen[scorers[row]] = row
    ordered = list(groups.values())
    if indexes is not None and any(g[-1] - g[0] != len(g) - 1 for g in ordered):
        ordered.sort(key=lambda group: (indexes[group[0]], group[0]))  # rows were reordered
    return ordered


def _is_item_field(
    column: str, cells: Mapping[str, list[Any]], groups: Sequence[list[int]]
) -> bool:
    """Whether a column first reported by a later row is an item field (else a detail).

    With several scorers, a field has the same value on every row of an item. With one, a
    value on a failed row is a field (failures carry no details), and so is a name that
    to_frame() prefixed with ``item_`` because a column of the export already had it.
    """
    if column.startswith("item_") and column[len("item_") :] in _FIXED_COLUMNS:
        return True
    if all(len(group) < 2 for group in groups):
        failed = [
            row
            for group in groups
            for row in group
            if cells["error"][row] is not None or cells["error_step"][row] is not None
        ]
        return any(cells[column][row] is not None for row in failed)
    found = False
    for group in groups:
        values = [cells[column][row] for row in group]
        if all(value is None for value in values):
            continue
        if len(group) < 2 or any(v is None or not _same_value(v, values[0]) for v in values):
            return False
        found = True
    return found


def _same_value(first: Any, second: Any) -> bool:
    return type(first) is type(second) and first == second


def _field_name(column: str, details: Sequence[str]) -> str:
    """Undo to_frame()'s ``item_`` prefix on a field whose name a row already used."""
    if column.startswith("item_"):
        name = column[len("item_") :]
        if name in _FIXED_COLUMNS or name in details:
            return name
    return column


def _ordered_zone(columns: list[str], start: str, end: str) -> list[str] | None:
    position = {column: index for index, column in enumerate(columns)}
    low, high = position[start], position[end]
    return columns[low + 1 : high] if low < high else None


def _from_long(
    columns: list[str],
    cells: dict[str, list[Any]],
    rows: int,
    row_name: Callable[[int], str] = _frame_row,
) -> EvalResult:
    fixed = set(_FIXED_COLUMNS)
    position = {column: index for index, column in enumerate(columns)}
    expected = [column for column in _FIXED_COLUMNS if column in position]
    if [column for column in columns if column in fixed] == expected:
        first_item_column = "item_index" if "item_index" in position else "input"
        zone_details = columns[position["error_step"] + 1 : position[first_item_column]]
        zone_fields = [
            column
            for column in columns[position["ground_truth"] + 1 : position["judge_model"]]
            if column not in fixed
        ]
        last_fixed = "not_scored" if "not_scored" in position else "raw_replies"
        late = columns[position[last_fixed] + 1 :]
    else:  # reordered columns: tell details from fields by their values alone
        zone_details, zone_fields = [], []
        late = [column for column in columns if column not in fixed]
    ids = cells["item_id"]
    scorers = cells["scorer"]
    groups = _group_items(cells, rows, row_name)
    late_fields = {column for column in late if _is_item_field(column, cells, groups)}
    present_at = _presence_rows(late, cells, rows)
    all_details = [*zone_details, *(c for c in late if c not in late_fields)]

    def has(column: str, row: int, zone: bool) -> bool:
        if cells[column][row] is not None:
            return True
        return row == 0 if zone else present_at[column] == row

    items: list[ItemResult] = []
    for index, group in enumerate(groups):
        first = group[0]
        fields: dict[str, Any] = {}
        for column in [*zone_fields, *(c for c in late if c in late_fields)]:
            zone = column in zone_fields
            if any(has(column, row, zone) for row in group):
                value = next(
                    (cells[column][row] for row in group if cells[column][row] is not None), None
                )
                fields[_field_name(column, all_details)] = _parsed_json(value)
        results: dict[str, ScoreResult] = {}
        for row in group:
            details = {
                column: _parsed_json(cells[column][row])
                for column in zone_details
                if has(column, row, True)
            }
            details.update(
                {
                    column: _parsed_json(cells[column][row])
                    for column in late
                    if column not in late_fields and has(column, row, False)
                }
            )
            result = _score_result(cells, row, str(scorers[row]), details)
            results[result.scorer] = result
        items.append(
            ItemResult(
                item_id=ids[first],
                index=_item_index(cells, first, index),
                input=_parsed_json(cells["input"][first]),
                output=_parsed_json(cells["output"][first]),
                ground_truth=_parsed_json(cells["ground_truth"][first]),
                fields=fields,
                scorer_results=results,
                notes=_item_notes(cells, first),
            )
        )
    return _result_of(items, _fill_missing_scorers(items, [str(s) for s in dict.fromkeys(scorers)]))


def _fill_missing_scorers(items: list[ItemResult], scorer_ids: list[str]) -> list[str]:
    """Give every item a result for every scorer of the file, as a run does.

    An item with no row for a scorer (a row deleted, a scorer cell renamed) gets a NaN
    score whose error says so, and one warning counts them: the item never disappears and
    ``.scores`` never meets a hole. Returns ``scorer_ids``.
    """
    lacking: dict[str, int] = {}
    for item in items:
        if all(scorer in item.scorer_results for scorer in scorer_ids):
            continue
        run_id = next((r.run_id for r in item.scorer_results.values()), "")
        results: dict[str, ScoreResult] = {}
        for scorer in scorer_ids:
            found = item.scorer_results.get(scorer)
            if found is None:
                lacking[scorer] = lacking.get(scorer, 0) + 1
                found = ScoreResult(
                    scorer=scorer,
                    score=math.nan,
                    error=StepError(
                        step="read_results",
                        message=(
                            f"the results file has no {scorer!r} row for this item (deleted, "
                            "or its scorer cell renamed); its score is unknown"
                        ),
                        kind="DataLoadError",
                    ),
                    run_id=run_id,
                )
            results[scorer] = found
        item.scorer_results = results
    if lacking:
        counts = ", ".join(f"{count} for {scorer!r}" for scorer, count in lacking.items())
        warnings.warn(
            f"some items have no row for a scorer in the results ({counts}: rows deleted, or "
            "scorer cells renamed); each such score is NaN with an error saying so",
            UserWarning,
            stacklevel=5,  # the caller of read_results or from_frame,
        )
    return scorer_ids


def _from_wide(columns: list[str], cells: dict[str, list[Any]], rows: int) -> EvalResult:
    scorers = _wide_scorers(columns)
    owner: dict[str, str] = {}
    for scorer in sorted(scorers, key=len):  # the longest matching id owns a column
        for column in columns:
            if column.startswith(f"{scorer}."):
                owner[column] = scorer
    item_columns = {"item_id", *_ITEM_COLUMNS}
    row_zone_end = max(columns.index(f"{scorer}.raw_replies") for scorer in scorers)
    late = [c for c in columns[row_zone_end + 1 :] if c not in item_columns]
    present_at = _presence_rows(late, cells, rows)
    late_set = set(late)

    def has(column: str, row: int) -> bool:
        if cells[column][row] is not None:
            return True
        return present_at[column] == row if column in late_set else row == 0

    order: list[int] = list(range(rows))
    indexes = cells.get("item_index")
    if indexes is not None and None not in indexes:  # rows sorted by hand: back to data order
        order.sort(key=lambda row: indexes[row])
    items: list[ItemResult] = []
    for row in order:
        fields: dict[str, Any] = {}
        for column in columns:
            if column in item_columns or column in owner or not has(column, row):
                continue
            name = column
            if column.startswith("item_") and column[len("item_") :] in _ITEM_COLUMNS:
                name = column[len("item_") :]
            fields[name] = _parsed_json(cells[column][row])
        results: dict[str, ScoreResult] = {}
        for scorer in scorers:
            prefix = f"{scorer}."
            own = {
                column[len(prefix) :]: values[row]
                for column, values in cells.items()
                if owner.get(column) == scorer
            }
            details = {
                key: _parsed_json(value)
                for key, value in own.items()
                if key not in _RECORD_KEYS and has(prefix + key, row)
            }
            results[scorer] = _score_result(own, None, scorer, details)
        items.append(
            ItemResult(
                item_id=cells["item_id"][row],
                index=_item_index(cells, row, row),
                notes=_item_notes(cells, row),
                input=_parsed_json(cells["input"][row]) if "input" in cells else None,
                output=_parsed_json(cells["output"][row]) if "output" in cells else None,
                ground_truth=(
                    _parsed_json(cells["ground_truth"][row]) if "ground_truth" in cells else None
                ),
                fields=fields,
                scorer_results=results,
            )
        )
    return _result_of(items, scorers)


def _item_index(cells: Mapping[str, list[Any]], row: int, default: int) -> int:
    """The item's position in its data, as exported (older exports: its position here)."""
    value = cells["item_index"][row] if "item_index" in cells else None
    return default if value is None else int(value)


def _item_notes(cells: Mapping[str, list[Any]], row: int) -> tuple[str, ...]:
    value = cells["notes"][row] if "notes" in cells else None
    return () if value is None else tuple(str(value).split("; "))


def _result_of(items: list[ItemResult], scorer_ids: list[str]) -> EvalResult:
    run_id = next(
        (
            result.run_id
            for item in items
            for result in item.scorer_results.values()
            if result.run_id
        ),
        None,
    )
    return EvalResult(items=items, scorer_ids=scorer_ids, run_id=run_id or new_run_id())


def _score_result(
    cells: Mapping[str, Any], row: int | None, scorer: str, details: dict[str, Any]
) -> ScoreResult:
    """One scorer's result from its record cells (a row's, or a wide row's by key)."""

    def cell(key: str) -> Any:
        if key not in cells:  # a column that earlier versions did not write
            return None
        value = cells[key] if row is None else cells[key][row]
        return None if _is_missing(value) else value

    score = cell("score")
    error_message, error_step = cell("error"), cell("error_step")
    error = None
    if error_message is not None or error_step is not None:
        # The exception class is not in the rows; an empty kind says it is unknown.
        error = StepError(step=str(error_step or "?"), message=str(error_message or ""), kind="")
    calls = _calls_of(cell)
    if error is not None:  # the failed step's last reply is its call's raw reply
        error = StepError(
            step=error.step,
            message=error.message,
            kind=error.kind,
            raw_reply=next(
                (call.raw_reply for call in reversed(calls) if call.step == error.step), None
            ),
        )
    reason = cell("reason")
    return ScoreResult(
        scorer=scorer,
        score=math.nan if score is None else score,
        reason=None if reason is None else str(reason),
        preprocess_step_result=_parsed_json(cell("preprocess_step_result")),
        analyze_step_result=_parsed_json(cell("analyze_step_result")),
        details=details,
        calls=calls,
        judge_model=None if cell("judge_model") is None else str(cell("judge_model")),
        latency_s=cell("latency_s") if cell("latency_s") is not None else 0.0,
        error=error,
        run_id=str(cell("run_id") or ""),
        not_scored=None if cell("not_scored") is None else str(cell("not_scored")),
    )


def _calls_of(cell: Any) -> tuple[ModelCall, ...]:
    """Judge calls that give back the row's prompts, replies, counts, tokens and cost.

    The rows keep the totals only, so the first call not answered by the cache carries the
    run's tokens and cost, and the last ``cached_calls`` calls are the cached ones.
    """
    count = int(cell("model_calls") or 0)
    if count == 0:
        return ()
    prompts = _parsed_json(cell("prompts"))
    replies = _parsed_json(cell("raw_replies"))
    prompts = prompts if isinstance(prompts, dict) else {}
    replies = replies if isinstance(replies, dict) else {}
    steps = list(dict.fromkeys([*prompts, *replies])) or ["call"]
    steps += [steps[-1]] * (count - len(steps))
    cached = int(cell("cached_calls") or 0)
    # Every call made at least one request; the first one carries the retries and repairs.
    attempts = cell("attempts")
    extra_attempts = max(int(attempts) - count, 0) if attempts is not None else 0
    prompt_tokens, completion_tokens = cell("prompt_tokens"), cell("completion_tokens")
    usage = (
        None
        if prompt_tokens is None and completion_tokens is None
        else Usage(
            int(prompt_tokens or 0),
            int(completion_tokens or 0),
            int(cell("cached_prompt_tokens") or 0),
        )
    )
    cost = cell("cost")
    model = str(cell("judge_model") or "")
    calls: list[ModelCall] = []
    for position, step in enumerate(steps):
        is_cached = position >= len(steps) - cached
        first_fresh = position == 0 and not is_cached
        stage: Stage = (
            "reason" if step == "reason" else "preprocess" if position == 0 else "analyze"
        )
        calls.append(
            ModelCall(
                step=str(step),
                stage=stage,
                model=model,
                prompt=str(prompts.get(step, "")),
                raw_reply=None if replies.get(step) is None else str(replies[step]),
                usage=usage if first_fresh else None,
                cost=(None if cost is None else float(cost)) if first_fresh else 0.0,
                cached=is_cached,
                attempts=1 + (extra_attempts if position == 0 else 0),
            )
        )
    return tuple(calls)


def _read_csv(path: Path) -> tuple[list[str], dict[str, list[Any]], int]:
    from ._internal.reading import read_delimited

    frame = read_delimited(path, separator=",", text_columns=_is_text_column)
    header = [str(column) for column in frame.columns]
    cells = {name: _column_values(frame[name]) for name in header}
    # CSV keeps no types: an id written as a whole number (no sign, no leading zero) was one.
    cells["item_id"] = [_csv_id(value) for value in cells.get("item_id", [])]
    return header, cells, len(frame)


def _is_text_column(column: str) -> bool:
    """Whether an export's column holds text whatever it looks like (long or wide layout)."""
    return column in _TEXT_KEYS or column.rsplit(".", 1)[-1] in _TEXT_KEYS or column == "item_id"


def _csv_id(value: Any) -> Any:
    if isinstance(value, str) and _INT_TEXT.fullmatch(value) and str(int(value)) == value:
        return int(value)
    return value


def _csv_row(row: int) -> str:
    """A data row of a CSV file as a spreadsheet numbers it (the header is row 1)."""
    return f"row {row + 2} (the header is row 1)"


def _read_jsonl(path: Path) -> tuple[list[str], dict[str, list[Any]], int, list[str]]:
    """The columns, cells and rows of a JSON Lines export, and each row's line, named."""
    from ._internal.reading import check_encoding, loads_json

    check_encoding(path)
    records: list[dict[str, Any]] = []
    lines_of_rows: list[str] = []
    with path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = loads_json(line)
            except ValueError as error:
                raise DataLoadError(f"{path}, line {number}: not JSON ({error})") from error
            except RecursionError as error:
                raise DataLoadError(
                    f"{path}, line {number}: JSON nested too deeply to read; it is not a row "
                    "that an export writes"
                ) from error
            if not isinstance(record, dict):
                raise DataLoadError(f"{path}, line {number}: not a JSON object")
            records.append(record)
            lines_of_rows.append(f"line {number}")
    columns = list(dict.fromkeys(key for record in records for key in record))
    cells = {
        column: [None if _is_missing(r.get(column)) else r.get(column) for r in records]
        for column in columns
    }
    for column in columns:
        cells[column] = _infinities(column, cells[column])
    return columns, cells, len(records), lines_of_rows


def _is_number_column(column: str) -> bool:
    """Whether an export's column always holds numbers (long or wide layout)."""
    return column in _NUMBER_KEYS or column.rsplit(".", 1)[-1] in _NUMBER_KEYS


def _infinities(column: str, values: list[Any]) -> list[Any]:
    """The infinite numbers that to_jsonl writes as text, read back as numbers.

    Only where the text stands for a number: in a column that holds numbers by definition
    (``score``, ``cost``, ...), or in one whose every other value is a number (a label). In
    a column of text, such as a film's title, ``"Infinity"`` stays text.
    """
    if not any(isinstance(value, str) and value in _INFINITY_OF_TEXT for value in values):
        return values
    if not _is_number_column(column):
        others = [v for v in values if v is not None and v not in _INFINITY_OF_TEXT]
        if not others or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in others
        ):
            return values
    return [_INFINITY_OF_TEXT.get(v, v) if isinstance(v, str) else v for v in values]


def _blank(path: Path) -> bool:
    """Whether a file holds nothing but whitespace (read in chunks: exports can be large)."""
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return False
    return True


class _NotAPathError(ConfigurationError, TypeError):
    """A path was expected and something else was given (None, a number, bytes)."""


def read_results(path: str | os.PathLike[str]) -> EvalResult:
    """Read results saved by ``to_parquet``, ``to_csv``, ``to_jsonl`` or ``evaltoolkit run --out``.

    Long files (one row per item and scorer) and wide ones (``wide=True``) both work; the
    format follows the extension (``.parquet``, ``.csv``, ``.jsonl``). The result's
    ``to_frame()`` equals the frame that was written, so a saved run opens again in the
    views, the plots and the report. Parquet and JSON Lines keep every value's type; CSV
    keeps none, so there an id written as a whole number (``12``, not ``012``) comes back as
    a number, text that looks like a number in a column that is not one of the text columns
    (input, output, reason, ...) comes back as a number, and an empty text as missing. In
    JSON Lines, the text ``"Infinity"`` or ``"-Infinity"`` is the infinite number that
    :meth:`EvalResult.to_jsonl` wrote so where it stands for a number: in the number columns
    (``score``, ``cost``, ...) and in a column whose other values are all numbers (a label);
    elsewhere it stays text (a film called "Infinity"). A CSV file whose header is split by
    ``;`` (a spreadsheet's European export) is read with ``;``, with a warning.

    Rows are grouped into items by ``item_index`` and ``item_id`` (the id alone in exports
    that predate ``item_index``), not by position, so a file sorted by score or with rows
    deleted still reads: the items come back in data order, and an item with no row for one
    of the file's scorers gets a NaN score for it whose error says so (with one warning).

    Args:
        path: The results file.

    Returns:
        The :class:`EvalResult` the file was written from.

    Raises:
        ConfigurationError: ``path`` is not a path (also a TypeError).
        DataLoadError: No such file, an unknown extension, a file that is not a results
            export (the message names the columns it lacks), rows that contradict each
            other (two rows of one item for the same scorer, one ``item_index`` with two
            ids), or a number column (``score``, ``cost``, ...) holding something that is
            not a number; the message names the rows and the column.

    Example:
        >>> import evaltoolkit as et, tempfile, pathlib
        >>> result = et.run_evals([{"id": 1, "input": "q", "output": "a b", "ground_truth": "a"}],
        ...                       et.create_textual_difference_scorer(), progress=False)
        >>> path = result.to_parquet(pathlib.Path(tempfile.mkdtemp()) / "results.parquet")
        >>> et.read_results(path).to_frame().equals(result.to_frame())
        True
    """
    if not isinstance(path, str | os.PathLike):
        raise _NotAPathError(
            "read_results takes the path of a results file (.parquet, .csv or .jsonl), got "
            f"{type(path).__name__} {path!r}"
        )
    source = Path(path)
    if not source.is_file():
        from ._internal.files import missing_file_message

        if source.exists():
            raise DataLoadError(f"{str(source)!r} is not a file: give the path of a results file")
        raise DataLoadError(missing_file_message(source, what="results file"))
    suffix = source.suffix.lower()
    if _blank(source):
        if suffix in (".jsonl", ".ndjson"):
            return EvalResult(items=[], scorer_ids=[])  # what to_jsonl writes for no items
        raise DataLoadError(
            f"{str(source)!r} is empty: it is not a results export (a {suffix or 'results'} "
            "export of a run with no items still has a header row or a schema)"
        )
    try:
        if suffix == ".parquet":
            from ._internal.reading import read_parquet

            return EvalResult.from_frame(read_parquet(source))
        if suffix == ".csv":
            columns, cells, rows = _read_csv(source)
            row_name = _csv_row
        elif suffix in (".jsonl", ".ndjson"):
            columns, cells, rows, lines = _read_jsonl(source)
            row_name = lambda row: lines[row]  # noqa: E731
        else:
            raise DataLoadError(
                f"cannot read results from {str(source)!r}: the extension must be .parquet, "
                ".csv or .jsonl"
            )
        return _from_columns(columns, cells, rows, row_name)
    except ConfigurationError as error:
        raise DataLoadError(f"{source}: {error}") from error
    except (OSError, ValueError) as error:
        if isinstance(error, DataLoadError):
            raise
        raise DataLoadError(f"cannot read {str(source)!r}: {error}") from error


def as_eval_result(value: EvalResult | pd.DataFrame | str | os.PathLike[str]) -> EvalResult:
    """An EvalResult from a result, the rows of an export, or the path of a saved one.

    What the views, the plots and the report accept.

    Raises:
        ConfigurationError: Something else, or rows that are not an export.
        DataLoadError: A path that cannot be read as results.

    Example:
        >>> as_eval_result(EvalResult(items=[], scorer_ids=[])).scorer_ids
        []
    """
    if isinstance(value, EvalResult):
        return value
    if isinstance(value, str | os.PathLike):
        return read_results(value)
    if hasattr(value, "columns") and hasattr(value, "to_dict"):
        return EvalResult.from_frame(value)
    raise ConfigurationError(
        "expected an EvalResult, the DataFrame of result.to_frame() or result.to_wide(), or "
        f"the path of saved results; got {type(value).__name__}"
    )

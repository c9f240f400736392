"""The records of one item: :class:`ScoreResult`, :class:`ItemResult` and their parts.

A scorer returns a :class:`ScoreResult` (with its :class:`ModelCall` s, :class:`Usage` and any
:class:`StepError`); the runner gathers one :class:`ItemResult` per data item. Every record
flattens to a row of scalars (``to_record()``), nested values becoming JSON text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._internal.secrets import secret_masker

if TYPE_CHECKING:
    pass
from ._columns import Scalar, Stage, _as_cell, _parsed_json, new_run_id
from ._export import _format_score, _html_table, _shorten


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

"""What every scorer shares: the run/arun pair, step tracking and failure capture."""

from __future__ import annotations

import abc
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._sync import run_sync
from ..errors import ConfigurationError, InputError, JudgeError
from ..judge import Judge, JudgeRequest, render_messages
from ..records import ModelCall, ScoreResult, StepError, new_run_id

__all__ = ["Scored", "Scorer", "ScoringItem", "StepTrace", "check_scale", "merge_options"]


@dataclass(frozen=True, slots=True)
class ScoringItem:
    """The fields of one data item, as a scorer receives them."""

    input: Any
    output: Any
    ground_truth: Any = None
    item_id: Any = None


@dataclass(slots=True)
class Scored:
    """What a scorer's pipeline produced for one item, before bookkeeping is added."""

    score: float
    reason: str | None
    preprocess_step_result: dict[str, Any] | None = None
    analyze_step_result: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)


class StepTrace:
    """Records which step is running and every judge call made, failed ones included."""

    def __init__(self) -> None:
        self.step = "input"
        self.calls: list[ModelCall] = []

    async def ask(self, judge: Judge, request: JudgeRequest) -> dict[str, Any]:
        """Send one step to the judge and record the call; return the reply object."""
        self.step = request.step
        try:
            reply = await judge.complete(request)
        except JudgeError as error:
            self.calls.append(
                ModelCall(
                    step=request.step,
                    stage=request.stage,
                    model=judge.model,
                    prompt=render_messages(request.messages),
                    raw_reply=error.raw_reply,
                    attempts=error.attempts,
                    cost=None,
                )
            )
            raise
        self.calls.append(reply.call)
        return reply.value


class Scorer(abc.ABC):
    """A scorer: call :meth:`run` (or :meth:`arun`) on one item to get a :class:`ScoreResult`.

    Scoring never raises for a problem with the item itself: a missing field, a judge call
    that failed or a reply that never validated gives a result with a NaN score and an
    :class:`~evaltoolkit.StepError` naming the step.
    """

    #: The scorer's id, the key of its results in a run.
    id: str = "scorer"
    #: What the scorer measures, in one line.
    description: str = ""

    @property
    def judge_model(self) -> str | None:
        """The judge model this scorer calls, None when it uses no model."""
        return None

    @property
    def prompts(self) -> Mapping[str, str]:
        """The prompt templates in use, by name (empty for scorers without a model)."""
        return {}

    @abc.abstractmethod
    async def _score(self, item: ScoringItem, trace: StepTrace) -> Scored:
        """Compute the score of one item, recording judge calls on ``trace``."""

    async def arun(
        self,
        *,
        input: Any = None,
        output: Any = None,
        ground_truth: Any = None,
        item_id: Any = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one item (async twin of :meth:`run`)."""
        trace = StepTrace()
        started = time.perf_counter()
        item = ScoringItem(input=input, output=output, ground_truth=ground_truth, item_id=item_id)
        error: StepError | None = None
        scored: Scored | None = None
        try:
            scored = await self._score(item, trace)
        except InputError as exc:
            error = StepError(step="input", message=str(exc), kind=type(exc).__name__)
        except JudgeError as exc:
            error = StepError(
                step=exc.step,
                message=str(exc),
                kind=type(exc).__name__,
                raw_reply=exc.raw_reply,
                attempts=exc.attempts,
            )
        except Exception as exc:  # one bad item must never stop a run
            error = StepError(
                step=trace.step, message=f"{type(exc).__name__}: {exc}", kind=type(exc).__name__
            )
        result = ScoreResult(
            scorer=self.id,
            score=math.nan if scored is None else scored.score,
            reason=None if scored is None else scored.reason,
            preprocess_step_result=None if scored is None else scored.preprocess_step_result,
            analyze_step_result=None if scored is None else scored.analyze_step_result,
            details={} if scored is None else scored.details,
            calls=tuple(trace.calls),
            judge_model=self.judge_model,
            latency_s=time.perf_counter() - started,
            error=error,
            run_id=run_id or new_run_id(),
        )
        return result

    def run(
        self,
        *,
        input: Any = None,
        output: Any = None,
        ground_truth: Any = None,
        item_id: Any = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one item.

        Works in scripts and inside a running event loop (a Jupyter cell) alike.

        Args:
            input: The item's input: a string, a message list or ``{"inputMessages": [...]}``.
            output: The output to score: a string or a message list.
            ground_truth: The expected answer, for scorers that compare with one.
            item_id: The item's id, named in error messages.
            run_id: An id for this scoring run (a random one by default).

        Returns:
            The result; on failure its score is NaN and ``error`` says why.
        """
        return run_sync(
            self.arun(
                input=input,
                output=output,
                ground_truth=ground_truth,
                item_id=item_id,
                run_id=run_id,
            )
        )

    def __repr__(self) -> str:
        model = f", judge_model={self.judge_model!r}" if self.judge_model else ""
        return f"{type(self).__name__}(id={self.id!r}{model})"


def check_scale(scale: Any) -> float:
    """Return ``scale`` as a float, or raise ConfigurationError if it is not positive."""
    if isinstance(scale, bool) or not isinstance(scale, int | float):
        raise ConfigurationError(f"scale must be a positive number, got {scale!r}")
    if not math.isfinite(scale) or scale <= 0:
        raise ConfigurationError(f"scale must be a positive finite number, got {scale!r}")
    return float(scale)


def merge_options(
    explicit: Mapping[str, Any],
    options: Mapping[str, Any] | None,
    aliases: Mapping[str, str],
    *,
    scorer: str,
) -> dict[str, Any]:
    """Merge a reference-style ``options={...}`` dict into the keyword arguments.

    ``aliases`` maps accepted option names (camelCase reference names and snake_case names)
    to keyword names. An entry of ``options`` wins over the keyword argument of that name.

    Raises:
        ConfigurationError: An unknown option name.
    """
    merged = dict(explicit)
    for name, value in (options or {}).items():
        keyword = aliases.get(name)
        if keyword is None:
            known = ", ".join(sorted(aliases))
            raise ConfigurationError(
                f"{scorer}: unknown option {name!r} in options; known options: {known}"
            )
        merged[keyword] = value
    return merged

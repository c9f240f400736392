"""What every scorer shares: the run/arun pair, step tracking and failure capture."""

from __future__ import annotations

import abc
import math
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from .._internal.options import camel_case, resolve_names, unknown_option_error
from .._internal.sync import run_sync
from ..errors import ConfigurationError, EvalToolkitError, InputError, JudgeError
from ..judge import Judge, JudgeRequest, create_judge
from ..judge._internal import EXTRA_HINT, judge_option_names, render_messages
from ..records import ModelCall, ScoreResult, StepError
from ..records._internal import new_run_id
from ._steps import Sample, Score

__all__ = ["Scorer", "StepTrace", "check_scale", "judge_for", "merge_options"]

_reported_bugs: set[tuple[str, str, str]] = set()
_reported_bugs_lock = threading.Lock()


def _report_bug_once(scorer: str, step: str, error: BaseException) -> None:
    """Say once on stderr that a scorer raised an unexpected exception (a bug, not bad data)."""
    key = (scorer, step, type(error).__name__)
    with _reported_bugs_lock:
        if key in _reported_bugs:
            return
        _reported_bugs.add(key)
    print(
        f"evaltoolkit: scorer {scorer!r} raised {type(error).__name__} at step {step!r}: "
        f"{error}. This is a bug in the scorer, not a bad reply; the items it hits fail, and "
        "their error column holds the traceback.",
        file=sys.stderr,
    )


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
                    usage=error.usage,
                    cost=error.cost,
                    attempts=error.attempts,
                )
            )
            raise
        self.calls.append(reply.call)
        return reply.value


class Scorer(abc.ABC):
    """A scorer: call :meth:`run` (or :meth:`arun`) on one item to get a :class:`ScoreResult`.

    Scoring never raises for a problem with the item itself: a missing field, a judge call
    that failed or a reply that never validated gives a result with a NaN score and an
    :class:`~evaltoolkit.StepError` naming the step. An unexpected exception (a bug in a
    scorer) also fails only its item, with the traceback in the error, and is reported once
    on stderr so that it is not mistaken for a bad reply.
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
    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        """Compute the score of one item, recording judge calls on ``trace``."""

    async def arun(
        self,
        *,
        input: Any = None,
        output: Any = None,
        ground_truth: Any = None,
        item_id: Any = None,
        run_id: str | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> ScoreResult:
        """Score one item (async twin of :meth:`run`)."""
        trace = StepTrace()
        started = time.perf_counter()
        item = Sample(
            input=input,
            output=output,
            ground_truth=ground_truth,
            item_id=item_id,
            fields=dict(fields or {}),
        )
        error: StepError | None = None
        scored: Score | None = None
        try:
            scored = await self._score(item, trace)
        except JudgeError as exc:
            error = StepError(
                step=exc.step,
                message=str(exc),
                kind=type(exc).__name__,
                raw_reply=exc.raw_reply,
                attempts=exc.attempts,
            )
        except InputError as exc:
            error = StepError(step="input", message=str(exc), kind=type(exc).__name__)
        except EvalToolkitError as exc:
            error = StepError(step=trace.step, message=str(exc), kind=type(exc).__name__)
        except Exception as exc:  # one bad item must never stop a run
            _report_bug_once(self.id, trace.step, exc)
            error = StepError(
                step=trace.step,
                message=f"{type(exc).__name__}: {exc}\n{''.join(traceback.format_exception(exc))}",
                kind=type(exc).__name__,
            )
        result = ScoreResult(
            scorer=self.id,
            score=math.nan if scored is None else scored.value,
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
        fields: Mapping[str, Any] | None = None,
    ) -> ScoreResult:
        """Score one item.

        Works in scripts and inside a running event loop (a Jupyter cell) alike.

        Args:
            input: The item's input: a string, a message list or ``{"inputMessages": [...]}``.
            output: The output to score: a string or a message list.
            ground_truth: The expected answer, for scorers that compare with one.
            item_id: The item's id, named in error messages.
            run_id: An id for this scoring run (a random one by default).
            fields: The item's other fields (a summarization scorer reads ``source``).

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
                fields=fields,
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
    explicit: Mapping[str, Any], options: Mapping[str, Any] | None, *, scorer: str
) -> dict[str, Any]:
    """Merge a reference-style ``options={...}`` dict into a factory's keyword arguments.

    The keyword arguments' names are the option names; ``options`` may spell them in
    snake_case or camelCase (``maxQuestions``), and its entries win.

    Raises:
        ConfigurationError: An unknown option name (with the closest valid one).

    Example:
        >>> merge_options({"max_questions": 10, "scale": 1.0}, {"maxQuestions": 5},
        ...               scorer="summarization")
        {'max_questions': 5, 'scale': 1.0}
    """
    resolved = resolve_names(options or {}, list(explicit), where=scorer)
    return {**explicit, **resolved}


def judge_for(
    model: Any, judge_options: Mapping[str, Any], *, scorer: str, scorer_options: Sequence[str]
) -> Judge:
    """The judge a factory's ``model`` and leftover keyword arguments describe.

    A name that is neither a judge option nor one of the scorer's own is an error naming the
    closest of either (``semantic_treshold`` -> ``semantic_threshold``).

    Raises:
        ConfigurationError: An unknown or out-of-range option.
    """
    known = set(judge_option_names())
    known |= {camel_case(name) for name in known}
    for name in judge_options:
        if name not in known:
            raise unknown_option_error(
                name, [*judge_option_names(), *scorer_options], where=scorer, hint=EXTRA_HINT
            )
    return create_judge(model, **judge_options)

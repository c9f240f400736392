"""The built-in judge (model name ``offline``): answers every scorer step from the texts alone.

It needs no API key and no network, is deterministic, and returns the same verdict
structures a model would, so results, DataFrames and widgets look the same. It reads the
request's ``variables`` and never its messages, so it ignores prompt templates.

The variables each step receives:

- summarization / ``source_judgement``: ``source``, ``summary``, ``max_questions``
- summarization / ``coverage``: ``summary``, ``questions``
- summarization / ``reason``: the keyword arguments of :func:`summarization_reason`
- answer-similarity / ``extract``: ``output``, ``ground_truth``, ``question``
- answer-similarity / ``analyze``: ``output_units``, ``ground_truth_units``, ``question``
- answer-similarity / ``reason``: the keyword arguments of :func:`answer_similarity_reason`
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import JudgeReplyError
from ..records import ModelCall
from ._types import JudgeReply, JudgeRequest, render_messages

__all__ = ["OFFLINE_MODEL", "OfflineJudge"]

OFFLINE_MODEL = "offline"

Handler = Callable[[Mapping[str, Any]], dict[str, Any]]


def _source_judgement(variables: Mapping[str, Any]) -> dict[str, Any]:
    from ..scorers._offline import judge_source

    return judge_source(
        str(variables["source"]), str(variables["summary"]), int(variables["max_questions"])
    )


def _coverage(variables: Mapping[str, Any]) -> dict[str, Any]:
    from ..scorers._offline import judge_coverage

    return judge_coverage(str(variables["summary"]), [str(q) for q in variables["questions"]])


def _extract(variables: Mapping[str, Any]) -> dict[str, Any]:
    from ..scorers._offline import extract_units

    return extract_units(
        str(variables["output"]), str(variables["ground_truth"]), variables.get("question")
    )


def _analyze(variables: Mapping[str, Any]) -> dict[str, Any]:
    from ..scorers._offline import analyze_units

    return analyze_units(
        [str(unit) for unit in variables["output_units"]],
        [str(unit) for unit in variables["ground_truth_units"]],
        question=variables.get("question"),
    )


def _summarization_reason(variables: Mapping[str, Any]) -> dict[str, Any]:
    from ..scorers._reasons import summarization_reason

    return {"reason": summarization_reason(**variables)}


def _answer_similarity_reason(variables: Mapping[str, Any]) -> dict[str, Any]:
    from ..scorers._reasons import answer_similarity_reason

    return {"reason": answer_similarity_reason(**variables)}


_HANDLERS: dict[tuple[str, str], Handler] = {
    ("summarization", "source_judgement"): _source_judgement,
    ("summarization", "coverage"): _coverage,
    ("summarization", "reason"): _summarization_reason,
    ("answer-similarity", "extract"): _extract,
    ("answer-similarity", "analyze"): _analyze,
    ("answer-similarity", "reason"): _answer_similarity_reason,
}


class OfflineJudge:
    """The built-in judge: deterministic verdicts from the texts, no model, no network.

    Example:
        >>> judge = OfflineJudge()
        >>> judge.model, judge.offline
        ('offline', True)
    """

    @property
    def model(self) -> str:
        """Always ``"offline"``."""
        return OFFLINE_MODEL

    @property
    def offline(self) -> bool:
        """Always True: this judge ignores prompt templates."""
        return True

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one step from its variables."""
        handler = _HANDLERS.get((request.task, request.step))
        if handler is None:
            raise JudgeReplyError(
                f"the offline judge cannot answer step {request.step!r} of task "
                f"{request.task!r}; use a model judge for custom steps",
                step=request.step,
            )
        started = time.perf_counter()
        value = handler(request.variables)
        call = ModelCall(
            step=request.step,
            stage=request.stage,
            model=OFFLINE_MODEL,
            prompt=render_messages(request.messages),
            raw_reply=json.dumps(value, ensure_ascii=False),
            usage=None,
            cost=0.0,
            latency_s=time.perf_counter() - started,
        )
        return JudgeReply(value=value, call=call)

    def __repr__(self) -> str:
        return "OfflineJudge()"

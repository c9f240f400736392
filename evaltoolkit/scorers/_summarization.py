"""Summarization: a judge checks a summary for alignment and coverage; the lower axis wins.

1. Source judgement (one call, sees source and summary): the summary's atomic claims, each
   ``{claim, supported, reason}``, and at most ``max_questions`` closed questions drawn from the
   source, each answerable "yes" from it.
2. Coverage (one call that never receives the source): each question answered from the
   summary alone, ``{question, answered, reason}``.
3. Score: alignment = supported / claims; coverage = answered / questions asked (a question
   without a verdict counts as not answered, extra verdicts are dropped); score =
   min(alignment, coverage) x scale; no claims or no questions gives 0. Then a reason naming
   the deciding axis, written by the judge or, with ``reason="template"``, without a call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ..errors import ConfigurationError, InputError
from ..judge import Judge, create_judge
from ..messages import input_text, output_text
from ._base import Scored, ScoringItem, StepTrace, check_scale, merge_options
from ._judged import JudgedScorer, align_entries, numbered, verdict_lines
from ._reasons import summarization_reason
from ._summarization_prompts import (
    COVERAGE_SCHEMA,
    PROMPTS,
    REASON_SCHEMA,
    SOURCE_JUDGEMENT_SCHEMA,
)

__all__ = ["SummarizationScorer", "create_summarization_scorer"]

SourceExtractor = Callable[[Any, Any], str]
ReasonMode = Literal["model", "template"]

_NO_VERDICT = "no verdict was returned for this question, so it counts as not answered"


def align_verdicts(
    questions: Sequence[str], verdicts: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One verdict per question; a question without one counts as not answered."""
    return [
        {"question": question, "answered": False, "reason": _NO_VERDICT}
        if verdict is None
        else {
            "question": question,
            "answered": bool(verdict.get("answered")),
            "reason": str(verdict.get("reason", "")),
        }
        for question, verdict in zip(
            questions, align_entries(questions, verdicts, "question"), strict=True
        )
    ]


def deciding_axis(alignment: float, coverage: float) -> str:
    """The axis that decides ``min(alignment, coverage)``: the lower one, or ``"tie"``."""
    if alignment < coverage:
        return "alignment"
    if coverage < alignment:
        return "coverage"
    return "tie"


class SummarizationScorer(JudgedScorer):
    """Scores a summary by the lower of its alignment and coverage (see the module docstring)."""

    id = "summarization"
    task = "summarization"
    description = "min(alignment, coverage) of a summary against its source"
    default_prompts = PROMPTS

    def __init__(
        self,
        *,
        judge: Judge,
        source: str | None = None,
        source_extractor: SourceExtractor | None = None,
        max_questions: int = 10,
        scale: float = 1.0,
        reason: ReasonMode = "model",
        prompts: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(judge=judge, prompts=prompts)
        if isinstance(max_questions, bool) or not isinstance(max_questions, int):
            raise ConfigurationError(
                f"summarization: max_questions must be an integer >= 1, got {max_questions!r}"
            )
        if max_questions < 1:
            raise ConfigurationError(
                f"summarization: max_questions must be at least 1, got {max_questions}; "
                "coverage needs at least one question"
            )
        if source is not None and not isinstance(source, str):
            raise ConfigurationError(
                f"summarization: source must be a string, got {type(source).__name__}"
            )
        if source_extractor is not None and not callable(source_extractor):
            raise ConfigurationError("summarization: source_extractor must be callable")
        if reason not in ("model", "template"):
            raise ConfigurationError(
                f"summarization: reason must be 'model' or 'template', got {reason!r}"
            )
        self.source = source
        self.source_extractor = source_extractor
        self.max_questions = max_questions
        self.scale = check_scale(scale)
        self.reason_mode: ReasonMode = reason

    def _source_text(self, item: ScoringItem) -> str:
        if self.source_extractor is not None:
            try:
                extracted = self.source_extractor(item.input, item.output)
            except Exception as error:
                raise InputError(
                    f"source_extractor raised {type(error).__name__}: {error}",
                    field="source",
                    item_id=item.item_id,
                ) from error
            if not isinstance(extracted, str):
                raise InputError(
                    f"source_extractor returned {type(extracted).__name__}, not a string",
                    field="source",
                    item_id=item.item_id,
                )
            text = extracted
        elif self.source is not None:
            text = self.source
        else:
            text = input_text(item.input, field="input", item_id=item.item_id)
        if not text.strip():
            raise InputError(
                "the source text is empty; give the document as the input's first user "
                "message, or pass source= or source_extractor=",
                field="source",
                item_id=item.item_id,
            )
        return text

    async def _score(self, item: ScoringItem, trace: StepTrace) -> Scored:
        summary = output_text(item.output, field="output", item_id=item.item_id)
        source = self._source_text(item)

        judgement = await self.ask(
            trace,
            step="source_judgement",
            stage="preprocess",
            schema=SOURCE_JUDGEMENT_SCHEMA,
            prompt_values={
                "source": source,
                "summary": summary,
                "max_questions": self.max_questions,
            },
            variables={"source": source, "summary": summary, "max_questions": self.max_questions},
        )
        claims: list[dict[str, Any]] = [
            {
                "claim": str(claim.get("claim", "")),
                "supported": bool(claim.get("supported")),
                "reason": str(claim.get("reason", "")),
            }
            for claim in judgement["claims"]
        ]
        questions = [str(question) for question in judgement["questions"]][: self.max_questions]

        coverage: list[dict[str, Any]] = []
        if questions:
            reply = await self.ask(
                trace,
                step="coverage",
                stage="analyze",
                schema=COVERAGE_SCHEMA,
                prompt_values={"summary": summary, "questions": numbered(questions)},
                variables={"summary": summary, "questions": questions},
            )
            coverage = align_verdicts(questions, reply["verdicts"])

        supported = sum(1 for claim in claims if claim["supported"])
        answered = sum(1 for verdict in coverage if verdict["answered"])
        alignment_score = supported / len(claims) if claims else 0.0
        coverage_score = answered / len(questions) if questions else 0.0
        score = min(alignment_score, coverage_score) * self.scale
        decided_by = deciding_axis(alignment_score, coverage_score)

        reason_inputs: dict[str, Any] = {
            "score": score,
            "alignment_score": alignment_score,
            "coverage_score": coverage_score,
            "decided_by": decided_by,
            "claims": claims,
            "coverage": coverage,
            "questions": questions,
        }
        if self.reason_mode == "template":
            reason = summarization_reason(**reason_inputs)
        else:
            reason_reply = await self.ask(
                trace,
                step="reason",
                stage="reason",
                schema=REASON_SCHEMA,
                prompt_values={
                    "score": f"{score:.3g}",
                    "alignment_score": f"{alignment_score:.2f}",
                    "coverage_score": f"{coverage_score:.2f}",
                    "decided_by": decided_by,
                    "claims": verdict_lines(claims, "claim", "supported"),
                    "coverage": verdict_lines(coverage, "question", "answered"),
                },
                variables=reason_inputs,
            )
            reason = str(reason_reply["reason"])

        return Scored(
            score=score,
            reason=reason,
            preprocess_step_result={"alignment": claims, "questions": questions},
            analyze_step_result={"coverage": coverage},
            details={
                "alignment_score": alignment_score,
                "coverage_score": coverage_score,
                "decided_by": decided_by,
                "claims": len(claims),
                "unsupported_claims": len(claims) - supported,
                "questions": len(questions),
                "unanswered_questions": len(questions) - answered,
            },
        )


_OPTION_NAMES = {
    "source": "source",
    "sourceExtractor": "source_extractor",
    "source_extractor": "source_extractor",
    "maxQuestions": "max_questions",
    "max_questions": "max_questions",
    "scale": "scale",
    "reason": "reason",
    "prompts": "prompts",
}


def create_summarization_scorer(
    model: str | Judge | None = None,
    *,
    source: str | None = None,
    source_extractor: SourceExtractor | None = None,
    max_questions: int = 10,
    scale: float = 1.0,
    reason: ReasonMode = "model",
    prompts: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
    **judge_options: Any,
) -> SummarizationScorer:
    """Create the summarization scorer (id ``"summarization"``).

    Args:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``, or
            ``"openai/<name>"`` with ``api_base``), or None / ``"offline"`` for the built-in
            judge (no key, no network).
        source: The text to judge summaries against. By default, the first user message of
            each item's input.
        source_extractor: ``f(input, output) -> str`` returning the source; wins over
            ``source`` (see :func:`~evaltoolkit.extract_tool_results` for documents that came
            from a tool).
        max_questions: At most this many coverage questions per source (>= 1).
        scale: Multiplier of the final score.
        reason: ``"model"`` asks the judge to explain the score; ``"template"`` writes the
            explanation without a call (one call fewer per item).
        prompts: Replacement templates by name (``source_judgement``, ``coverage``,
            ``reason``, ``system``); see ``scorer.prompts`` for the ones in use.
        options: Reference-style options (``source``, ``sourceExtractor``, ``maxQuestions``,
            ``scale``); its entries win over the keyword arguments.
        **judge_options: Passed to the judge: ``api_base``, ``api_key``, ``temperature``
            (default 0), ``seed``, ``timeout``, ``max_retries``, ``concurrency``, ``cache``,
            and any other litellm keyword argument.

    Raises:
        ConfigurationError: ``max_questions`` < 1, a bad option, or a bad prompt override.

    Example:
        >>> scorer = create_summarization_scorer(reason="template")
        >>> result = scorer.run(
        ...     input="The company was founded in 1995 by John Smith in Seattle.",
        ...     output="John Smith founded the company in 1995.",
        ... )
        >>> result.details["alignment_score"]
        1.0
    """
    merged = merge_options(
        {
            "source": source,
            "source_extractor": source_extractor,
            "max_questions": max_questions,
            "scale": scale,
            "reason": reason,
            "prompts": prompts,
        },
        options,
        _OPTION_NAMES,
        scorer="summarization",
    )
    return SummarizationScorer(judge=create_judge(model, **judge_options), **merged)

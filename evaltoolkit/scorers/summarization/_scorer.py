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

Under the offline judge each claim and question verdict also names the rule that decided it
(``rule``: ``supported``, ``changed_number``, ``answered``, ``missing_words``, ...; see
``OFFLINE_RULES``); a model judge's verdicts carry none.

With ``questions="per_source"``, step 1 is split in two: the questions are drawn in a call
that sees the source alone (``source_questions``: the same request, so one cache key and one
call, for every summary of a source, and every summary asked the same questions), and the
claims in a call that sees source and summary (``claims``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ...errors import ConfigurationError, InputError
from ...judge import Judge, JudgeBackend, JudgeConfig
from ...records.messages import input_text
from .._base import check_scale, judge_for, merge_options
from .._judged import JudgedScorer, align_entries, verdict_lines
from .._prompts import json_object
from .._steps import (
    REASON_MAX_TOKENS,
    Sample,
    Score,
    Step,
    StepContext,
    approx_tokens,
    significant,
    two_decimals,
)
from ._offline import (
    check_rules,
    draw_source_questions,
    judge_claims,
    judge_coverage,
    judge_source,
)
from ._prompts import (
    CLAIMS,
    CLAIMS_SCHEMA,
    COVERAGE,
    COVERAGE_SCHEMA,
    REASON,
    REASON_SCHEMA,
    SOURCE_JUDGEMENT,
    SOURCE_JUDGEMENT_SCHEMA,
    SOURCE_QUESTIONS,
    SOURCE_QUESTIONS_SCHEMA,
    SYSTEM,
)
from ._reasons import summarization_reason
from ._settings import SummarizationOfflineSettings

__all__ = ["SummarizationScorer", "create_summarization_scorer", "deciding_axis"]

SourceExtractor = Callable[[Any, Any], str]
ReasonMode = Literal["model", "template"]
QuestionsMode = Literal["per_summary", "per_source"]
QUESTIONS_MODES: tuple[QuestionsMode, ...] = ("per_summary", "per_source")

_NO_VERDICT = "no verdict was returned for this question, so it counts as not answered"


def _with_rule(verdict: Mapping[str, Any], shown: dict[str, Any]) -> dict[str, Any]:
    """A verdict as the results show it, with the offline rule that decided it, if any."""
    return {**shown, "rule": str(verdict["rule"])} if "rule" in verdict else shown


def align_verdicts(
    questions: Sequence[str], verdicts: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One verdict per question; a question without one counts as not answered."""
    return [
        {"question": question, "answered": False, "reason": _NO_VERDICT}
        if verdict is None
        else _with_rule(
            verdict,
            {
                "question": question,
                "answered": bool(verdict.get("answered")),
                "reason": str(verdict.get("reason", "")),
            },
        )
        for question, verdict in zip(
            questions, align_entries(questions, verdicts, "question"), strict=True
        )
    ]


def deciding_axis(alignment: float, coverage: float) -> str:
    """The axis that decides ``min(alignment, coverage)``: the lower one, or ``"tie"``.

    Example:
        >>> deciding_axis(0.9, 0.5), deciding_axis(0.5, 0.5)
        ('coverage', 'tie')
    """
    if alignment < coverage:
        return "alignment"
    if coverage < alignment:
        return "coverage"
    return "tie"


def _questions(context: StepContext) -> list[str]:
    if "source_questions" in context.replies:
        drawn = context.replies["source_questions"]["questions"]
    else:
        drawn = context.replies["source_judgement"]["questions"]
    return [str(question) for question in drawn][: int(context.values["max_questions"])]


def _coverage_inputs(context: StepContext) -> dict[str, Any] | None:
    questions = _questions(context)
    if not questions:
        return None  # nothing to ask: coverage is 0 without a call
    return {"summary": context.values["summary"], "questions": questions}


def _source_judgement_budget(inputs: Mapping[str, Any]) -> int:
    """The claims restate the summary, each with a one-sentence reason (about one claim per
    dozen tokens of summary: three times the summary's tokens); then at most
    ``max_questions`` questions."""
    return 96 + 4 * approx_tokens(inputs["summary"]) + 32 * int(inputs["max_questions"])


def _questions_budget(inputs: Mapping[str, Any]) -> int:
    """At most ``max_questions`` closed questions (``questions="per_source"``)."""
    return 64 + 32 * int(inputs["max_questions"])


def _claims_budget(inputs: Mapping[str, Any]) -> int:
    """The claims alone (``questions="per_source"``), sized as in the source judgement."""
    return 96 + 4 * approx_tokens(inputs["summary"])


def _coverage_budget(inputs: Mapping[str, Any]) -> int:
    """One verdict per question: the question repeated, a flag and a one-sentence reason."""
    return 64 + sum(approx_tokens(question) + 64 for question in inputs["questions"])


def _reason_inputs(context: StepContext) -> dict[str, Any]:
    score = context.score
    assert score is not None and score.preprocess_step_result is not None
    assert score.analyze_step_result is not None
    return {
        "score": score.value,
        "alignment_score": score.details["alignment_score"],
        "coverage_score": score.details["coverage_score"],
        "decided_by": score.details["decided_by"],
        "claims": score.preprocess_step_result["alignment"],
        "coverage": score.analyze_step_result["coverage"],
    }


def _offline_reason(**inputs: Any) -> dict[str, str]:
    return {"reason": summarization_reason(**inputs)}


def _template_reason(context: StepContext) -> str:
    return summarization_reason(**_reason_inputs(context))


#: Step 1, sees source and summary: claim verdicts, and questions drawn from the source.
SOURCE_JUDGEMENT_STEP = Step(
    name="source_judgement",
    prompt=SOURCE_JUDGEMENT,
    schema=SOURCE_JUDGEMENT_SCHEMA,
    max_tokens=_source_judgement_budget,
    description="step 1, sees source and summary: claim verdicts and questions from the source",
)
#: With questions="per_source", step 1a, sees the source alone: the questions.
SOURCE_QUESTIONS_STEP = Step(
    name="source_questions",
    prompt=SOURCE_QUESTIONS,
    schema=SOURCE_QUESTIONS_SCHEMA,
    max_tokens=_questions_budget,
    description="step 1a, sees the source alone: closed questions drawn once per source",
)
#: With questions="per_source", step 1b, sees source and summary: the claim verdicts.
CLAIMS_STEP = Step(
    name="claims",
    prompt=CLAIMS,
    schema=CLAIMS_SCHEMA,
    max_tokens=_claims_budget,
    description="step 1b, sees source and summary: claim verdicts only",
)
#: Step 2, never sees the source: each question answered from the summary alone.
COVERAGE_STEP = Step(
    name="coverage",
    prompt=COVERAGE,
    schema=COVERAGE_SCHEMA,
    inputs=_coverage_inputs,
    max_tokens=_coverage_budget,
    description="step 2, never sees the source: each question answered from the summary alone",
)
#: Step 3: the explanation naming the deciding axis.
REASON_STEP = Step(
    name="reason",
    prompt=REASON,
    schema=REASON_SCHEMA,
    offline=_offline_reason,
    inputs=_reason_inputs,
    formats={
        "score": significant,
        "alignment_score": two_decimals,
        "coverage_score": two_decimals,
        "claims": functools.partial(verdict_lines, text_key="claim", flag_key="supported"),
        "coverage": functools.partial(verdict_lines, text_key="question", flag_key="answered"),
    },
    max_tokens=REASON_MAX_TOKENS,
    description="step 3: the explanation naming the deciding axis",
)


OfflineSettings = Mapping[str, Any] | SummarizationOfflineSettings | None


def _naming_rules(schema: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A reply schema whose ``key`` entries also name the offline rule that decided each."""
    items = schema["properties"][key]["items"]
    entries = {
        **schema["properties"][key],
        "items": json_object({**items["properties"], "rule": {"type": "string"}}),
    }
    return {**schema, "properties": {**schema["properties"], key: entries}}


def _model_steps(questions: QuestionsMode) -> tuple[Step, ...]:
    first = (
        (SOURCE_JUDGEMENT_STEP,)
        if questions == "per_summary"
        else (SOURCE_QUESTIONS_STEP, CLAIMS_STEP)
    )
    return (*first, COVERAGE_STEP)


def _offline_steps(
    settings: SummarizationOfflineSettings, questions: QuestionsMode
) -> tuple[Step, ...]:
    """The judge steps as the offline judge answers them, with ``settings``; their replies
    also name each verdict's rule (a model's schema asks for none)."""
    first: tuple[Step, ...] = (
        (
            dataclasses.replace(
                SOURCE_JUDGEMENT_STEP,
                schema=_naming_rules(SOURCE_JUDGEMENT_SCHEMA, "claims"),
                offline=functools.partial(judge_source, settings=settings),
            ),
        )
        if questions == "per_summary"
        else (
            dataclasses.replace(
                SOURCE_QUESTIONS_STEP,
                offline=functools.partial(draw_source_questions, settings=settings),
            ),
            dataclasses.replace(
                CLAIMS_STEP,
                schema=_naming_rules(CLAIMS_SCHEMA, "claims"),
                offline=functools.partial(judge_claims, settings=settings),
            ),
        )
    )
    coverage = dataclasses.replace(
        COVERAGE_STEP,
        schema=_naming_rules(COVERAGE_SCHEMA, "verdicts"),
        offline=functools.partial(judge_coverage, settings=settings),
    )
    return (*first, coverage)


_DEFAULT_OFFLINE_STEPS = {
    mode: _offline_steps(SummarizationOfflineSettings(), mode) for mode in QUESTIONS_MODES
}


def _steps_with(
    settings: SummarizationOfflineSettings, offline: bool, questions: QuestionsMode
) -> tuple[Step, ...]:
    """The judge steps: a model's, or the offline judge's with ``settings``."""
    if not offline:
        return _model_steps(questions)
    if settings == SummarizationOfflineSettings():
        return _DEFAULT_OFFLINE_STEPS[questions]
    return _offline_steps(settings, questions)


class SummarizationScorer(JudgedScorer):
    """Scores a summary by the lower of its alignment and coverage (see the module docstring)."""

    prepared_values = frozenset({"source", "summary", "max_questions"})

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
        offline_settings: OfflineSettings = None,
        questions: QuestionsMode = "per_summary",
    ) -> None:
        if questions not in QUESTIONS_MODES:
            raise ConfigurationError(
                f"summarization: questions must be 'per_summary' or 'per_source', got {questions!r}"
            )
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
        if offline_settings is not None and not judge.offline:
            raise ConfigurationError(
                "summarization: offline_settings tune the offline judge, but this scorer's "
                f"judge is {judge.model!r}; drop them, or use the offline judge (model=None)"
            )
        self.source = source
        self.source_extractor = source_extractor
        self.max_questions = max_questions
        self.scale = check_scale(scale)
        self.reason_mode: ReasonMode = reason
        self.questions_mode: QuestionsMode = questions
        self.offline_settings = check_rules(
            SummarizationOfflineSettings.from_mapping(offline_settings)
        )
        super().__init__(
            id="summarization",
            steps=_steps_with(self.offline_settings, judge.offline, questions),
            score=self.score_replies,
            judge=judge,
            reason=REASON_STEP if reason == "model" else _template_reason,
            prompts=prompts,
            system=SYSTEM,
            description="min(alignment, coverage) of a summary against its source",
        )

    @property
    def offline_setting_specs(self) -> tuple[Any, ...]:
        """The offline judge's settings: name, type, default, range and description of each."""
        return SummarizationOfflineSettings.specs()

    def with_offline_settings(
        self, settings: Mapping[str, Any] | SummarizationOfflineSettings
    ) -> SummarizationScorer:
        """A copy of this scorer whose offline judge uses other settings (the rest kept).

        Raises:
            ConfigurationError: An unknown setting or a value out of its range, or a scorer
                judged by a model.

        Example:
            >>> scorer = create_summarization_scorer()
            >>> strict = scorer.with_offline_settings({"claim_support": 1.0})
            >>> strict.offline_settings.claim_support, scorer.offline_settings.claim_support
            (1.0, 0.9)
        """
        if not self.judge.offline:
            raise ConfigurationError(
                f"summarization: offline settings tune the offline judge; this scorer's judge "
                f"is {self.judge.model!r}"
            )
        merged = check_rules(self.offline_settings.updated(settings))
        clone = copy.copy(self)
        clone.offline_settings = merged
        clone.steps = _steps_with(merged, True, self.questions_mode)
        return clone

    def _source_text(self, item: Sample) -> str:
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
        elif item.fields.get("source") is not None:
            given = item.fields["source"]
            if not isinstance(given, str):
                raise InputError(
                    f"field 'source' is {type(given).__name__}, not a string",
                    field="source",
                    item_id=item.item_id,
                )
            text = given
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

    def prepare(self, sample: Sample) -> dict[str, Any]:
        """The summary, the source it is judged against, and the question budget."""
        summary = sample.output_text
        return {
            "source": self._source_text(sample),
            "summary": summary,
            "max_questions": self.max_questions,
        }

    def score_replies(self, context: StepContext) -> Score:
        """Alignment and coverage from the two steps' replies; the lower one, scaled."""
        claims: list[dict[str, Any]] = [
            _with_rule(
                claim,
                {
                    "claim": str(claim.get("claim", "")),
                    "supported": bool(claim.get("supported")),
                    "reason": str(claim.get("reason", "")),
                },
            )
            for claim in context.replies[
                "claims" if "claims" in context.replies else "source_judgement"
            ]["claims"]
        ]
        questions = _questions(context)
        verdicts = context.replies.get("coverage", {}).get("verdicts", [])
        coverage = align_verdicts(questions, verdicts) if questions else []
        supported = sum(1 for claim in claims if claim["supported"])
        answered = sum(1 for verdict in coverage if verdict["answered"])
        alignment_score = supported / len(claims) if claims else 0.0
        coverage_score = answered / len(questions) if questions else 0.0
        return Score(
            value=min(alignment_score, coverage_score) * self.scale,
            preprocess_step_result={"alignment": claims, "questions": questions},
            analyze_step_result={"coverage": coverage},
            details={
                "alignment_score": alignment_score,
                "coverage_score": coverage_score,
                "decided_by": deciding_axis(alignment_score, coverage_score),
                "claims": len(claims),
                "unsupported_claims": len(claims) - supported,
                "questions": len(questions),
                "unanswered_questions": len(questions) - answered,
                "source": context.values["source"],
            },
        )


def create_summarization_scorer(
    model: str | Judge | JudgeBackend | JudgeConfig | None = None,
    *,
    source: str | None = None,
    source_extractor: SourceExtractor | None = None,
    max_questions: int = 10,
    scale: float = 1.0,
    reason: ReasonMode = "model",
    prompts: Mapping[str, str] | None = None,
    offline_settings: OfflineSettings = None,
    questions: QuestionsMode = "per_summary",
    options: Mapping[str, Any] | None = None,
    **judge_options: Any,
) -> SummarizationScorer:
    """Create the summarization scorer (id ``"summarization"``).

    Args:
        model: A litellm model string (``"openai/gpt-4o-mini"``, ``"ollama/llama3"``, or
            ``"openai/<name>"`` with ``api_base``), a :class:`~evaltoolkit.JudgeConfig`, a
            judge or judge backend (see :mod:`evaltoolkit.judge`), or None / ``"offline"``
            for the built-in judge (no key, no network).
        source: The text to judge summaries against. By default, each item's ``source``
            field when it has one, else the first user message of its input.
        source_extractor: ``f(input, output) -> str`` returning the source; wins over an
            item's ``source`` field and over ``source`` (see
            :func:`~evaltoolkit.extract_tool_results` for documents that came from a tool).
        max_questions: At most this many coverage questions per source (>= 1).
        scale: Multiplier of the final score.
        reason: ``"model"`` asks the judge to explain the score; ``"template"`` writes the
            explanation without a call (one call fewer per item).
        prompts: Replacement templates by name (``source_judgement``, ``coverage``,
            ``reason``, ``system``); see ``scorer.prompts`` for the ones in use.
        offline_settings: Settings of the offline judge, by name (``claim_support``,
            ``answer_share``, ...; see :class:`~evaltoolkit.SummarizationOfflineSettings` for
            each one's range), and ``disabled_rules``, rules switched off by name; only with
            the offline judge.
        questions: ``"per_summary"`` (the reference): the questions are drawn in the call
            that judges the summary's claims, so each summary gets its own. ``"per_source"``:
            they are drawn once per source, in a call that sees the source alone (its
            request, so its cache entry, is the same for every summary of that source), and
            every summary of a source is asked the same questions; the claims call then
            asks for claims only. Comparable coverage across systems, and one question call
            per source instead of one per summary. Prompts: ``source_questions`` and
            ``claims`` replace ``source_judgement``.
        options: Reference-style options (``source``, ``sourceExtractor``, ``maxQuestions``,
            ``scale``); its entries win over the keyword arguments.
        **judge_options: Judge options (see :class:`~evaltoolkit.JudgeConfig`): ``api_base``,
            ``api_key``, ``temperature`` (default 0), ``max_tokens``, ``timeout``,
            ``max_retries``, ``concurrency``, ``cache``, ``structured_output``, ``extra``.

    Raises:
        ConfigurationError: ``max_questions`` < 1, an unknown option (the message names the
            closest valid one), or a bad prompt override.

    Example:
        >>> scorer = create_summarization_scorer(reason="template")
        >>> result = scorer.run(
        ...     input="John Smith founded the company in Seattle in 1995. It makes bicycles.",
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
            "offline_settings": offline_settings,
            "questions": questions,
        },
        options,
        scorer="summarization",
    )
    judge = judge_for(model, judge_options, scorer="summarization", scorer_options=list(merged))
    return SummarizationScorer(judge=judge, **merged)

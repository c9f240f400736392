"""Answer similarity: a judge compares an answer with its ground truth, unit by unit.

1. Extract: the semantic units of the output and of the ground truth.
2. Analyze: each ground-truth unit is matched ``exact``, ``semantic``, ``partial`` or
   ``missing``; contradictions and extra information in the output are listed.
3. Score: exact adds 1 + exact_match_bonus, semantic adds semantic_threshold, partial adds
   semantic_threshold / 2, missing subtracts missing_penalty; the sum is divided by
   units x (1 + exact_match_bonus); then contradictions x contradiction_penalty and
   min(extra x extra_info_penalty, 0.2) are subtracted; the result is clamped to [0, 1] and
   multiplied by scale. Then a reason.

Without a ground truth the item fails with a clear error, or scores 0 when created with
``require_ground_truth=False``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigurationError, InputError
from ...judge import Judge, JudgeBackend, JudgeConfig
from .._base import check_scale, judge_for, merge_options
from .._judged import JudgedScorer, align_entries
from .._steps import (
    REASON_MAX_TOKENS,
    Sample,
    Score,
    Step,
    StepContext,
    approx_tokens,
    json_lines,
    significant,
)
from ._offline import analyze_units, extract_units
from ._prompts import (
    ANALYZE,
    ANALYZE_SCHEMA,
    EXTRACT,
    EXTRACT_SCHEMA,
    REASON,
    REASON_SCHEMA,
    SYSTEM,
)
from ._reasons import answer_similarity_reason
from ._settings import AnswerSimilarityOfflineSettings

__all__ = [
    "ANSWER_THRESHOLD",
    "AnswerSimilarityScorer",
    "SimilarityWeights",
    "create_answer_similarity_scorer",
]

#: The most that extra information can take off the score.
EXTRA_INFO_CAP = 0.2

#: The score at or above which an answer counts as correct. With the default weights a single
#: unit matched at least in meaning scores 0.8 / 1.2 - 0.2 = 0.47 or more even with the most
#: extra information, and one matched only in part scores at most 0.4 / 1.2 = 0.33.
ANSWER_THRESHOLD = 0.4

_NO_MATCH = "no match was returned for this unit, so it counts as missing"
_NO_GROUND_TRUTH = "The score is 0: no ground truth was given to compare the answer with."


@dataclass(frozen=True, slots=True)
class SimilarityWeights:
    """The weights of the answer-similarity formula (see the module docstring)."""

    semantic_threshold: float = 0.8
    exact_match_bonus: float = 0.2
    missing_penalty: float = 0.15
    contradiction_penalty: float = 1.0
    extra_info_penalty: float = 0.05

    def score(
        self, match_types: Sequence[str], contradictions: int, extra_info: int
    ) -> tuple[float, float]:
        """Return (base similarity, final score before scaling) for the given analysis."""
        if not match_types:
            return 0.0, 0.0
        credit = {
            "exact": 1 + self.exact_match_bonus,
            "semantic": self.semantic_threshold,
            "partial": self.semantic_threshold / 2,
            "missing": -self.missing_penalty,
        }
        base = sum(credit[kind] for kind in match_types) / (
            len(match_types) * (1 + self.exact_match_bonus)
        )
        penalised = (
            base
            - contradictions * self.contradiction_penalty
            - min(extra_info * self.extra_info_penalty, EXTRA_INFO_CAP)
        )
        return base, min(1.0, max(0.0, penalised))


def align_matches(
    ground_truth_units: Sequence[str], matches: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One match per ground-truth unit; a unit without one counts as missing."""
    aligned: list[dict[str, Any]] = []
    for unit, match in zip(
        ground_truth_units,
        align_entries(ground_truth_units, matches, "ground_truth_unit"),
        strict=True,
    ):
        if match is None:
            aligned.append(
                {
                    "ground_truth_unit": unit,
                    "output_unit": None,
                    "match_type": "missing",
                    "explanation": _NO_MATCH,
                }
            )
            continue
        output_unit = match.get("output_unit")
        aligned.append(
            {
                "ground_truth_unit": unit,
                "output_unit": None if output_unit is None else str(output_unit),
                "match_type": str(match.get("match_type", "missing")),
                "explanation": str(match.get("explanation", "")),
            }
        )
    return aligned


def _extract_inputs(context: StepContext) -> dict[str, Any] | None:
    if context.values["ground_truth"] is None:
        return None
    return {name: context.values[name] for name in ("question", "output", "ground_truth")}


def _analyze_inputs(context: StepContext) -> dict[str, Any] | None:
    units = context.replies.get("extract")
    if units is None:
        return None
    return {
        "question": context.values["question"],
        "ground_truth_units": [str(unit) for unit in units["ground_truth_units"]],
        "output_units": [str(unit) for unit in units["output_units"]],
    }


def _extract_budget(inputs: Mapping[str, Any]) -> int:
    """The units quote the answer and the ground truth: room for both texts, twice over."""
    return 64 + 2 * (approx_tokens(inputs["output"]) + approx_tokens(inputs["ground_truth"]))


def _analyze_budget(inputs: Mapping[str, Any]) -> int:
    """One match per ground-truth unit (the unit, its counterpart, a type and a short
    explanation), and room to list each answer unit as a contradiction or extra information."""
    matches = sum(2 * approx_tokens(unit) + 80 for unit in inputs["ground_truth_units"])
    others = sum(approx_tokens(unit) + 16 for unit in inputs["output_units"])
    return 64 + matches + others


def _reason_inputs(context: StepContext) -> dict[str, Any] | None:
    score = context.score
    if score is None or score.analyze_step_result is None:
        return None  # no ground truth: the score function wrote the reason
    return {"score": score.value, **score.analyze_step_result}


def _offline_reason(**inputs: Any) -> dict[str, str]:
    return {"reason": answer_similarity_reason(**inputs)}


#: Step 1: the semantic units of the answer and of the ground truth.
EXTRACT_STEP = Step(
    name="extract",
    prompt=EXTRACT,
    schema=EXTRACT_SCHEMA,
    offline=extract_units,
    inputs=_extract_inputs,
    max_tokens=_extract_budget,
    description="step 1: the semantic units of the answer and of the ground truth",
)
#: Step 2: each ground-truth unit matched; contradictions and extra information listed.
ANALYZE_STEP = Step(
    name="analyze",
    prompt=ANALYZE,
    schema=ANALYZE_SCHEMA,
    offline=analyze_units,
    inputs=_analyze_inputs,
    max_tokens=_analyze_budget,
    description="step 2: each ground-truth unit matched exact, semantic, partial or missing",
)
#: Step 3: the explanation of the score.
REASON_STEP = Step(
    name="reason",
    prompt=REASON,
    schema=REASON_SCHEMA,
    offline=_offline_reason,
    inputs=_reason_inputs,
    formats={
        "score": significant,
        "matches": json_lines,
        "contradictions": json_lines,
        "extra_info": json_lines,
    },
    max_tokens=REASON_MAX_TOKENS,
    description="step 3: the explanation of the score",
)


OfflineSettings = Mapping[str, Any] | AnswerSimilarityOfflineSettings | None


def _steps_with(settings: AnswerSimilarityOfflineSettings) -> tuple[Step, Step]:
    """The two judge steps, the analysis answered offline with ``settings``."""
    if settings == AnswerSimilarityOfflineSettings():
        return EXTRACT_STEP, ANALYZE_STEP
    offline = functools.partial(analyze_units, settings=settings)
    return EXTRACT_STEP, dataclasses.replace(ANALYZE_STEP, offline=offline)


class AnswerSimilarityScorer(JudgedScorer):
    """Scores an answer against its ground truth (see the module docstring)."""

    prepared_values = frozenset({"output", "ground_truth", "question"})

    def __init__(
        self,
        *,
        judge: Judge,
        require_ground_truth: bool = True,
        weights: SimilarityWeights = SimilarityWeights(),
        scale: float = 1.0,
        prompts: Mapping[str, str] | None = None,
        offline_settings: OfflineSettings = None,
    ) -> None:
        if offline_settings is not None and not judge.offline:
            raise ConfigurationError(
                "answer-similarity: offline_settings tune the offline judge, but this scorer's "
                f"judge is {judge.model!r}; drop them, or use the offline judge (model=None)"
            )
        self.require_ground_truth = bool(require_ground_truth)
        self.weights = weights
        self.scale = check_scale(scale)
        self.offline_settings = AnswerSimilarityOfflineSettings.from_mapping(offline_settings)
        super().__init__(
            id="answer-similarity",
            steps=_steps_with(self.offline_settings),
            score=self.score_replies,
            judge=judge,
            reason=REASON_STEP,
            prompts=prompts,
            system=SYSTEM,
            description="semantic-unit match of an answer with its ground truth",
        )

    @property
    def offline_setting_specs(self) -> tuple[Any, ...]:
        """The offline judge's thresholds: name, type, default, range and description."""
        return AnswerSimilarityOfflineSettings.specs()

    def with_offline_settings(
        self, settings: Mapping[str, Any] | AnswerSimilarityOfflineSettings
    ) -> AnswerSimilarityScorer:
        """A copy of this scorer whose offline judge uses other thresholds (the rest kept).

        Raises:
            ConfigurationError: An unknown setting or a value out of its range, or a scorer
                judged by a model.

        Example:
            >>> strict = create_answer_similarity_scorer().with_offline_settings(
            ...     {"semantic_fuzz": 95})
            >>> strict.offline_settings.semantic_fuzz
            95.0
        """
        if not self.judge.offline:
            raise ConfigurationError(
                "answer-similarity: offline settings tune the offline judge; this scorer's "
                f"judge is {self.judge.model!r}"
            )
        merged = self.offline_settings.updated(settings)
        clone = copy.copy(self)
        clone.offline_settings = merged
        clone.steps = _steps_with(merged)
        return clone

    def prepare(self, sample: Sample) -> dict[str, Any]:
        """The answer, the ground truth and the question (the input, when given).

        Raises:
            InputError: The ground truth is missing and required, or a field is ill-typed.
        """
        output = sample.output_text
        ground_truth = sample.ground_truth_text
        if ground_truth is None and self.require_ground_truth:
            raise InputError(
                "field 'ground_truth' is missing or empty; the answer-similarity scorer "
                "compares with one (give ground_truth, or create the scorer with "
                "require_ground_truth=False to score such items 0)",
                field="ground_truth",
                item_id=sample.item_id,
            )
        return {"output": output, "ground_truth": ground_truth, "question": sample.input_text}

    def score_replies(self, context: StepContext) -> Score:
        """The formula over the analysis: credit per ground-truth unit, penalties, scale."""
        if "analyze" not in context.replies:
            return Score(0.0, reason=_NO_GROUND_TRUTH, details={"ground_truth_units": 0})
        units = context.replies["extract"]
        analysis = context.replies["analyze"]
        output_units = [str(unit) for unit in units["output_units"]]
        truth_units = [str(unit) for unit in units["ground_truth_units"]]
        matches = align_matches(truth_units, analysis["matches"])
        contradictions = [dict(item) for item in analysis["contradictions"]]
        extra_info = [str(text) for text in analysis["extra_info"]]
        base, unscaled = self.weights.score(
            [match["match_type"] for match in matches], len(contradictions), len(extra_info)
        )
        counts = dict.fromkeys(("exact", "semantic", "partial", "missing"), 0)
        for match in matches:
            counts[match["match_type"]] = counts.get(match["match_type"], 0) + 1
        return Score(
            value=unscaled * self.scale,
            preprocess_step_result={
                "output_units": output_units,
                "ground_truth_units": truth_units,
            },
            analyze_step_result={
                "matches": matches,
                "contradictions": contradictions,
                "extra_info": extra_info,
            },
            details={
                "base_similarity": base,
                "ground_truth_units": len(truth_units),
                **{f"{kind}_matches": count for kind, count in counts.items()},
                "contradictions": len(contradictions),
                "extra_info": len(extra_info),
            },
        )


def _check_weight(name: str, value: Any, *, at_most_one: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigurationError(f"answer-similarity: {name} must be a number, got {value!r}")
    if value < 0 or (at_most_one and value > 1):
        bounds = "between 0 and 1" if at_most_one else "at least 0"
        raise ConfigurationError(f"answer-similarity: {name} must be {bounds}, got {value!r}")
    return float(value)


def create_answer_similarity_scorer(
    model: str | Judge | JudgeBackend | JudgeConfig | None = None,
    *,
    require_ground_truth: bool = True,
    semantic_threshold: float = 0.8,
    exact_match_bonus: float = 0.2,
    missing_penalty: float = 0.15,
    contradiction_penalty: float = 1.0,
    extra_info_penalty: float = 0.05,
    scale: float = 1.0,
    prompts: Mapping[str, str] | None = None,
    offline_settings: OfflineSettings = None,
    options: Mapping[str, Any] | None = None,
    **judge_options: Any,
) -> AnswerSimilarityScorer:
    """Create the answer-similarity scorer (id ``"answer-similarity"``).

    Args:
        model: A litellm model string, a judge or judge backend (see
            :mod:`evaltoolkit.judge`), or None / ``"offline"`` for the built-in judge.
        require_ground_truth: Fail items without a ground truth (else they score 0).
        semantic_threshold: Credit of a semantic match relative to an exact one (0-1).
        exact_match_bonus: Extra credit of an exact match (0-1).
        missing_penalty: Subtracted per missing ground-truth unit.
        contradiction_penalty: Subtracted per contradiction (1 sends a wrong answer to 0).
        extra_info_penalty: Subtracted per unit of extra information, at most 0.2 in all.
        scale: Multiplier of the final score.
        prompts: Replacement templates by name (``extract``, ``analyze``, ``reason``,
            ``system``).
        offline_settings: Thresholds of the offline judge, by name (``semantic_fuzz``,
            ``partial_coverage``, ...; see :class:`~evaltoolkit.AnswerSimilarityOfflineSettings`
            for each one's range); only with the offline judge.
        options: Reference-style options (``requireGroundTruth``, ``semanticThreshold``, ...);
            its entries win over the keyword arguments.
        **judge_options: Judge options (see :class:`~evaltoolkit.JudgeConfig`): ``api_base``,
            ``api_key``, ``temperature``, ``max_tokens``, ``timeout``, ``max_retries``,
            ``concurrency``, ``cache``, ``structured_output``, ``extra``.

    Raises:
        ConfigurationError: A weight out of range, an unknown option (the message names the
            closest valid one), or a bad prompt.

    Example:
        >>> scorer = create_answer_similarity_scorer()
        >>> scorer.run(input="What is 2+2?", output="four", ground_truth="4").score
        1.0
    """
    merged = merge_options(
        {
            "require_ground_truth": require_ground_truth,
            "semantic_threshold": semantic_threshold,
            "exact_match_bonus": exact_match_bonus,
            "missing_penalty": missing_penalty,
            "contradiction_penalty": contradiction_penalty,
            "extra_info_penalty": extra_info_penalty,
            "scale": scale,
            "prompts": prompts,
            "offline_settings": offline_settings,
        },
        options,
        scorer="answer-similarity",
    )
    judge = judge_for(model, judge_options, scorer="answer-similarity", scorer_options=list(merged))
    weights = SimilarityWeights(
        semantic_threshold=_check_weight(
            "semantic_threshold", merged.pop("semantic_threshold"), at_most_one=True
        ),
        exact_match_bonus=_check_weight(
            "exact_match_bonus", merged.pop("exact_match_bonus"), at_most_one=True
        ),
        missing_penalty=_check_weight(
            "missing_penalty", merged.pop("missing_penalty"), at_most_one=False
        ),
        contradiction_penalty=_check_weight(
            "contradiction_penalty", merged.pop("contradiction_penalty"), at_most_one=False
        ),
        extra_info_penalty=_check_weight(
            "extra_info_penalty", merged.pop("extra_info_penalty"), at_most_one=False
        ),
    )
    return AnswerSimilarityScorer(judge=judge, weights=weights, **merged)

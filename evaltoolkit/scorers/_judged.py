"""Judged scorers: a list of steps plus a score function, answered by any judge.

:class:`JudgedScorer` runs the pipeline: for each :class:`~evaltoolkit.scorers.Step` in order
it gathers the step's inputs (or skips the step), renders the step's template, asks the judge
and keeps the validated reply; then the score function turns the replies into a score, and the
reason (a judge step or a function) explains it. The built-in summarization and
answer-similarity scorers are declared this way, and :func:`create_judged_scorer` builds a
custom one from the same public parts.
"""

from __future__ import annotations

import collections
import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from ..errors import ConfigurationError
from ..judge import Judge, JudgeBackend, JudgeConfig, JudgeRequest, create_judge
from ..judge._internal import current_repeat
from ..records._internal import Stage
from ._base import Scorer, StepTrace
from ._prompts import PromptSet, PromptTemplate
from ._steps import Sample, Score, Step, StepContext, as_score, format_value, numbered

_UNKNOWN: Final = object()

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "JudgedScorer",
    "PlannedCall",
    "align_entries",
    "create_judged_scorer",
    "json_text",
    "numbered",
    "verdict_lines",
]

# How close (rapidfuzz ratio, 0-100) a judge's rewording of a question or unit must be to it.
_REWORDED_SIMILARITY = 70
_ITEM_TEXTS: Final = frozenset({"input", "output", "ground_truth"})

DEFAULT_SYSTEM_PROMPT = """\
You are a careful, literal evaluator. Judge only from the texts you are given, never from \
outside knowledge, and answer with one JSON object matching the requested schema."""

ScoreFunction = Callable[[StepContext], "Score | float"]
ReasonFunction = Callable[[StepContext], str]
#: Looks a request up in the judge cache without sending it: the reply, or None.
CacheLookup = Callable[[JudgeRequest], Mapping[str, Any] | None]


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """A judge call an item will make, as far as it is known before the run.

    Attributes:
        request: The request. When ``exact``, the one that will be sent; else its prompt
            holds only what is known before the run (the item's texts), without the earlier
            replies it will quote.
        exact: Whether the prompt is known in full.
        cached: Whether the judge cache already holds the reply (no request will be made).
        fed_by: When not exact, the earlier steps whose replies the prompt will quote.
    """

    request: JudgeRequest
    exact: bool
    cached: bool = False
    fed_by: tuple[str, ...] = ()


class JudgedScorer(Scorer):
    """A scorer whose steps are answered by a judge (a model, or the offline judge).

    Subclasses may override :meth:`prepare` (the values every step can use, computed once
    per item) and then name those values in :attr:`prepared_values`.

    Args:
        id: The scorer's id, the key of its results.
        steps: The judge steps, in order.
        score: ``f(context) -> Score | float`` computing the score from the replies.
        judge: The judge answering every step.
        reason: A reason :class:`Step` (its reply has a ``reason`` string), a function
            ``f(context) -> str`` (``context.score`` is set), or None for no reason.
        prompts: Replacement templates by name (a step's name, ``reason``, ``system``).
        system: The system message of every call.
        description: What the scorer measures, in one line.

    Raises:
        ConfigurationError: Two steps share a name, a step uses an input nothing provides,
            or the judge is the offline judge and a step has no offline function.
    """

    #: The names :meth:`prepare` provides.
    prepared_values: ClassVar[frozenset[str]] = _ITEM_TEXTS
    #: The offline judge's settings, None when the scorer's offline answers take none.
    offline_settings: Any = None

    def __init__(
        self,
        *,
        id: str,
        steps: Sequence[Step],
        score: ScoreFunction,
        judge: Judge,
        reason: Step | ReasonFunction | None = None,
        prompts: Mapping[str, str] | None = None,
        system: str = DEFAULT_SYSTEM_PROMPT,
        description: str = "",
    ) -> None:
        if not isinstance(id, str) or not id.strip():
            raise ConfigurationError(f"a scorer id must be a non-empty string, got {id!r}")
        self.id = id
        self.description = description
        self.steps = tuple(steps)
        self.score_function = score
        self.reason = reason
        self.judge = judge
        self._check_parts()
        self.default_prompts = self._templates(system)
        self._prompts = PromptSet(self.default_prompts, prompts, scorer=self.id)

    def _judge_steps(self) -> list[Step]:
        return [*self.steps, *([self.reason] if isinstance(self.reason, Step) else [])]

    def _check_parts(self) -> None:
        if not self.steps:
            raise ConfigurationError(f"{self.id}: a judged scorer needs at least one step")
        if not callable(self.score_function):
            raise ConfigurationError(f"{self.id}: score must be a function of the context")
        if self.reason is not None and not (isinstance(self.reason, Step) or callable(self.reason)):
            raise ConfigurationError(f"{self.id}: reason must be a Step, a function or None")
        names = [step.name for step in self._judge_steps()]
        for step in self._judge_steps():
            if not isinstance(step, Step):
                raise ConfigurationError(f"{self.id}: steps must be Step objects, got {step!r}")
            if names.count(step.name) > 1:
                raise ConfigurationError(f"{self.id}: two steps are named {step.name!r}")
        for position, step in enumerate(self.steps):
            known = self.prepared_values | set(names[:position])
            unknown = sorted(step.placeholders - known)
            if step.inputs is None and unknown:
                raise ConfigurationError(
                    f"{self.id}: step {step.name!r} uses {', '.join(unknown)}, which neither the "
                    f"item ({', '.join(sorted(self.prepared_values))}) nor an earlier step "
                    "provides; give the step inputs=..."
                )
        if self.judge.offline:
            unanswerable = [step.name for step in self._judge_steps() if step.offline is None]
            if unanswerable:
                raise ConfigurationError(
                    f"{self.id}: the offline judge cannot answer step(s) "
                    f"{', '.join(unanswerable)}, which have no offline function; give each "
                    "step offline=... or use a model judge (model='provider/name')"
                )

    def _templates(self, system: str) -> dict[str, PromptTemplate]:
        templates = {"system": PromptTemplate("system", system, frozenset(), "system message")}
        templates.update({step.name: step.template() for step in self._judge_steps()})
        return templates

    @property
    def judge_model(self) -> str:
        """The judge model's name (``"offline"`` for the built-in judge)."""
        return self.judge.model

    @property
    def prompts(self) -> PromptSet:
        """The prompt templates in use, by name (``scorer.prompts["coverage"]``)."""
        return self._prompts

    def with_prompts(self, prompts: Mapping[str, str]) -> JudgedScorer:
        """Return a copy of this scorer with some templates replaced (same judge).

        Raises:
            ConfigurationError: An unknown template name, or a missing or unknown placeholder.
        """
        clone = copy.copy(self)
        clone._prompts = PromptSet(
            self.default_prompts, {**self._prompts.changed, **prompts}, scorer=self.id
        )
        return clone

    @property
    def offline_setting_specs(self) -> tuple[Any, ...]:
        """The settings its offline judge takes (name, type, default, range, description).

        Empty for a scorer whose offline answers take none.
        """
        return ()

    def with_offline_settings(self, settings: Mapping[str, Any]) -> JudgedScorer:
        """A copy whose offline judge uses other settings.

        Raises:
            ConfigurationError: This scorer's offline answers take no settings.
        """
        raise ConfigurationError(f"{self.id}: its offline judge takes no settings")

    def prepare(self, sample: Sample) -> dict[str, Any]:
        """The values every step of an item may use: the item's texts, by default.

        Raises:
            InputError: A text field is missing or of the wrong type.
        """
        return {
            "input": sample.input_text,
            "output": sample.output_text,
            "ground_truth": sample.ground_truth_text,
        }

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        values = self.prepare(item)
        replies: dict[str, Mapping[str, Any]] = {}
        for position, step in enumerate(self.steps):
            inputs = step.inputs_for(StepContext(item, values, replies))
            if inputs is None:
                continue
            stage: Stage = "preprocess" if position == 0 else "analyze"
            replies[step.name] = await self.ask(trace, step, stage, inputs)
        trace.step = "score"
        score = as_score(self.score_function(StepContext(item, values, replies)), scorer=self.id)
        if score.preprocess_step_result is None and score.analyze_step_result is None:
            first = self.steps[0].name
            score.preprocess_step_result = {first: replies[first]} if first in replies else None
            later = {name: reply for name, reply in replies.items() if name != first}
            score.analyze_step_result = later or None
        scored_context = StepContext(item, values, replies, score)
        if isinstance(self.reason, Step):
            inputs = self.reason.inputs_for(scored_context)
            if inputs is not None:
                reply = await self.ask(trace, self.reason, "reason", inputs)
                score.reason = str(reply.get("reason", ""))
        elif self.reason is not None:
            trace.step = "reason"
            score.reason = str(self.reason(scored_context))
        return score

    async def ask(
        self, trace: StepTrace, step: Step, stage: Stage, inputs: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Render the step's template, send it to the judge and return the reply object."""
        trace.step = step.name
        return await trace.ask(self.judge, self._request(step, stage, inputs))

    def _request(
        self, step: Step, stage: Stage, inputs: Mapping[str, Any], prompt: str | None = None
    ) -> JudgeRequest:
        # The system message first, then the step's prompt: what calls about one source share
        # comes first, so a provider's prompt cache can reuse it.
        messages = (
            {"role": "system", "content": self._prompts.render("system")},
            {
                "role": "user",
                "content": prompt
                if prompt is not None
                else step.render(self._prompts.template(step.name), inputs),
            },
        )
        return JudgeRequest(
            step=step.name,
            stage=stage,
            messages=messages,
            schema=step.schema,
            inputs=inputs,
            offline=None if step.offline is None else _OfflineCall(step),
            # A prompt given whole is a plan's, for inputs not known yet: a budget sized from
            # them is unknown too, and the judge's schema-sized budget bounds the reply.
            max_tokens=step.budget(inputs)
            if prompt is None or not callable(step.max_tokens)
            else None,
            repeat=current_repeat(),
        )

    def plan(self, sample: Sample, lookup: CacheLookup | None = None) -> list[PlannedCall]:
        """The judge calls scoring ``sample`` will make, without making any.

        A step whose inputs are known before the run (the first step's, always) is planned
        exactly; a later one whose prompt quotes earlier replies is planned with the part of
        its prompt known now, naming the steps that feed it. With ``lookup`` (the judge
        cache), a cached reply is used to plan the steps after it exactly.

        Raises:
            InputError: The item lacks a text the scorer needs.
        """
        values = self.prepare(sample)
        replies: dict[str, Mapping[str, Any]] = {}
        planned: list[PlannedCall] = []
        for position, step in enumerate(self._judge_steps()):
            is_reason = step is self.reason
            stage: Stage = "reason" if is_reason else "preprocess" if position == 0 else "analyze"
            inputs = self._known_inputs(step, sample, values, replies, is_reason)
            if inputs is _UNKNOWN:
                planned.append(
                    PlannedCall(
                        self._request(step, stage, {}, self._partial_prompt(step, values)),
                        exact=False,
                        fed_by=tuple(call.request.step for call in planned if not call.cached),
                    )
                )
                continue
            if inputs is None:
                continue  # the step is skipped for this item
            assert isinstance(inputs, Mapping)
            request = self._request(step, stage, inputs)
            cached = None if lookup is None else lookup(request)
            if cached is not None:
                replies[step.name] = cached
            planned.append(PlannedCall(request, exact=True, cached=cached is not None))
        return planned

    def _known_inputs(
        self,
        step: Step,
        sample: Sample,
        values: Mapping[str, Any],
        replies: Mapping[str, Mapping[str, Any]],
        is_reason: bool,
    ) -> Mapping[str, Any] | object | None:
        """The step's inputs when they are known before the run, else ``_UNKNOWN``."""
        try:
            score = None
            if is_reason:
                score = as_score(
                    self.score_function(StepContext(sample, values, replies)), scorer=self.id
                )
            return step.inputs_for(StepContext(sample, values, replies, score))
        except Exception:  # the inputs quote a reply not known yet
            return _UNKNOWN

    def _partial_prompt(self, step: Step, values: Mapping[str, Any]) -> str:
        template = self._prompts.template(step.name)
        texts = {
            name: step.formats.get(name, format_value)(values[name]) if name in values else ""
            for name in template.placeholders
        }
        return template.render(**texts)


class _OfflineCall:
    """Calls a step's offline function with the request's inputs as keyword arguments."""

    __slots__ = ("step",)

    def __init__(self, step: Step) -> None:
        self.step = step

    def __call__(self, **inputs: Any) -> Mapping[str, Any]:
        return self.step.answer_offline(inputs)


def create_judged_scorer(
    *,
    id: str,
    steps: Sequence[Step],
    score: ScoreFunction,
    reason: Step | ReasonFunction | None = None,
    model: str | Judge | JudgeBackend | JudgeConfig | None = None,
    prompts: Mapping[str, str] | None = None,
    system: str = DEFAULT_SYSTEM_PROMPT,
    description: str = "",
    **judge_options: Any,
) -> JudgedScorer:
    """Build your own judged scorer from steps, a score function and a reason.

    It runs under ``run_evals``, caches and retries judge calls, records each step's reply,
    prompt and raw model reply, shows in the ResultBrowser, and takes ``with_prompts`` in the
    PromptTuner, like the built-in scorers.

    Args:
        id: The scorer's id, the key of its results.
        steps: The judge steps, in order (see :class:`~evaltoolkit.Step`).
        score: ``f(context) -> float | Score``; ``context.replies[step_name]`` is each step's
            validated reply, ``context.sample`` the item.
        reason: A reason :class:`~evaltoolkit.Step` whose reply has a ``reason`` string (its
            template may use ``{{score}}``, the score's details and the steps' replies), a
            function ``f(context) -> str``, or None.
        model: A litellm model string, a :class:`~evaltoolkit.JudgeConfig`, a judge, a judge
            backend (wrapped in the judge services, see :mod:`evaltoolkit.judge`), or None /
            ``"offline"`` for the offline judge (every step then needs ``offline=``).
        prompts: Replacement templates by name.
        system: The system message of every call.
        description: What the scorer measures, in one line.
        **judge_options: Judge options (``api_base``, ``temperature``, ``cache``, ...).

    Raises:
        ConfigurationError: A bad step, an unknown judge option, or a step without an offline
            function under the offline judge.

    Example:
        >>> import evaltoolkit as et
        >>> cites = et.Step(
        ...     name="cites",
        ...     prompt="Does the ANSWER cite a source? ANSWER: {{output}} "
        ...            'Reply with JSON: {"cites": true}',
        ...     schema={"type": "object", "properties": {"cites": {"type": "boolean"}},
        ...             "required": ["cites"], "additionalProperties": False},
        ...     offline=lambda output: {"cites": "according to" in output.lower()},
        ... )
        >>> scorer = et.create_judged_scorer(
        ...     id="cites-source", steps=[cites],
        ...     score=lambda context: 1.0 if context.replies["cites"]["cites"] else 0.0)
        >>> scorer.run(input="Q?", output="According to the 2020 census, 8 million.").score
        1.0
    """
    judge = create_judge(model, **judge_options)
    return JudgedScorer(
        id=id,
        steps=steps,
        score=score,
        judge=judge,
        reason=reason,
        prompts=prompts,
        system=system,
        description=description,
    )


def verdict_lines(verdicts: Sequence[Mapping[str, Any]], text_key: str, flag_key: str) -> str:
    """Render verdicts as ``- [yes] text (reason)`` lines for a reason prompt."""
    return (
        "\n".join(
            f"- [{'yes' if verdict.get(flag_key) else 'no'}] {verdict.get(text_key)} "
            f"({verdict.get('reason', '')})"
            for verdict in verdicts
        )
        or "(none)"
    )


def json_text(value: Any) -> str:
    """Compact JSON for embedding structured values in a prompt."""
    return json.dumps(value, ensure_ascii=False)


def _normalised(text: Any) -> str:
    return str(default_process(str(text)))


def align_entries(
    keys: Sequence[str], entries: Sequence[Mapping[str, Any]], key_field: str
) -> list[Mapping[str, Any] | None]:
    """Pair each key (a question, a ground-truth unit) with the judge's entry for it.

    An entry whose ``key_field`` repeats the key (case, spacing and punctuation aside) is its
    match. A key left over takes the entry at its own position if that entry leaves
    ``key_field`` empty or words it closely (a model may reword slightly), else the closest
    close rewording among the entries left. A key without an entry gets None; entries left
    over are dropped.
    """
    entry_texts = [_normalised(entry.get(key_field, "")) for entry in entries]
    key_texts = [_normalised(key) for key in keys]
    found: list[int | None] = [None] * len(keys)
    used: set[int] = set()
    # Exact repeats first, each key taking the earliest entry of its text left: linear, since
    # the offline judge repeats every key and a long answer has thousands.
    by_text: dict[str, collections.deque[int]] = collections.defaultdict(collections.deque)
    for entry_position, entry_text in enumerate(entry_texts):
        by_text[entry_text].append(entry_position)
    for key_position, key_text in enumerate(key_texts):
        waiting = by_text.get(key_text)
        if waiting:
            chosen = waiting.popleft()
            found[key_position] = chosen
            used.add(chosen)

    def close(entry_position: int, key_text: str) -> float:
        entry_text = entry_texts[entry_position]
        return 100.0 if not entry_text else float(fuzz.ratio(entry_text, key_text))

    for key_position, key_text in enumerate(key_texts):
        if found[key_position] is not None:
            continue
        free = [position for position in range(len(entries)) if position not in used]
        if key_position in free and close(key_position, key_text) >= _REWORDED_SIMILARITY:
            choice: int | None = key_position
        else:
            scored = [(close(position, key_text), -position) for position in free]
            best = max(scored, default=(0.0, 0))
            choice = -best[1] if best[0] >= _REWORDED_SIMILARITY else None
        if choice is not None:
            found[key_position] = choice
            used.add(choice)
    return [None if position is None else entries[position] for position in found]

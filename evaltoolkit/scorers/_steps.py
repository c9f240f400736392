"""The parts a judged scorer is built from: samples, steps, their context, and scores.

A judged scorer is a list of :class:`Step` objects plus a score function (and an optional
reason). Each step names a prompt template, the JSON schema of its reply, and optionally an
``offline`` function that answers it from the same typed inputs the template receives, so the
offline judge can answer it with no model. Inputs are rendered into the template as text by
:func:`format_value` (or a step's own ``formats``); the offline function gets them as they
are.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import ConfigurationError
from ..records.messages import input_text, output_text
from ._prompts import PromptTemplate, placeholders_of

__all__ = [
    "REASON_MAX_TOKENS",
    "Budget",
    "Formatter",
    "Sample",
    "Score",
    "Step",
    "StepContext",
    "approx_tokens",
    "format_value",
    "json_lines",
    "numbered",
    "significant",
    "two_decimals",
]

Formatter = Callable[[Any], str]
StepInputs = Callable[["StepContext"], Mapping[str, Any] | None]
#: A step's completion budget sized from its inputs: ``f(inputs) -> max_tokens``.
Budget = Callable[[Mapping[str, Any]], int]
#: The budget of a reason step's reply: two to four sentences in a JSON object.
REASON_MAX_TOKENS: Final = 200

_STEP_NAME: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED_STEP_NAMES: Final = frozenset({"system"})


@dataclass(frozen=True, slots=True)
class Sample:
    """One data item as a scorer sees it.

    Attributes:
        input: The item's input: a string, a message list or ``{"inputMessages": [...]}``.
        output: The output to score: a string or a message list.
        ground_truth: The expected answer, None when the item has none.
        item_id: The item's id, named in error messages.
        fields: The item's other fields (``source``, labels, metadata), as given.

    Example:
        >>> Sample(input="Q?", output=[{"role": "assistant", "content": "A."}]).output_text
        'A.'
    """

    input: Any
    output: Any
    ground_truth: Any = None
    item_id: Any = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    @property
    def input_text(self) -> str | None:
        """The input's text (its first user message), None when there is no input.

        Raises:
            InputError: The input is of a type that holds no text.
        """
        if self.input is None:
            return None
        return input_text(self.input, field="input", item_id=self.item_id)

    @property
    def output_text(self) -> str:
        """The output's text (its last assistant message with text).

        Raises:
            InputError: The output is missing or holds no text.
        """
        return output_text(self.output, field="output", item_id=self.item_id)

    @property
    def ground_truth_text(self) -> str | None:
        """The ground truth's text, None when the item has none or it is blank."""
        if self.ground_truth is None:
            return None
        text = output_text(self.ground_truth, field="ground_truth", item_id=self.item_id)
        return text if text.strip() else None


@dataclass(slots=True)
class Score:
    """What a score function returns: the score, and what explains it.

    Attributes:
        value: The score.
        details: Derived figures, one column each in the results (axis scores, counts, ...).
        reason: An explanation, when the score function writes one itself.
        preprocess_step_result: What the first step produced, as shown in the results.
        analyze_step_result: What the later steps produced, as shown in the results.

    Example:
        >>> Score(0.5, details={"supported": 1, "claims": 2}).value
        0.5
    """

    value: float
    details: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    preprocess_step_result: dict[str, Any] | None = None
    analyze_step_result: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class StepContext:
    """What a step's ``inputs``, a score function and a reason function are given.

    Attributes:
        sample: The item being scored.
        values: Values the scorer prepared once per item (``input``, ``output`` and
            ``ground_truth`` texts for a custom scorer; ``source`` and ``summary`` for the
            summarization scorer, ...).
        replies: The validated reply of each step answered so far, by step name.
        score: The score, for the reason step; None before scoring.
    """

    sample: Sample
    values: Mapping[str, Any]
    replies: Mapping[str, Mapping[str, Any]]
    score: Score | None = None

    def available(self) -> dict[str, Any]:
        """Everything a template may use by name: values, replies, and the score's figures."""
        names: dict[str, Any] = {**self.values, **self.replies}
        if self.score is not None:
            names.update(self.score.details)
            names["score"] = self.score.value
        return names


def numbered(texts: Sequence[Any]) -> str:
    """Texts as a numbered list, one per line; ``(none)`` for an empty list.

    Example:
        >>> print(numbered(["Is it red?", "Is it round?"]))
        1. Is it red?
        2. Is it round?
    """
    if not texts:
        return "(none)"
    return "\n".join(f"{position}. {text}" for position, text in enumerate(texts, start=1))


def json_lines(values: Sequence[Any]) -> str:
    """Values as ``- {json}`` lines; ``(none)`` for an empty list.

    Example:
        >>> json_lines([{"unit": "Paris"}])
        '- {"unit": "Paris"}'
    """
    return "\n".join(f"- {json.dumps(value, ensure_ascii=False)}" for value in values) or "(none)"


def significant(value: float) -> str:
    """A score written with three significant digits.

    Example:
        >>> significant(0.6666666)
        '0.667'
    """
    return f"{value:.3g}"


def two_decimals(value: float) -> str:
    """A share written with two decimals.

    Example:
        >>> two_decimals(0.5)
        '0.50'
    """
    return f"{value:.2f}"


def approx_tokens(text: object) -> int:
    """A generous count of the tokens ``text`` takes (3 characters a token, where English
    averages about 4), for completion budgets that must not cut a good reply short.

    Example:
        >>> approx_tokens("The Eiffel Tower is in Paris.")
        10
    """
    return len(str(text)) // 3 + 1


def format_value(value: Any) -> str:
    """How an input is written into a prompt by default.

    Text as it is; None as ``(not given)``; a list of texts as a numbered list; other lists and
    mappings as JSON; numbers as they print.

    Example:
        >>> format_value(None), format_value(["a", "b"]), format_value({"x": 1})
        ('(not given)', '1. a\\n2. b', '{"x": 1}')
    """
    if value is None:
        return "(not given)"
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return numbered(value)
    if isinstance(value, list | tuple | Mapping):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _accepted_keywords(function: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword names ``function`` takes, or None when it takes any (``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return None
    return frozenset(
        parameter.name
        for parameter in parameters
        if parameter.kind
        in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )


@dataclass(frozen=True)
class Step:
    """One judge step: a prompt, the JSON schema of its reply, and how to answer it offline.

    Args:
        name: The step's name (letters, digits, underscores): the key of its reply and of its
            prompt in ``scorer.prompts``.
        prompt: The prompt template; ``{{name}}`` placeholders are filled with the step's
            inputs, written as text by :func:`format_value` or ``formats``.
        schema: The JSON schema of the reply object.
        offline: Answers the step without a model: called with the step's inputs as keyword
            arguments (only those its signature names, unless it takes ``**kwargs``), returns
            the reply object. Needed to run under the offline judge.
        inputs: ``f(context) -> dict`` of the step's inputs, or None to skip the step; by
            default, the template's placeholders taken from the item's texts (``input``,
            ``output``, ``ground_truth``) and the replies of earlier steps (by step name).
        formats: How to write particular inputs into the prompt, by name.
        description: What the step is for, shown by prompt-tuning views.
        max_tokens: The step's completion budget: a number, ``f(inputs) -> int`` to size it
            from the reply the inputs call for (the units or questions an earlier step
            gave), or None to size it from the schema. A judge's own ``max_tokens`` wins.

    Example:
        >>> step = Step(
        ...     name="cites",
        ...     prompt="Does this answer cite a source? {{output}}",
        ...     schema={"type": "object", "properties": {"cites": {"type": "boolean"}},
        ...             "required": ["cites"]},
        ...     offline=lambda output: {"cites": "http" in output},
        ... )
        >>> step.placeholders
        frozenset({'output'})
        >>> step.answer_offline({"output": "see https://example.org", "input": "q"})
        {'cites': True}
    """

    name: str
    prompt: str
    schema: Mapping[str, Any]
    offline: Callable[..., Mapping[str, Any]] | None = None
    inputs: StepInputs | None = None
    formats: Mapping[str, Formatter] = field(default_factory=dict)
    description: str = ""
    max_tokens: int | Budget | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _STEP_NAME.match(self.name):
            raise ConfigurationError(
                f"step name must be letters, digits and underscores, got {self.name!r}"
            )
        if self.name in _RESERVED_STEP_NAMES:
            raise ConfigurationError(f"step name {self.name!r} is reserved; choose another")
        if not isinstance(self.prompt, str) or not self.prompt.strip():
            raise ConfigurationError(f"step {self.name!r}: prompt must be a non-empty string")
        if not isinstance(self.schema, Mapping) or self.schema.get("type") != "object":
            raise ConfigurationError(
                f"step {self.name!r}: schema must be a JSON schema of an object "
                '({"type": "object", "properties": {...}})'
            )
        for name, value in (("offline", self.offline), ("inputs", self.inputs)):
            if value is not None and not callable(value):
                raise ConfigurationError(f"step {self.name!r}: {name} must be callable")
        if self.max_tokens is not None and not callable(self.max_tokens):
            self._check_budget(self.max_tokens)

    def _check_budget(self, budget: object) -> int:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ConfigurationError(
                f"step {self.name!r}: max_tokens must be an integer >= 1 or a function of the "
                f"step's inputs returning one, got {budget!r}"
            )
        return budget

    def budget(self, inputs: Mapping[str, Any]) -> int | None:
        """The completion budget for these inputs; None leaves it to the judge (the schema).

        Raises:
            ConfigurationError: A budget function returned something other than an integer >= 1.
        """
        if self.max_tokens is None:
            return None
        if callable(self.max_tokens):
            return self._check_budget(self.max_tokens(inputs))
        return self.max_tokens

    @property
    def placeholders(self) -> frozenset[str]:
        """The input names the prompt template uses."""
        return placeholders_of(self.prompt)

    def template(self) -> PromptTemplate:
        """The step's prompt as a named template (its placeholders are required)."""
        return PromptTemplate(self.name, self.prompt, self.placeholders, self.description)

    def inputs_for(self, context: StepContext) -> dict[str, Any] | None:
        """The step's inputs in ``context``, or None when the step is to be skipped.

        Raises:
            ConfigurationError: A placeholder that neither ``inputs`` nor the context provides.
        """
        if self.inputs is not None:
            given = self.inputs(context)
            return None if given is None else dict(given)
        available = context.available()
        missing = sorted(self.placeholders - set(available))
        if missing:
            raise ConfigurationError(
                f"step {self.name!r}: the prompt uses {', '.join(missing)}, which neither the "
                f"item nor an earlier step provides (available: {', '.join(sorted(available))}); "
                "give the step inputs=..."
            )
        return {name: available[name] for name in self.placeholders}

    def render(self, template: PromptTemplate, inputs: Mapping[str, Any]) -> str:
        """Fill ``template`` (this step's, or a replacement) with ``inputs`` written as text.

        Raises:
            ConfigurationError: The template uses a name the inputs lack.
        """
        missing = sorted(template.placeholders - set(inputs))
        if missing:
            raise ConfigurationError(
                f"step {self.name!r}: the prompt uses {', '.join(missing)}, but the step's "
                f"inputs are {', '.join(sorted(inputs)) or '(none)'}"
            )
        texts = {
            name: self.formats.get(name, format_value)(inputs[name])
            for name in template.placeholders
        }
        return template.render(**texts)

    def answer_offline(self, inputs: Mapping[str, Any]) -> Mapping[str, Any]:
        """Call the offline function with the inputs its signature takes.

        Raises:
            ConfigurationError: The step has no offline function.
        """
        if self.offline is None:
            raise ConfigurationError(f"step {self.name!r} has no offline function")
        accepted = _accepted_keywords(self.offline)
        given = (
            dict(inputs)
            if accepted is None
            else {name: value for name, value in inputs.items() if name in accepted}
        )
        return self.offline(**given)


def as_score(outcome: object, *, scorer: str) -> Score:
    """A score function's result as a :class:`Score`: a number becomes ``Score(value)``.

    Raises:
        TypeError: The result is neither a number nor a Score.
    """
    if isinstance(outcome, Score):
        return outcome
    if isinstance(outcome, bool) or not isinstance(outcome, int | float):
        raise TypeError(
            f"{scorer}: the score function returned {type(outcome).__name__}; return a number "
            "or a Score"
        )
    value = float(outcome)
    if math.isnan(value):
        raise TypeError(f"{scorer}: the score function returned NaN; return a number")
    return Score(value)

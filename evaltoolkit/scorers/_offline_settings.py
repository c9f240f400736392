"""What the offline judges' settings and rules share: settings named, typed, documented and checked.

Each scorer's folder declares its settings on :class:`OfflineSettings`:
``SummarizationOfflineSettings`` (``summarization/_settings.py``) holds every constant of the
offline summarization judge that was chosen by measuring it against human labels; everything
else in the judge is a rule with no tuned number. ``AnswerSimilarityOfflineSettings``
(``answer_similarity/_settings.py``) does the same for the offline answer-similarity judge's
thresholds. Each setting has a valid range, checked on construction, and a description;
``specs()`` lists them (for sliders or a table).

The rules are named (:class:`OfflineRule`; the tables are ``CLAIM_RULES`` in
``summarization/_claims.py`` and ``QUESTION_RULES`` in ``summarization/_questions.py``): each
verdict names the rule that decided it, and ``disabled_rules`` switches rules off by name, to
measure what each one contributes. The judges
pick their rules from a table by name and kind (:func:`rule_named`, :func:`rules_of_kind`),
never by position, so a new row changes only what its own name and kind say.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field, fields
from typing import Any, Generic, Literal, NamedTuple, Self, TypeVar, cast

from ..errors import ConfigurationError

__all__ = [
    "OfflineRule",
    "OfflineSettings",
    "RuleKind",
    "SettingSpec",
    "rule_named",
    "rules_of_kind",
    "setting",
]

#: What part a rule plays in its verdict. ``default``: the verdict given when no check
#: decides (no check; cannot be switched off). ``precondition``: the verdict given before any
#: check runs, when there is nothing to check against (no check; cannot be switched off).
#: ``contradiction``: a claim check; all run, in table order, and the first that finds a
#: problem names the verdict. ``weak_support``: a claim check consulted, in table order, only
#: when nothing contradicts a claim and its evidence states less than ``claim_support`` of it.
#: ``missing``: a question check; the first, in table order, that finds the fact missing
#: names the verdict.
RuleKind = Literal["default", "precondition", "contradiction", "weak_support", "missing"]

CheckT = TypeVar("CheckT", bound=Callable[..., object], covariant=True)


class OfflineRule(NamedTuple, Generic[CheckT]):
    """One named rule of the offline summarization judge, as its verdicts name it.

    Generic in the type of its check: the claim and question tables each type theirs.

    Attributes:
        name: The name a verdict's ``rule`` field gives.
        verdicts: Which verdicts it decides: ``"claim"`` (step 1) or ``"question"`` (step 2).
        outcome: The verdict it gives: True (supported, answered) or False.
        purpose: What it checks, in one line.
        check: The function that applies it, named after the rule; None for a verdict given
            without a check (kinds ``default`` and ``precondition``), which cannot be
            switched off.
        kind: The part it plays in its verdict (see :data:`RuleKind`); the judges select
            rules by kind and name, never by position.
    """

    name: str
    verdicts: Literal["claim", "question"]
    outcome: bool
    purpose: str
    check: CheckT | None
    kind: RuleKind


#: A rule of any table (claim or question checks), for the selection helpers below.
RuleT = TypeVar("RuleT", bound="OfflineRule[Callable[..., object]]")


def rule_named(rules: Sequence[RuleT], name: str) -> RuleT:
    """The rule of a table with this name.

    Args:
        rules: A rule table.
        name: The rule's name.

    Returns:
        The rule.

    Raises:
        KeyError: No rule of the table has this name.

    Example:
        >>> table = (OfflineRule("kept", "claim", True, "keeps it", None, "default"),)
        >>> rule_named(table, "kept").outcome
        True
    """
    for rule in rules:
        if rule.name == name:
            return rule
    raise KeyError(f"no offline rule named {name!r} among {[rule.name for rule in rules]}")


def rules_of_kind(rules: Sequence[RuleT], kind: RuleKind) -> tuple[RuleT, ...]:
    """The rules of a table of one kind, in table order.

    Args:
        rules: A rule table.
        kind: The kind wanted.

    Returns:
        Its rules of that kind (none when it has none).

    Example:
        >>> table = (
        ...     OfflineRule("kept", "claim", True, "keeps it", None, "default"),
        ...     OfflineRule("gone", "claim", False, "drops it", len, "contradiction"),
        ... )
        >>> [rule.name for rule in rules_of_kind(table, "contradiction")]
        ['gone']
    """
    return tuple(rule for rule in rules if rule.kind == kind)


class SettingSpec(NamedTuple):
    """One setting: its name, type, default, valid range (inclusive) and what it does."""

    name: str
    type: type
    default: float
    minimum: float
    maximum: float
    description: str


def setting(default: float, minimum: float, maximum: float, description: str) -> Any:
    return field(
        default=default,
        metadata={"minimum": minimum, "maximum": maximum, "description": description},
    )


class OfflineSettings:
    """What both settings classes share: range checks, :meth:`specs` and :meth:`from_mapping`."""

    def __post_init__(self) -> None:
        rules: Any = getattr(self, "disabled_rules", ())
        collection = isinstance(rules, Iterable) and not isinstance(rules, str)
        names = tuple(rules) if collection else ()
        if not collection or not all(isinstance(name, str) for name in names):
            raise ConfigurationError(
                f"offline setting disabled_rules must be a collection of rule names, got {rules!r}"
            )
        if hasattr(self, "disabled_rules"):
            object.__setattr__(self, "disabled_rules", frozenset(names))
        for spec in self.specs():
            value = getattr(self, spec.name)
            if spec.type is int:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigurationError(
                        f"offline setting {spec.name} must be an integer from {spec.minimum:g} "
                        f"to {spec.maximum:g}, got {value!r}"
                    )
            elif isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigurationError(
                    f"offline setting {spec.name} must be a number from {spec.minimum:g} to "
                    f"{spec.maximum:g}, got {value!r}"
                )
            if not (math.isfinite(value) and spec.minimum <= value <= spec.maximum):
                raise ConfigurationError(
                    f"offline setting {spec.name} must be from {spec.minimum:g} to "
                    f"{spec.maximum:g}, got {value!r}"
                )
            if spec.type is float:
                object.__setattr__(self, spec.name, float(value))

    @classmethod
    def specs(cls) -> tuple[SettingSpec, ...]:
        """List the settings with their types, defaults, ranges and descriptions.

        Returns:
            One :class:`SettingSpec` per setting, in declaration order.

        Example:
            >>> from evaltoolkit.scorers import SummarizationOfflineSettings
            >>> [spec.name for spec in SummarizationOfflineSettings.specs()][:2]
            ['claim_support', 'phrase_gap']
        """
        kinds: dict[str, type] = {"float": float, "int": int}
        specs: list[SettingSpec] = []
        for item in fields(cls):  # type: ignore[arg-type]
            if "minimum" not in item.metadata:
                continue  # disabled_rules: names, not a number
            kind = kinds[str(item.type)]
            specs.append(
                SettingSpec(
                    name=item.name,
                    type=kind,
                    default=kind(item.default),
                    minimum=item.metadata["minimum"],
                    maximum=item.metadata["maximum"],
                    description=item.metadata["description"],
                )
            )
        return tuple(specs)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | Self | None) -> Self:
        """Build settings from a mapping of names to values; missing names keep their default.

        Args:
            values: Setting names and values (or settings, returned as they are, or None for
                the defaults).

        Returns:
            The settings.

        Raises:
            ConfigurationError: An unknown name (with the closest known one), or a value out
                of its range.

        Example:
            >>> from evaltoolkit.scorers import SummarizationOfflineSettings
            >>> SummarizationOfflineSettings.from_mapping({"claim_suport": 0.9})
            Traceback (most recent call last):
            ...
            evaltoolkit.errors.ConfigurationError: unknown offline setting 'claim_suport'; \
did you mean 'claim_support'? Known settings: claim_support, phrase_gap, verb_gap, \
question_lead_bias, mention_share, answer_share, disabled_rules
        """
        if values is None:
            return cls()
        if isinstance(values, cls):
            return values
        if not isinstance(values, Mapping):
            raise ConfigurationError(
                f"offline settings must be a mapping of setting names to values, got "
                f"{type(values).__name__}"
            )
        known = [item.name for item in fields(cls)]  # type: ignore[arg-type]
        for name in values:
            if name not in known:
                close = difflib.get_close_matches(str(name), known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ";"
                raise ConfigurationError(
                    f"unknown offline setting {name!r}{hint} Known settings: {', '.join(known)}"
                )
        return cls(**dict(values))

    def updated(self, changes: Mapping[str, Any] | Self) -> Self:
        """These settings with some values changed, the rest kept (checked as
        :meth:`from_mapping` checks them).

        Example:
            >>> from evaltoolkit.scorers import SummarizationOfflineSettings
            >>> SummarizationOfflineSettings().updated({"phrase_gap": 2}).phrase_gap
            2
        """
        names = [item.name for item in fields(self)]  # type: ignore[arg-type]
        given = (
            {name: getattr(changes, name) for name in names}
            if isinstance(changes, type(self))
            else dict(cast(Mapping[str, Any], changes))
        )
        return self.from_mapping({**{name: getattr(self, name) for name in names}, **given})

"""The registry of scorers: each built-in scorer declared once, and room for your own.

Everything outside ``scorers`` that needs to know which scorers exist reads this table: the
command line (``--scorer`` and ``--task`` choices, the demo), :func:`~evaltoolkit.meta.
meta_evaluate` and :func:`~evaltoolkit.meta.compare_judges` (which data columns to read, which
score columns to compare, the default threshold and group), the PromptTuner (the factory a
message names) and the plots (the scorer with two axes). Adding a scorer is one
:func:`register_scorer` call; nothing else names a scorer id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

from ..errors import ConfigurationError
from ._base import Scorer

__all__ = [
    "ANSWER_SIMILARITY_ID",
    "BASELINE_IDS",
    "SUMMARIZATION_ID",
    "TEXTUAL_DIFFERENCE_ID",
    "MetaLayout",
    "ScorerSpec",
    "find_scorer_spec",
    "register_scorer",
    "scorer_ids",
    "scorer_spec",
    "scorer_spec_of",
    "scorer_specs",
    "unregister_scorer",
]

#: The data layouts meta-evaluation knows. ``"source-summary"``: one item per row, the source
#: as input and the summary as output (columns ``source``, ``summary``). ``"answer-reference"``:
#: one item per (answer, reference) pair, a list of references expanded, the best score kept per
#: row (columns ``question``, ``answer``, ``reference``; a missing question column lets the
#: answer stand in as the input).
MetaLayout = Literal["source-summary", "answer-reference"]

_LAYOUT_COLUMNS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "source-summary": ("source", "summary"),
        "answer-reference": ("question", "answer", "reference"),
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScorerSpec:
    """One scorer as the rest of the package knows it.

    Attributes:
        id: The scorer's id: its results' name, ``--scorer`` on the command line and the
            ``task`` of :func:`~evaltoolkit.meta.meta_evaluate`.
        factory: Builds the scorer; a judged scorer's factory takes the judge model as first
            argument and judge options as keywords (``create_summarization_scorer``).
        task: What the scorer judges, in a few words (shown in the command line's help).
        scorer_type: The class of the scorers the factory returns: how
            :func:`~evaltoolkit.meta.compare_judges` tells which task a judge scores (None:
            a scorer whose id is this id).
        layout: The data layout meta-evaluation expects (see :data:`MetaLayout`).
        columns: The default data column of each of the layout's roles.
        meta_scores: The columns meta-evaluation compares with the label, each
            ``(column, value)`` with value ``"score"`` or a detail key of the result; empty:
            the score alone, in a column named after the scorer (``score_<id>``).
        threshold: The default score threshold for accuracy with boolean labels, if any.
        group: The column that groups labelled items by default, when the data has it.
        meta_options: Factory options that meta-evaluation passes (``reason="template"``).
        takes_judge: Whether the factory takes a judge model and judge options.
        demo: The demo data sets (``"summaries"``, ``"answers"``) that ``evaltoolkit demo``
            scores with it.
        baseline: The id of the registered baseline a judge of this task must beat (the
            PromptTuner shows its figure beside the judge's), if any.

    Example:
        >>> from evaltoolkit.scorers import create_textual_difference_scorer
        >>> spec = ScorerSpec(id="exact-text", factory=create_textual_difference_scorer,
        ...                   task="texts compared", layout="answer-reference",
        ...                   columns={"question": None, "answer": "a", "reference": "b"},
        ...                   takes_judge=False)
        >>> spec.score_columns(create_textual_difference_scorer())
        [('score_textual_difference', 'score')]
    """

    id: str
    factory: Callable[..., Scorer]
    task: str
    scorer_type: type[Scorer] | None = None
    layout: MetaLayout
    columns: Mapping[str, str | None]
    meta_scores: tuple[tuple[str, str], ...] = ()
    threshold: float | None = None
    group: str | None = None
    meta_options: Mapping[str, Any] = field(default_factory=dict)
    takes_judge: bool = True
    demo: tuple[str, ...] = ()
    baseline: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ConfigurationError(f"a scorer's id must be a non-empty string, got {self.id!r}")
        if not callable(self.factory):
            raise ConfigurationError(f"scorer {self.id!r}: factory must be callable")
        roles = _LAYOUT_COLUMNS.get(self.layout)
        if roles is None:
            raise ConfigurationError(
                f"scorer {self.id!r}: unknown layout {self.layout!r}; choose one of "
                f"{', '.join(_LAYOUT_COLUMNS)}"
            )
        if set(self.columns) != set(roles):
            raise ConfigurationError(
                f"scorer {self.id!r}: the {self.layout} layout names the columns "
                f"{', '.join(roles)}; got {', '.join(map(str, self.columns)) or 'none'}"
            )

    def score_columns(self, scorer: Scorer) -> list[tuple[str, str]]:
        """The ``(column, value)`` pairs meta-evaluation reads from ``scorer``'s results."""
        if self.meta_scores:
            return list(self.meta_scores)
        return [(f"score_{scorer.id.replace('-', '_')}", "score")]


_registry: dict[str, ScorerSpec] = {}
_lock = threading.Lock()


def register_scorer(spec: ScorerSpec, *, replace: bool = False) -> ScorerSpec:
    """Add a scorer to the registry, for the command line and meta-evaluation to find.

    Args:
        spec: The scorer's declaration.
        replace: Replace a scorer registered under the same id (else that is an error).

    Returns:
        ``spec``, so that a module can keep it as a constant.

    Raises:
        ConfigurationError: ``spec`` is not a :class:`ScorerSpec`, or its id is taken.

    Example:
        >>> from evaltoolkit.scorers import create_textual_difference_scorer
        >>> spec = register_scorer(ScorerSpec(
        ...     id="my-difference", factory=create_textual_difference_scorer,
        ...     task="my texts compared", layout="answer-reference",
        ...     columns={"question": None, "answer": "a", "reference": "b"},
        ...     takes_judge=False))
        >>> "my-difference" in scorer_ids()
        True
        >>> unregister_scorer("my-difference")
    """
    if not isinstance(spec, ScorerSpec):
        raise ConfigurationError(f"register a ScorerSpec, got {type(spec).__name__}")
    with _lock:
        if spec.id in _registry and not replace:
            raise ConfigurationError(
                f"a scorer is registered as {spec.id!r} already; pass replace=True to replace it"
            )
        _registry[spec.id] = spec
    return spec


def unregister_scorer(scorer_id: str) -> None:
    """Remove a scorer from the registry (a no-op when it is not there)."""
    with _lock:
        _registry.pop(scorer_id, None)


def scorer_specs() -> tuple[ScorerSpec, ...]:
    """Every registered scorer, built-in ones first, in the order they were registered."""
    with _lock:
        return tuple(_registry.values())


def scorer_ids() -> tuple[str, ...]:
    """The ids of the registered scorers.

    Example:
        >>> scorer_ids()[:3]
        ('summarization', 'answer-similarity', 'textual-difference')
    """
    return tuple(spec.id for spec in scorer_specs())


def find_scorer_spec(scorer_id: str) -> ScorerSpec | None:
    """The registered scorer with this id, or None."""
    with _lock:
        return _registry.get(scorer_id)


def scorer_spec(scorer_id: str, *, what: str = "scorer") -> ScorerSpec:
    """The registered scorer with this id.

    Raises:
        ConfigurationError: No scorer has this id; the message lists those that do.

    Example:
        >>> scorer_spec("textual-difference").takes_judge
        False
    """
    spec = find_scorer_spec(scorer_id)
    if spec is None:
        raise ConfigurationError(
            f"unknown {what} {scorer_id!r}; choose one of {', '.join(scorer_ids())}"
        )
    return spec


def scorer_spec_of(scorer: Scorer) -> ScorerSpec | None:
    """The registered scorer that ``scorer`` is one of: by its class, else by its id.

    Example:
        >>> from evaltoolkit.scorers import create_textual_difference_scorer
        >>> scorer_spec_of(create_textual_difference_scorer()).id == TEXTUAL_DIFFERENCE_ID
        True
    """
    specs = scorer_specs()
    for spec in specs:
        if spec.scorer_type is not None and isinstance(scorer, spec.scorer_type):
            return spec
    return next((spec for spec in specs if spec.scorer_type is None and spec.id == scorer.id), None)


# -- the ids of the built-in scorers (each registered by its own folder; see ``_builtins``) -----

SUMMARIZATION_ID: Final = "summarization"
ANSWER_SIMILARITY_ID: Final = "answer-similarity"
TEXTUAL_DIFFERENCE_ID: Final = "textual-difference"

#: The ids of the registered baselines (see ``evaltoolkit.scorers._baselines``).
BASELINE_IDS: Final = ("naive-overlap", "summary-length", "rouge", "token-f1")

"""create_scorer: a registered scorer by its id, as the command line makes it."""

from __future__ import annotations

from typing import Any

from ..judge._internal import judge_option_names
from ._base import Scorer
from ._registry import scorer_spec

__all__ = ["create_scorer"]


def create_scorer(name: str, **options: Any) -> Scorer:
    """Create a scorer by its id, as the command line does.

    Args:
        name: The id of a registered scorer (see :func:`scorer_ids`).
        **options: Passed to the scorer's factory; ``model=None`` entries are dropped.

    Raises:
        ConfigurationError: No scorer is registered under ``name``.

    Example:
        >>> create_scorer("textual-difference").id
        'textual-difference'
    """
    spec = scorer_spec(name)
    options = {key: value for key, value in options.items() if value is not None}
    if not spec.takes_judge:
        for key in list(options):
            if key in judge_option_names():
                del options[key]
    return spec.factory(**options)

"""Option names checked against the names a function or record declares.

Every option is declared once: as a keyword-only parameter of a factory, or as a field of a
frozen configuration record. The camelCase spellings of the reference (``maxQuestions``,
``apiBase``) are derived from those names, and an unknown name is an error that suggests the
closest valid one, so that ``temprature=0.2`` fails at once instead of being ignored.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigurationError

__all__ = ["camel_case", "closest", "resolve_names", "unknown_option_error"]

_SNAKE_PART = re.compile(r"_([a-z0-9])")


def camel_case(name: str) -> str:
    """The camelCase spelling of a snake_case name.

    Example:
        >>> camel_case("max_questions")
        'maxQuestions'
    """
    return _SNAKE_PART.sub(lambda match: match.group(1).upper(), name)


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, or None when none is close.

    Example:
        >>> closest("temprature", ["temperature", "timeout"])
        'temperature'
    """
    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return matches[0] if matches else None


def unknown_option_error(
    name: str, known: Iterable[str], *, where: str, hint: str = ""
) -> ConfigurationError:
    """A ConfigurationError for an unknown option, suggesting the closest known name.

    Example:
        >>> str(unknown_option_error("api_bse", ["api_base", "api_key"], where="the judge"))
        "the judge: unknown option 'api_bse'; did you mean 'api_base'?"
    """
    names = sorted(set(known))
    suggestion = closest(name, names)
    if suggestion is not None:
        message = f"{where}: unknown option {name!r}; did you mean {suggestion!r}?"
    else:
        message = f"{where}: unknown option {name!r}; the options are {', '.join(names)}"
    return ConfigurationError(f"{message} {hint}".rstrip())


def resolve_names(
    given: Mapping[str, Any], known: Iterable[str], *, where: str, hint: str = ""
) -> dict[str, Any]:
    """Map snake_case or camelCase option names onto ``known`` names.

    Raises:
        ConfigurationError: A name that is neither a known name nor its camelCase spelling,
            or one option given under both spellings.

    Example:
        >>> resolve_names({"maxQuestions": 5}, ["max_questions"], where="summarization")
        {'max_questions': 5}
    """
    names = list(known)
    aliases = {camel_case(name): name for name in names}
    aliases.update({name: name for name in names})
    resolved: dict[str, Any] = {}
    for name, value in given.items():
        target = aliases.get(name)
        if target is None:
            raise unknown_option_error(name, names, where=where, hint=hint)
        if target in resolved:
            raise ConfigurationError(f"{where}: option {target!r} is given twice")
        resolved[target] = value
    return resolved

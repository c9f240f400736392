"""Deprecation helpers: keyword arguments renamed for one release.

:func:`renamed_keywords` keeps an old keyword name working, with a ``DeprecationWarning`` that
names the new one, while the signature (for ``inspect.signature`` and mypy) shows only the new
names.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = ["renamed_keywords"]

P = ParamSpec("P")
R = TypeVar("R")


def renamed_keywords(**renames: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword name in ``renames`` as its new name, with a deprecation warning.

    Each key is an old name and its value the new one, a keyword parameter of the decorated
    function (or a key its ``**kwargs`` reads); two old names may share one new name. The
    wrapper keeps the function's signature (``inspect.signature`` shows the new names only).
    An old name passed alone warns and is passed on under its new name; passing an old name
    and its new one is a ``TypeError``. Works on plain and ``async`` functions alike.

    Args:
        **renames: ``old_name="new_name"`` for each renamed keyword.

    Returns:
        A decorator that returns the function wrapped.

    Raises:
        TypeError: (at decoration) a new name that is not a parameter of the function.

    Example:
        >>> import warnings
        >>> @renamed_keywords(input_field="input_col")
        ... def count(data: list[str], *, input_col: str = "input") -> str:
        ...     return input_col
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     count([], input_field="question")
        'question'
        >>> str(caught[0].message)
        'count: input_field= is deprecated; use input_col= instead'
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        parameters = inspect.signature(function).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        for old, new in renames.items():
            if new not in parameters and not takes_any:
                raise TypeError(f"renamed_keywords: {function.__name__} has no parameter {new!r}")
            if old in parameters:
                raise TypeError(f"renamed_keywords: {function.__name__} still has {old!r}")
        who = function.__name__

        def translate(kwargs: dict[str, Any]) -> None:
            for old, new in renames.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise TypeError(
                        f"{who}: pass {new}= only ({old}= is its deprecated name), not both"
                    )
                warnings.warn(
                    f"{who}: {old}= is deprecated; use {new}= instead",
                    DeprecationWarning,
                    stacklevel=3,
                )
                kwargs[new] = kwargs.pop(old)

        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                translate(kwargs)
                return await function(*args, **kwargs)

            wrapper: Callable[..., Any] = async_wrapper
        else:

            @functools.wraps(function)
            def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                translate(kwargs)
                return function(*args, **kwargs)

            wrapper = sync_wrapper
        return wrapper

    return decorate

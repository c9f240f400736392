"""Deprecation helpers: names, modules and keyword arguments handed on for one release.

:func:`delisted_names` builds a package's module ``__getattr__`` (PEP 562): a name that was
public there and is no longer listed in its ``__all__`` is still found, with one
``DeprecationWarning`` per access that names where to import it from instead, and it is the
same object as at its new home. :func:`warn_moved_module` is the warning of a module that
moved, raised when the old module is imported. Nothing inside evaltoolkit may import a name or
a module this way.

:func:`renamed_keywords` keeps an old keyword name working, with a ``DeprecationWarning`` that
names the new one, while the signature (for ``inspect.signature`` and mypy) shows only the new
names.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

__all__ = ["Delisted", "delisted_names", "renamed_keywords", "warn_moved_module"]


@dataclass(frozen=True)
class Delisted:
    """Where a de-listed name lives now.

    Attributes:
        home: The module that holds the object now (``evaltoolkit.judge._internal``).
        instead: What to tell the user to do instead, when it is not "import it from ``home``"
            (``"use compare_judges(..., keep_runs=True)"``).
    """

    home: str
    instead: str | None = None

    def message(self, package: str, name: str) -> str:
        """The warning for ``package.name``.

        Example:
            >>> Delisted("evaltoolkit.scorers").message("evaltoolkit.judge", "Step")
            'evaltoolkit.judge.Step is deprecated: import Step from evaltoolkit.scorers instead'
        """
        if self.instead is not None:
            return f"{package}.{name} is deprecated: {self.instead}"
        if any(part.startswith("_") for part in self.home.split(".")):
            return (
                f"{package}.{name} is no longer public and will be removed: it is an internal "
                f"helper (import {name} from {self.home}, which may change without notice)"
            )
        return f"{package}.{name} is deprecated: import {name} from {self.home} instead"


def delisted_names(package: str, names: Mapping[str, Delisted]) -> Callable[[str], Any]:
    """Return a module ``__getattr__`` for ``package`` that hands on its de-listed names.

    Args:
        package: The package's module name (its ``__name__``).
        names: Each de-listed name and where it lives now.

    Returns:
        The ``__getattr__`` function: for a de-listed name it warns once
        (``DeprecationWarning``, naming the replacement) and returns the object from its new
        home; any other name raises ``AttributeError`` as a module does.

    Example:
        >>> import warnings
        >>> lookup = delisted_names("demo", {"dumps": Delisted("json")})
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     import json
        ...     lookup("dumps") is json.dumps
        True
        >>> str(caught[0].message)
        'demo.dumps is deprecated: import dumps from json instead'
    """
    table = dict(names)

    def __getattr__(name: str) -> Any:
        delisted = table.get(name)
        if delisted is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        warnings.warn(delisted.message(package, name), DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(delisted.home), name)

    return __getattr__


def warn_moved_module(old: str, new: str, *, also: str = "") -> None:
    """Warn, from the old module's body, that ``old`` moved to ``new``.

    Args:
        old: The old module's name (its ``__name__``).
        new: Where to import from instead.
        also: A note added in parentheses (other places the names are public).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn_moved_module("pkg.old", "pkg.new", also="f also from pkg")
        >>> str(caught[0].message)
        'pkg.old is deprecated: import from pkg.new (f also from pkg)'
    """
    note = f" ({also})" if also else ""
    # stacklevel 3: past this function and the old module's body, to the import statement.
    warnings.warn(f"{old} is deprecated: import from {new}{note}", DeprecationWarning, stacklevel=3)


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
        # Read by the test that the changelog names every deprecated keyword.
        wrapper.__renamed_keywords__ = dict(renames)  # type: ignore[attr-defined]
        return wrapper

    return decorate

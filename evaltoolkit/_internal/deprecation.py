"""Deprecation helpers: names and modules that left the public surface, handed on for one release.

:func:`delisted_names` builds a package's module ``__getattr__`` (PEP 562): a name that was
public there and is no longer listed in its ``__all__`` is still found, with one
``DeprecationWarning`` per access that names where to import it from instead, and it is the
same object as at its new home. :func:`warn_moved_module` is the warning of a module that
moved, raised when the old module is imported. Nothing inside evaltoolkit may import a name or
a module this way.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Delisted", "delisted_names", "warn_moved_module"]


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

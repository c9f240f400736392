"""Import the optional packages the notebook views need, with an install hint when missing."""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import MissingDependencyError

__all__ = ["require"]


def require(module: str, *, purpose: str, package: str | None = None) -> Any:
    """Import ``module`` or raise :class:`MissingDependencyError` saying what to install.

    Args:
        module: The module to import (``"ipywidgets"``, ``"matplotlib.figure"``).
        purpose: What needs it, for the message (``"the notebook views"``).
        package: The distribution to install, when it differs from the top-level module.

    Example:
        >>> require("json", purpose="a doctest").__name__
        'json'
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        wanted = package or module.split(".")[0]
        raise MissingDependencyError(
            f"{purpose} need {wanted}, which is not installed; "
            f"run `pip install {wanted}` (or `pip install evaltoolkit` with its dependencies)"
        ) from error

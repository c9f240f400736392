"""The command line's constants for tests and tools: not public, and free to change.

The exit statuses a run may end with and the bundled demo files. Any module may import
``evaltoolkit.cli._internal``; users run the ``evaltoolkit`` command or call :func:`main`.
"""

from __future__ import annotations

from ._common import BUDGET_REACHED, DEMO_FILES, INTERRUPTED, NOTEBOOK_COMMAND

__all__ = ["BUDGET_REACHED", "DEMO_FILES", "INTERRUPTED", "NOTEBOOK_COMMAND"]

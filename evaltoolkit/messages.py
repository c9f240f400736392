"""Deprecated: import from :mod:`evaltoolkit.records.messages` (or :mod:`evaltoolkit`).

The message helpers moved to ``evaltoolkit.records.messages``; this module hands the same
names on for one release and warns when it is imported. Nothing inside evaltoolkit imports it.
"""

from __future__ import annotations

import warnings

from .records.messages import ToolResult, extract_tool_results, input_text, output_text

__all__ = ["ToolResult", "extract_tool_results", "input_text", "output_text"]

warnings.warn(
    "evaltoolkit.messages is deprecated: import from evaltoolkit.records.messages "
    "(ToolResult and extract_tool_results also from evaltoolkit)",
    DeprecationWarning,
    stacklevel=2,
)

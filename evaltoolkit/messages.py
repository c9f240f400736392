"""Deprecated: import from :mod:`evaltoolkit.records.messages` (or :mod:`evaltoolkit`).

The message helpers moved to ``evaltoolkit.records.messages``; this module hands the same
names on for one release and warns when it is imported. Nothing inside evaltoolkit imports it.
"""

from __future__ import annotations

from ._internal.deprecation import warn_moved_module
from .records.messages import ToolResult, extract_tool_results, input_text, output_text

__all__ = ["ToolResult", "extract_tool_results", "input_text", "output_text"]

warn_moved_module(
    __name__,
    "evaltoolkit.records.messages",
    also="ToolResult and extract_tool_results also from evaltoolkit",
)

"""Read a Google-style ``Example:`` section as griffe reads ``Examples:``.

Napoleon and the Google style guide accept both spellings; griffe reads only the plural as
examples and renders ``Example:`` as an admonition whose ``>>>`` lines become Markdown (a
``[...]`` in them reads as a cross-reference). The package's docstrings say ``Example:``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SINGULAR = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _SINGULAR.sub(r"\1Examples:", obj.docstring.value)

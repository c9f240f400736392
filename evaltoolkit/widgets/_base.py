"""What the notebook views share: the lazily imported ipywidgets and the reprs."""

from __future__ import annotations

from typing import Any

__all__ = ["View", "ipywidgets"]


def ipywidgets() -> Any:
    """The ipywidgets module, imported when a view is first built (it takes a moment)."""
    import ipywidgets

    return ipywidgets


class View:
    """A view over data: a root ipywidgets container in ``.widget`` and a text repr.

    In Jupyter the view displays as its widget; where widgets cannot render (a terminal, a
    static export without widget state) its ``repr`` text shows instead.
    """

    widget: Any

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        bundle: dict[str, Any] = dict(
            self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs) or {}
        )
        bundle["text/plain"] = repr(self)
        return bundle

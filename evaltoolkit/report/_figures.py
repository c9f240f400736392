"""Matplotlib figures as inline SVG for the report (no network, text escaped by the writer)."""

from __future__ import annotations

import io
import re
from typing import Any

from .._internal.html import Markup

__all__ = ["figure_block", "svg_markup"]

_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>", re.S)


def svg_markup(figure: Any, salt: str) -> Markup:
    """A matplotlib figure as inline SVG markup (text escaped by matplotlib's SVG writer)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = _SVG_METADATA.sub("", svg[svg.index("<svg") :])  # who drew it, with a web address
    return Markup(svg)


def figure_block(caption: str, figure: Any, salt: str) -> Markup:
    return Markup("<figure>{}<figcaption class='muted'>{}</figcaption></figure>").format(
        svg_markup(figure, salt), caption
    )

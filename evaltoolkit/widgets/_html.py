"""Escaped HTML building blocks for the notebook views.

Every string from a model or from data goes through :func:`esc`. Fragments built here are
:class:`Markup` (already safe), so composing them never escapes twice and never lets raw text
through: anything that is not Markup is escaped when it is interpolated.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence

__all__ = [
    "CELL_STYLE",
    "Markup",
    "badge",
    "details_block",
    "esc",
    "format_score",
    "heading",
    "join",
    "key_value_table",
    "note",
    "side_by_side",
    "table",
    "text_block",
]

CELL_STYLE = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"
_HEADER_CELL = CELL_STYLE + ";font-weight:600"
_GOOD = "#1a7f37"
_BAD = "#b42318"


class Markup(str):
    """HTML that is safe to insert as it is (built from escaped parts)."""

    __slots__ = ()


def esc(value: object) -> Markup:
    """Escape ``value`` as HTML text; Markup passes through, None becomes empty.

    Example:
        >>> esc("<script>alert(1)</script>")
        '&lt;script&gt;alert(1)&lt;/script&gt;'
    """
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("")
    return Markup(html.escape(str(value), quote=True))


def join(parts: Iterable[object], separator: str = "") -> Markup:
    """Join fragments, escaping any part that is not Markup."""
    return Markup(separator.join(esc(part) for part in parts))


def format_score(value: object) -> str:
    """A score as text: three decimals, ``"n/a"`` for NaN or a missing value.

    Example:
        >>> format_score(0.625), format_score(float("nan"))
        ('0.625', 'n/a')
    """
    if value is None or isinstance(value, bool):
        return "n/a" if value is None else str(value)
    if isinstance(value, int | float):
        return "n/a" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def heading(text: object) -> Markup:
    """A small section heading."""
    return Markup(f"<h4 style='margin:10px 0 4px 0'>{esc(text)}</h4>")


def note(text: object, *, kind: str = "info") -> Markup:
    """A boxed note; ``kind`` is ``"info"``, ``"warning"`` or ``"error"``."""
    colours = {"info": "#0969da", "warning": "#9a6700", "error": _BAD}
    colour = colours.get(kind, colours["info"])
    return Markup(
        f"<div class='evaltoolkit-note evaltoolkit-note-{esc(kind)}' "
        f"style='border-left:4px solid {colour};padding:4px 8px;margin:4px 0'>{esc(text)}</div>"
    )


def badge(flag: bool, yes: str, no: str) -> Markup:
    """A coloured yes/no word (the word itself carries the meaning, not only the colour)."""
    colour, word = (_GOOD, yes) if flag else (_BAD, no)
    return Markup(
        f"<span style='color:{colour};font-weight:600;white-space:nowrap'>{esc(word)}</span>"
    )


def text_block(label: object, text: object) -> Markup:
    """A labelled block of text with its line breaks kept."""
    return Markup(
        f"<div style='flex:1;min-width:0'><div style='font-weight:600'>{esc(label)}</div>"
        f"<div style='white-space:pre-wrap;border:1px solid #ddd;padding:6px;"
        f"max-height:320px;overflow:auto'>{esc(text)}</div></div>"
    )


def side_by_side(*blocks: Markup) -> Markup:
    """Blocks next to each other, each taking an equal share of the width."""
    return Markup(f"<div style='display:flex;gap:12px'>{join(blocks)}</div>")


def table(
    headers: Sequence[object], rows: Iterable[Sequence[object]], *, css_class: str = ""
) -> Markup:
    """An HTML table; cells that are not Markup are escaped."""
    head = join(Markup(f"<th style='{_HEADER_CELL}'>{esc(header)}</th>") for header in headers)
    body = join(
        Markup(
            "<tr>"
            + join(Markup(f"<td style='{CELL_STYLE}'>{esc(cell)}</td>") for cell in row)
            + "</tr>"
        )
        for row in rows
    )
    classes = esc(f"evaltoolkit-table {css_class}".strip())
    return Markup(
        f"<table class='{classes}' style='border-collapse:collapse'>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def key_value_table(pairs: Iterable[tuple[object, object]]) -> Markup:
    """A two-column table of names and values."""
    body = join(
        Markup(
            f"<tr><th style='{_HEADER_CELL}'>{esc(key)}</th>"
            f"<td style='{CELL_STYLE}'>{esc(value)}</td></tr>"
        )
        for key, value in pairs
    )
    return Markup(f"<table style='border-collapse:collapse'><tbody>{body}</tbody></table>")


def details_block(summary: object, text: object) -> Markup:
    """A collapsed block (``<details>``) holding preformatted text."""
    return Markup(
        f"<details><summary>{esc(summary)}</summary>"
        f"<pre style='white-space:pre-wrap;max-height:320px;overflow:auto'>{esc(text)}</pre>"
        "</details>"
    )

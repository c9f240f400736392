"""Escaped HTML building blocks, shared by the records' HTML reprs, the views and the report.

Built on :mod:`markupsafe`: every helper returns :class:`Markup` (HTML known to be safe), and
anything else that goes into it is escaped exactly once, whether it is interpolated with
``Markup(...).format(...)``, joined, or added (``Markup("<b>") + "<i>"`` escapes the ``<i>``).
Text from a model or from data therefore never reaches a page as markup. Importing this module
is cheap: it needs markupsafe only (no pandas, no ipywidgets).

Example:
    >>> str(Markup("<p>{}</p>").format("<script>alert(1)</script>"))
    '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from markupsafe import Markup, escape

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
_NOTE_COLOURS = {"info": "#0969da", "warning": "#9a6700", "error": _BAD}


def esc(value: object) -> Markup:
    """Escape ``value`` as HTML text; Markup passes through, None becomes empty.

    Example:
        >>> str(esc("<script>alert(1)</script>"))
        '&lt;script&gt;alert(1)&lt;/script&gt;'
        >>> esc(esc("a & b")) == esc("a & b")
        True
    """
    if value is None:
        return Markup("")
    return escape(value)


def join(parts: Iterable[object], separator: str = "") -> Markup:
    """Join fragments, escaping any part (and the separator) that is not Markup.

    Example:
        >>> str(join([Markup("<b>x</b>"), "<i>"]))
        '<b>x</b>&lt;i&gt;'
    """
    return esc(separator).join(esc(part) for part in parts)


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


def heading(text: object, *, level: int = 4) -> Markup:
    """A small section heading (``<h4>`` unless ``level`` says otherwise)."""
    tag = f"h{min(max(int(level), 1), 6)}"
    return Markup("<{tag} style='margin:10px 0 4px 0'>{text}</{tag}>").format(
        tag=Markup(tag), text=esc(text)
    )


def note(text: object, *, kind: str = "info") -> Markup:
    """A boxed note; ``kind`` is ``"info"``, ``"warning"`` or ``"error"``."""
    kind = kind if kind in _NOTE_COLOURS else "info"
    return Markup(
        "<div class='evaltoolkit-note evaltoolkit-note-{kind}' "
        "style='border-left:4px solid {colour};padding:4px 8px;margin:4px 0'>{text}</div>"
    ).format(kind=kind, colour=_NOTE_COLOURS[kind], text=esc(text))


def badge(flag: bool, yes: str, no: str) -> Markup:
    """A coloured yes/no word (the word itself carries the meaning, not only the colour)."""
    colour, word = (_GOOD, yes) if flag else (_BAD, no)
    return Markup(
        "<span style='color:{colour};font-weight:600;white-space:nowrap'>{word}</span>"
    ).format(colour=colour, word=word)


def text_block(label: object, text: object) -> Markup:
    """A labelled block of text with its line breaks kept."""
    return Markup(
        "<div style='flex:1;min-width:0'><div style='font-weight:600'>{label}</div>"
        "<div style='white-space:pre-wrap;border:1px solid #ddd;padding:6px;"
        "max-height:320px;overflow:auto'>{text}</div></div>"
    ).format(label=esc(label), text=esc(text))


def side_by_side(*blocks: Markup) -> Markup:
    """Blocks next to each other, each taking an equal share of the width."""
    return Markup("<div style='display:flex;gap:12px'>{}</div>").format(join(blocks))


def table(
    headers: Sequence[object], rows: Iterable[Sequence[object]], *, css_class: str = ""
) -> Markup:
    """An HTML table; cells that are not Markup are escaped."""
    header_cell = Markup("<th style='{}'>{}</th>")
    body_cell = Markup("<td style='{}'>{}</td>")
    head = join(header_cell.format(_HEADER_CELL, esc(header)) for header in headers)
    body = join(
        Markup("<tr>{}</tr>").format(join(body_cell.format(CELL_STYLE, esc(cell)) for cell in row))
        for row in rows
    )
    return Markup(
        "<table class='{classes}' style='border-collapse:collapse'>"
        "<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    ).format(classes=f"evaltoolkit-table {css_class}".strip(), head=head, body=body)


def key_value_table(pairs: Iterable[tuple[object, object]], *, css_class: str = "") -> Markup:
    """A two-column table of names and values."""
    row = Markup("<tr><th style='{0}'>{2}</th><td style='{1}'>{3}</td></tr>")
    body = join(row.format(_HEADER_CELL, CELL_STYLE, esc(key), esc(value)) for key, value in pairs)
    classes = Markup(" class='{}'").format(css_class) if css_class else Markup("")
    return Markup(
        "<table{classes} style='border-collapse:collapse'><tbody>{body}</tbody></table>"
    ).format(classes=classes, body=body)


def details_block(summary: object, text: object) -> Markup:
    """A collapsed block (``<details>``) holding preformatted text."""
    return Markup(
        "<details><summary>{summary}</summary>"
        "<pre style='white-space:pre-wrap;max-height:320px;overflow:auto'>{text}</pre>"
        "</details>"
    ).format(summary=esc(summary), text=esc(text))

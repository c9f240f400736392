"""HTML sections describing one result: summarization axes, errors, judge calls."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .._internal.html import (
    Markup,
    badge,
    details_block,
    format_score,
    heading,
    join,
    key_value_table,
    note,
    side_by_side,
    table,
    text_block,
)
from ._rows import ResultRow, source_text, summary_text

__all__ = [
    "claims_section",
    "error_section",
    "judge_calls_section",
    "questions_section",
    "summarization_detail",
]


def _entries(step_result: Mapping[str, Any] | None, key: str) -> list[Mapping[str, Any]]:
    values = (step_result or {}).get(key) or []
    return [value for value in values if isinstance(value, Mapping)]


def _verdict_table(
    title: str,
    entries: Sequence[Mapping[str, Any]],
    *,
    text_key: str,
    flag_key: str,
    verdicts: tuple[str, str],
    empty: str,
    css_class: str,
) -> Markup:
    """A heading and one row per judged entry: its text, a verdict badge, the offline rule
    that decided it (when the judge names one) and the reason."""
    if not entries:
        return join([heading(title), note(empty)])
    ruled = any("rule" in entry for entry in entries)
    rows = [
        (
            position,
            entry.get(text_key, ""),
            badge(bool(entry.get(flag_key)), *verdicts),
            *([entry.get("rule", "")] if ruled else []),
            entry.get("reason", ""),
        )
        for position, entry in enumerate(entries, start=1)
    ]
    headers = ["#", text_key, "verdict", *(["rule"] if ruled else []), "reason"]
    return join([heading(title), table(headers, rows, css_class=css_class)])


def claims_section(row: ResultRow) -> Markup:
    """The summary's claims, each supported or not, with the judge's reason."""
    claims = _entries(row.preprocess, "alignment")
    supported = sum(1 for claim in claims if claim.get("supported"))
    title = (
        f"Claims: alignment {format_score(row.number('alignment_score'))} "
        f"({supported} of {len(claims)} supported)"
    )
    return _verdict_table(
        title,
        claims,
        text_key="claim",
        flag_key="supported",
        verdicts=("supported", "not supported"),
        empty="The judge found no claims in the summary.",
        css_class="evaltoolkit-claims",
    )


def questions_section(row: ResultRow) -> Markup:
    """The coverage questions, each answered by the summary or not, with the reason."""
    verdicts = _entries(row.analyze, "coverage")
    questions: Sequence[Any] = (row.preprocess or {}).get("questions") or []
    if not verdicts:
        verdicts = [
            {"question": question, "answered": False, "reason": "no verdict"}
            for question in questions
        ]
    answered = sum(1 for verdict in verdicts if verdict.get("answered"))
    title = (
        f"Questions: coverage {format_score(row.number('coverage_score'))} "
        f"({answered} of {len(verdicts)} answered by the summary)"
    )
    return _verdict_table(
        title,
        verdicts,
        text_key="question",
        flag_key="answered",
        verdicts=("answered", "not answered"),
        empty="The judge asked no questions about the source.",
        css_class="evaltoolkit-questions",
    )


def error_section(row: ResultRow) -> Markup:
    """Why the item failed: the step, the error kind and message, the last raw reply."""
    if not row.failed:
        return Markup("")
    kind = f" ({row.error_kind})" if row.error_kind else ""
    parts: list[object] = [
        note(
            f"Failed at step {row.error_step or '?'}{kind}: {row.error_message or ''}", kind="error"
        )
    ]
    if row.error_raw_reply:
        parts.append(details_block("the model's last raw reply", row.error_raw_reply))
    return join(parts)


def judge_calls_section(row: ResultRow) -> Markup:
    """Each judge call's prompt and raw reply, collapsed."""
    steps = list(dict.fromkeys([*row.prompts, *row.raw_replies]))
    if not steps:
        return Markup("")
    blocks: list[object] = [heading(f"Judge calls ({row.judge_model or 'no model'})")]
    for step in steps:
        reply = row.raw_replies.get(step)
        blocks.append(details_block(f"{step}: prompt", row.prompts.get(step, "")))
        blocks.append(details_block(f"{step}: raw reply", "(no reply)" if reply is None else reply))
    return join(blocks)


def _axis_summary(row: ResultRow) -> list[tuple[object, object]]:
    alignment, coverage = row.number("alignment_score"), row.number("coverage_score")
    gap = abs(alignment - coverage)
    return [
        ("score", format_score(row.score)),
        ("decided by", row.extra.get("decided_by", "n/a")),
        ("alignment", format_score(alignment)),
        ("coverage", format_score(coverage)),
        ("|alignment - coverage|", "n/a" if math.isnan(gap) else format_score(gap)),
    ]


def summarization_detail(row: ResultRow) -> Markup:
    """One summarization item: scores and reason, source and summary side by side, the
    claims and the questions behind each axis."""
    parts: list[object] = [
        heading(f"Item {row.item_id}"),
        key_value_table(_axis_summary(row)),
        error_section(row),
    ]
    if row.reason:
        parts.append(Markup("<p><b>Reason.</b> {}</p>").format(row.reason))
    parts.append(
        side_by_side(
            text_block("Source", source_text(row)), text_block("Summary", summary_text(row))
        )
    )
    if not row.failed:
        parts.extend([claims_section(row), questions_section(row)])
    return Markup("<div class='evaltoolkit-detail'>{}</div>").format(join(parts))

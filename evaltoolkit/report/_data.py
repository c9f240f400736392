"""What a report shows, gathered from results: runs, rows, drill-downs, one table of texts.

The page's script renders the item table and the drill-downs from this data with DOM text
nodes, so nothing here is HTML. Texts are stored once (summaries of one document share its
source, questions and often claims) and referred to by index; a drill-down is kept for at
most ``max_items`` rows and within a byte budget, the rows beyond it keep their scores.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..records import EvalResult, ItemResult, ScoreResult
from ..records._internal import number_or_nan, to_json_text
from ..records.messages import input_text, output_text

__all__ = ["RowData", "Run", "build_data", "disagreements", "row_axes"]

_SHORT_REASON = 110
# Item fields and details shown in a drill-down, at most.
_DETAILS_SHOWN = 40


@dataclass(slots=True)
class Run:
    """One results set in the report: its name, the result, and the file it came from."""

    name: str
    result: EvalResult
    origin: Path | None = None


@dataclass(slots=True)
class RowData:
    """The report's data: what the page's script reads (``payload``) and the counts."""

    payload: dict[str, Any]
    rows: int
    detailed: int
    truncated_texts: int
    budget_reached: bool


class _Texts:
    """A table of distinct texts, each cut to ``max_chars``; cells refer to them by index."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.values: list[str] = []
        self._index: dict[str, int] = {}
        self.bytes = 0
        self.truncated = 0

    def mark(self) -> tuple[int, int, int]:
        """Where the table stands, to roll back to."""
        return len(self.values), self.bytes, self.truncated

    def rollback(self, mark: tuple[int, int, int]) -> None:
        """Forget the texts added since ``mark``."""
        count, self.bytes, self.truncated = mark
        for text in self.values[count:]:
            del self._index[text]
        del self.values[count:]

    def add(self, text: str | None) -> int | None:
        if text is None:
            return None
        cut = len(text) > self.max_chars
        if cut:
            hidden = len(text) - self.max_chars
            text = f"{text[: self.max_chars]}… [{hidden:,} more characters not shown]"
        found = self._index.get(text)
        if found is not None:
            return found
        self.truncated += cut
        self._index[text] = len(self.values)
        self.values.append(text)
        self.bytes += len(json.dumps(text, ensure_ascii=False)) + 1
        return len(self.values) - 1


def _json_number(value: float, digits: int = 6) -> float | None:
    return None if not math.isfinite(value) else round(value, digits)


def row_axes(result: ScoreResult) -> tuple[float, float]:
    """A summarization result's alignment and coverage (NaN when it has none)."""
    return (
        number_or_nan(result.details.get("alignment_score")),
        number_or_nan(result.details.get("coverage_score")),
    )


def _display(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _input_source(item: ItemResult) -> str | None:
    """The input's first user message: the source the summarization scorer reads by default."""
    try:
        return input_text(item.input)
    except InputError:
        return _display(item.input)


def _judged_source(result: ScoreResult) -> str | None:
    judged = result.details.get("source")
    return judged if isinstance(judged, str) else None


def _summary_of(item: ItemResult) -> str | None:
    try:
        return output_text(item.output)
    except InputError:
        return _display(item.output)


def _shown_value(value: Any) -> str:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.4g}"
    if isinstance(value, str):
        return value
    return to_json_text(value)


def _entries(step_result: Mapping[str, Any] | None, key: str) -> list[Mapping[str, Any]]:
    values = (step_result or {}).get(key) or []
    return [value for value in values if isinstance(value, Mapping)]


def _verdict_table(
    entries: list[Mapping[str, Any]],
    texts: _Texts,
    *,
    title: str,
    cls: str,
    keys: tuple[str, str],
    verdicts: tuple[str, str],
    empty: str,
) -> dict[str, Any]:
    """One table of yes/no verdicts (claims supported, questions answered), numbered, with the
    offline rule that decided each when the judge names one."""
    text_key, flag_key = keys
    ruled = any("rule" in entry for entry in entries)
    return {
        "title": title,
        "cls": cls,
        "head": ["#", text_key, "verdict", *(["rule"] if ruled else []), "reason"],
        "verdicts": list(verdicts),
        "empty": empty,
        "rows": [
            [
                str(position),
                texts.add(str(entry.get(text_key, ""))),
                bool(entry.get(flag_key)),
                *([str(entry.get("rule", ""))] if ruled else []),
                texts.add(str(entry.get("reason", ""))),
            ]
            for position, entry in enumerate(entries, start=1)
        ],
    }


def _verdict_tables(result: ScoreResult, texts: _Texts) -> list[dict[str, Any]]:
    tables: list[dict[str, Any]] = []
    claims = _entries(result.preprocess_step_result, "alignment")
    if "alignment_score" in result.details or claims:
        supported = sum(1 for claim in claims if claim.get("supported"))
        alignment = number_or_nan(result.details.get("alignment_score"))
        tables.append(
            _verdict_table(
                claims,
                texts,
                title=f"Claims: alignment {_score_text(alignment)} "
                f"({supported} of {len(claims)} supported)",
                cls="claims",
                keys=("claim", "supported"),
                verdicts=("supported", "not supported"),
                empty="The judge found no claims in the summary.",
            )
        )
    verdicts = _entries(result.analyze_step_result, "coverage")
    questions = (result.preprocess_step_result or {}).get("questions") or []
    if not verdicts and questions:
        verdicts = [
            {"question": question, "answered": False, "reason": "no verdict"}
            for question in questions
        ]
    if "coverage_score" in result.details or verdicts:
        answered = sum(1 for verdict in verdicts if verdict.get("answered"))
        coverage = number_or_nan(result.details.get("coverage_score"))
        tables.append(
            _verdict_table(
                verdicts,
                texts,
                title=f"Questions: coverage {_score_text(coverage)} "
                f"({answered} of {len(verdicts)} answered by the summary)",
                cls="questions",
                keys=("question", "answered"),
                verdicts=("answered", "not answered"),
                empty="The judge asked no questions about the source.",
            )
        )
    matches = _entries(result.analyze_step_result, "matches")
    if matches:
        tables.append(
            {
                "title": f"Ground-truth units ({len(matches)})",
                "cls": "matches",
                "head": ["#", "ground-truth unit", "answer unit", "match", "explanation"],
                "rows": [
                    [
                        str(position),
                        texts.add(str(match.get("ground_truth_unit", ""))),
                        texts.add(_display(match.get("output_unit")) or "(none)"),
                        str(match.get("match_type", "")),
                        texts.add(str(match.get("explanation", ""))),
                    ]
                    for position, match in enumerate(matches, start=1)
                ],
            }
        )
    return tables


def _score_text(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def _detail(run_index: int, item: ItemResult, result: ScoreResult, texts: _Texts) -> dict[str, Any]:
    summarization = "alignment_score" in result.details or bool(
        _entries(result.preprocess_step_result, "alignment")
    )
    blocks: list[list[Any]] = []
    if summarization:
        judged, default = _judged_source(result), _input_source(item)
        other = judged is not None and judged != default  # source= or source_extractor=
        source = judged if judged is not None else default
        blocks.append(["Source (the text judged)" if other else "Source", texts.add(source)])
        blocks.append(["Summary", texts.add(_summary_of(item))])
        if other:
            blocks.append(["Input", texts.add(_display(item.input))])
    else:
        blocks.append(["Input", texts.add(_display(item.input))])
        blocks.append(["Output", texts.add(_display(item.output))])
    if item.ground_truth is not None:
        blocks.append(["Ground truth", texts.add(_display(item.ground_truth))])
    facts: list[list[Any]] = [["score", _score_text(number_or_nan(result.score))]]
    if summarization:
        alignment, coverage = row_axes(result)
        gap = abs(alignment - coverage)
        facts += [
            ["decided by", str(result.details.get("decided_by", "n/a"))],
            ["alignment", _score_text(alignment)],
            ["coverage", _score_text(coverage)],
            ["|alignment - coverage|", _score_text(gap)],
        ]
    facts.append(["judge model", result.judge_model or "none"])
    extras = [
        [str(key), texts.add(_shown_value(value))]
        for key, value in [
            *((k, v) for k, v in result.details.items() if k != "source"),
            *((k, v) for k, v in item.fields.items() if k not in result.details),
        ]
    ][:_DETAILS_SHOWN]
    error = None
    if result.error is not None:
        raw = result.error.raw_reply
        if raw is None:
            raw = result.raw_replies.get(result.error.step)
        kind = f" ({result.error.kind})" if result.error.kind else ""
        error = {
            "text": texts.add(f"Failed at step {result.error.step}{kind}: {result.error.message}"),
            "reply": texts.add(raw),
        }
    return {
        "run": run_index,
        "id": str(item.item_id),
        "scorer": result.scorer,
        "facts": facts,
        "reason": texts.add(result.reason),
        "error": error,
        "blocks": [block for block in blocks if block[1] is not None],
        "tables": [] if result.failed else _verdict_tables(result, texts),
        "extras": extras,
    }


def disagreements(run: Run, limit: int) -> list[tuple[ItemResult, ScoreResult, float]]:
    """The results whose two axes disagree most (largest |alignment - coverage| first)."""
    found = []
    for item in run.result:
        for result in item.scorer_results.values():
            alignment, coverage = row_axes(result)
            gap = abs(alignment - coverage)
            if not result.failed and math.isfinite(gap) and gap > 0:
                found.append((item, result, gap))
    found.sort(key=lambda entry: -entry[2])
    return found[:limit]


@dataclass(slots=True)
class _RowRef:
    run: int
    item: ItemResult
    result: ScoreResult
    priority: int = field(default=2)


def build_data(
    runs: Sequence[Run],
    *,
    max_items: int,
    max_text_chars: int,
    max_bytes: int,
    top_disagreements: int,
) -> RowData:
    """The report's data: the rows of every run, drill-downs for the first ``max_items``.

    Drill-downs go first to the rows listed as disagreeing most, then to failed rows, then
    in data order, until ``max_items`` rows have one or the data would pass ``max_bytes``.
    """
    texts = _Texts(max_text_chars)
    refs: list[_RowRef] = []
    for run_index, run in enumerate(runs):
        listed = {id(result) for _, result, _ in disagreements(run, top_disagreements)}
        for item in run.result:
            for result in item.scorer_results.values():
                priority = 0 if id(result) in listed else 1 if result.failed else 2
                refs.append(_RowRef(run_index, item, result, priority))
    scorers = list(dict.fromkeys(ref.result.scorer for ref in refs))
    scorer_index = {name: index for index, name in enumerate(scorers)}
    rows: list[list[Any]] = []
    for ref in refs:
        alignment, coverage = row_axes(ref.result)
        reason = ref.result.reason or (str(ref.result.error) if ref.result.error else "")
        short = reason if len(reason) <= _SHORT_REASON else reason[: _SHORT_REASON - 1] + "…"
        rows.append(
            [
                ref.run,
                str(ref.item.item_id),
                scorer_index[ref.result.scorer],
                _json_number(number_or_nan(ref.result.score)),
                _json_number(alignment),
                _json_number(coverage),
                1 if ref.result.failed else 0,
                -1,
                short,
            ]
        )
    rows_bytes = len(json.dumps(rows, ensure_ascii=False))
    order = sorted(range(len(refs)), key=lambda position: (refs[position].priority, position))
    details: list[dict[str, Any]] = []
    details_bytes = 0
    budget_reached = False
    for position in order:
        if len(details) >= max_items:
            break
        ref = refs[position]
        mark = texts.mark()
        detail = _detail(ref.run, ref.item, ref.result, texts)
        size = len(json.dumps(detail, ensure_ascii=False)) + 1
        if rows_bytes + details_bytes + texts.bytes + size > max_bytes and details:
            budget_reached = True
            texts.rollback(mark)
            break
        details_bytes += size
        rows[position][7] = len(details)
        details.append(detail)
    payload = {
        "runs": [run.name for run in runs],
        "scorers": scorers,
        "rows": rows,
        "details": details,
        "texts": texts.values,
    }
    return RowData(
        payload=payload,
        rows=len(rows),
        detailed=len(details),
        truncated_texts=texts.truncated,
        budget_reached=budget_reached,
    )

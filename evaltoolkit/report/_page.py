"""The report page: escaped sections built on evaltoolkit._internal.html, figures, data, script."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._internal.html import Markup, details_block, join, key_value_table, table
from .._internal.secrets import secret_masker
from .._version import __version__
from ..records import EvalResult, ScoreResult
from ..records._internal import sum_cost, sum_usage
from ._assets import SCRIPT, STYLE
from ._comparison import comparison_section
from ._data import RowData, Run, disagreements, row_axes
from ._figures import figure_block

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["render_page"]

_PROMPT_CHARS = 6000


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _results(result: EvalResult) -> list[ScoreResult]:
    return [score for item in result for score in item.scorer_results.values()]


def _saved_at(run: Run) -> str:
    if run.origin is None:
        return "not saved (the report was built from a result in memory)"
    stamp = dt.datetime.fromtimestamp(run.origin.stat().st_mtime, tz=dt.UTC)
    return f"saved {stamp:%Y-%m-%d %H:%M} UTC"


def _tokens_text(results: Sequence[ScoreResult]) -> str:
    usage = sum_usage([score.usage for score in results])
    if usage is None:
        return "not reported (the offline judge, or no model call)"
    return (
        f"{usage.total_tokens:,} ({usage.prompt_tokens:,} prompt, "
        f"{usage.completion_tokens:,} completion)"
    )


def _cost_text(results: Sequence[ScoreResult]) -> str:
    cost = sum_cost([score.cost for score in results if score.calls])
    if cost is None:
        return "unknown (a model missing from litellm's price map)"
    return f"${cost:,.4f}"


def _metadata(run: Run) -> Markup:
    result = run.result
    results = _results(result)
    run_ids = list(dict.fromkeys(score.run_id for score in results if score.run_id))
    shown_ids = ", ".join(run_ids[:3]) + (
        f" and {len(run_ids) - 3} more" if len(run_ids) > 3 else ""
    )
    models = []
    for scorer in result.scorer_ids:
        names = sorted({s.judge_model for s in result.results(scorer) if s.judge_model})
        models.append(f"{scorer}: {', '.join(names) if names else 'no model'}")
    failed = sum(score.failed for score in results)
    latencies = [score.latency_s for score in results if not score.failed]
    pairs: list[tuple[object, object]] = [
        ("results", str(run.origin) if run.origin else run.name),
        ("date", _saved_at(run)),
        ("run id", shown_ids or result.run_id),
        ("judge model", "; ".join(models) or "none"),
        ("items", f"{len(result):,} items, {len(results):,} results"),
        ("scored / failed", f"{len(results) - failed:,} scored, {failed:,} failed"),
        ("tokens", _tokens_text(results)),
        ("cost", _cost_text(results)),
        (
            "mean latency per result",
            f"{statistics.fmean(latencies):.3f} s" if latencies else "n/a",
        ),
    ]
    if result.elapsed_s:
        pairs.append(("run time", f"{result.elapsed_s:.1f} s"))
    return key_value_table(pairs, css_class="run-metadata")


def _prompts(run: Run) -> Markup:
    blocks: list[object] = []
    for scorer in run.result.scorer_ids:
        example = next(
            (
                (item, score)
                for item in run.result
                if (score := item.scorer_results.get(scorer)) is not None
                and score.calls
                and not score.failed
            ),
            None,
        ) or next(
            (
                (item, score)
                for item in run.result
                if (score := item.scorer_results.get(scorer)) is not None and score.calls
            ),
            None,
        )
        if example is None:
            continue
        item, score = example
        for step, prompt in score.prompts.items():
            shown = prompt if len(prompt) <= _PROMPT_CHARS else prompt[:_PROMPT_CHARS] + " …"
            blocks.append(
                details_block(f"{scorer} · {step} (as sent for item {item.item_id})", shown)
            )
    if not blocks:
        return Markup("<p class='muted'>No judge prompts: the scorers made no model call.</p>")
    return join(blocks)


def _summary(run: Run) -> Markup:
    rows = []
    for scorer in run.result.scorer_ids:
        results = run.result.results(scorer)
        scores = [
            s.score for s in results if isinstance(s.score, int | float) and math.isfinite(s.score)
        ]
        models = sorted({s.judge_model for s in results if s.judge_model})
        rows.append(
            [
                scorer,
                ", ".join(models) or "none",
                _fmt(statistics.fmean(scores)) if scores else "n/a",
                _fmt(statistics.median(scores)) if scores else "n/a",
                _fmt(min(scores)) if scores else "n/a",
                _fmt(max(scores)) if scores else "n/a",
                f"{len(scores):,}",
                f"{len(results) - len(scores):,}",
                _tokens_text(results),
                _cost_text(results),
            ]
        )
    headers = ["scorer", "judge model", "mean", "median", "min", "max", "scored", "failed"]
    return table([*headers, "tokens", "cost"], rows, css_class="scorer-summary")


def _figures(run: Run, run_index: int) -> Markup:
    from ..plots import axis_scatter, score_histograms

    figures: list[object] = []
    results = _results(run.result)
    if any(math.isfinite(score.score) for score in results):
        figures.append(
            figure_block(
                "Scores per scorer (failed items are counted in the titles, not drawn).",
                score_histograms(run.result),
                f"hist-{run_index}",
            )
        )
    for scorer in run.result.scorer_ids:
        if any("alignment_score" in s.details for s in run.result.results(scorer)):
            figures.append(
                figure_block(
                    f"{scorer}: alignment against coverage, coloured by the axis that decided "
                    "the score.",
                    axis_scatter(run.result, scorer=scorer),
                    f"axes-{run_index}-{scorer}",
                )
            )
    if not figures:
        return Markup("<p class='muted'>No scored item to draw.</p>")
    return Markup("<div class='figures'>{}</div>").format(join(figures))


def _disagreement_table(run: Run, row_of: dict[int, int], limit: int) -> Markup:
    found = disagreements(run, limit)
    if not any("alignment_score" in s.details for s in _results(run.result)):
        return Markup("")
    heading = Markup("<h3>Where alignment and coverage disagree most</h3>")
    if not found:
        return heading + Markup(
            "<p class='muted'>Alignment and coverage agree on every scored item.</p>"
        )
    rows = []
    for item, score, gap in found:
        alignment, coverage = row_axes(score)
        link = Markup("<a href='#row-{}'>{}</a>").format(row_of[id(score)], item.item_id)
        rows.append(
            [
                link,
                score.scorer,
                _fmt(alignment),
                _fmt(coverage),
                _fmt(gap),
                _fmt(score.score),
                str(score.details.get("decided_by", "n/a")),
            ]
        )
    headers = ["item", "scorer", "alignment", "coverage", "|a - c|", "score", "decided by"]
    caption = Markup(
        "<p class='muted'>The {} items with the largest |alignment - coverage|; each links to "
        "its drill-down below.</p>"
    ).format(len(found))
    return heading + caption + table(headers, rows, css_class="disagreements")


def _interval(row: Any, column: str) -> str:
    value = _fmt(row.get(column))
    low, high = row.get(f"{column}_ci_low"), row.get(f"{column}_ci_high")
    if column == "agreement":
        low, high = row.get("ci_low"), row.get("ci_high")
    if isinstance(low, float) and isinstance(high, float) and math.isfinite(low + high):
        return f"{value} [{low:.3f}, {high:.3f}]"
    return value


def _leaderboard(board: pd.DataFrame) -> Markup:
    from ..plots import agreement_vs_cost

    attrs = getattr(board, "attrs", {}) or {}
    metric_columns = [
        column
        for column in (
            "spearman",
            "kendall",
            "spearman_per_group",
            "kendall_per_group",
            "spearman_system",
            "auroc",
            "accuracy",
        )
        if column in board.columns
    ]
    headers = ["rank", "judge", "judge model", "agreement", "vs best (paired)", *metric_columns]
    headers += ["n", "scored", "failed", "tokens", "cost", "mean latency"]
    rows = []
    for record in board.to_dict(orient="records"):
        cost = record.get("cost")
        tokens = record.get("tokens")
        rows.append(
            [
                f"{record.get('rank', '')}{'=' if record.get('tied') else ''}",
                record.get("judge", ""),
                record.get("judge_model") or "none",
                _interval(record, "agreement"),
                _interval(record, "vs_best") if "vs_best" in record else "",
                *(_interval(record, column) for column in metric_columns),
                record.get("n", ""),
                record.get("scored", ""),
                record.get("failed", ""),
                "not reported" if tokens is None or tokens != tokens else f"{int(tokens):,}",
                "unknown" if cost is None or cost != cost else f"${cost:,.4f}",
                _fmt(record.get("mean_latency_s")) + " s",
            ]
        )
    what = (
        f"Agreement of each judge's {attrs.get('score', 'score')!s} with the human label "
        f"{attrs.get('label', '')!s} ({attrs.get('task', '')!s}), ranked by "
        f"{attrs.get('metric', 'the first metric')!s}; 95% bootstrap intervals in brackets. "
        f"Ranks: {attrs.get('ranking', 'by the point estimates')!s}; '=' marks a shared rank, "
        "and 'vs best' is each judge's paired difference to the first."
    )
    parts: list[object] = [
        Markup("<p>{}</p>").format(what),
        table(headers, rows, css_class="leaderboard"),
    ]
    pairwise = list(attrs.get("pairwise") or [])
    if pairwise:
        pair_rows = [
            [
                pair["judge_a"],
                pair["judge_b"],
                pair["n"],
                _interval(pair, "spearman"),
                _interval(pair, "kendall"),
                _fmt(pair.get("spearman_per_group")),
            ]
            for pair in pairwise
        ]
        parts.append(Markup("<h3>Agreement between the judges</h3>"))
        parts.append(
            table(
                ["judge", "judge", "n", "spearman", "kendall", "spearman per group"],
                pair_rows,
                css_class="pairwise",
            )
        )
    if "cost" in board.columns and len(board):
        parts.append(
            Markup("<div class='figures'>{}</div>").format(
                figure_block(
                    "Agreement against the cost of each judge's run.",
                    agreement_vs_cost(board),
                    "leaderboard",
                )
            )
        )
    return join(parts)


def _data_block(data: RowData) -> Markup:
    text = json.dumps(data.payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # Inside a script element, "</script>" (or "<!--") in the data would end it: escape the
    # characters HTML parsing looks at. JSON reads \u003c as "<" again.
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(
        "<script type='application/json' id='evaltoolkit-report-data'>{}</script>"
    ).format(Markup(text))


def _limit_note(data: RowData, max_items: int) -> Markup:
    if data.detailed >= data.rows:
        return Markup("<p id='limit-note' class='muted'></p>")
    reason = (
        "the report's size budget was reached"
        if data.budget_reached
        else f"max_items={max_items:,}"
    )
    return Markup(
        "<div id='limit-note' class='note warning'>This report holds drill-downs for {detailed} "
        "of {rows} rows ({reason}): the most disagreeing and the failed ones first, then in "
        "data order. The other rows are listed here with their scores only. To read every "
        "item, open the results in a notebook (evaltoolkit.read_results(path) and the "
        "ResultBrowser) or build the report with a larger max_items.</div>"
    ).format(detailed=f"{data.detailed:,}", rows=f"{data.rows:,}", reason=reason)


def _items_section(data: RowData, max_items: int) -> Markup:
    count = data.truncated_texts
    truncated = (
        Markup("<p class='muted'>{} cut to max_text_chars, as {} says.</p>").format(
            f"{count:,} long text{' is' if count == 1 else 's are'}",
            "it" if count == 1 else "each",
        )
        if count
        else Markup("")
    )
    return Markup(
        """<section id="items"><h2>Items</h2>
{limit}{truncated}
<p id="items-nojs" class="note warning">Filtering and the item drill-downs need JavaScript,
which is off in this viewer.</p>
<div id="items-app" hidden>
<div class="filters">
<label>scorer <select id="f-scorer"></select></label>
<label id="run-filter">run <select id="f-run"></select></label>
<label><input type="checkbox" id="f-failed"> failed only</label>
<label>|alignment - coverage| &ge; <input type="number" id="f-gap" min="0" max="1" step="0.05"
value="0" size="5"></label>
<label>order <select id="f-sort"><option value="data">data order</option>
<option value="gap">disagreement, largest first</option>
<option value="score-asc">score, lowest first</option>
<option value="score-desc">score, highest first</option></select></label>
</div>
<p id="showing" aria-live="polite"></p>
<div class="pager"><button type="button" id="prev">previous page</button>
<button type="button" id="next">next page</button></div>
<table id="items-table"><thead><tr><th>#</th>{run_header}<th>item</th><th>scorer</th>
<th>score</th><th>alignment</th><th>coverage</th><th>|a - c|</th><th>status</th>
<th>reason</th></tr></thead><tbody id="items-body"></tbody></table>
<div id="detail" aria-live="polite"><p class="muted">Pick an item to see its drill-down.</p></div>
</div></section>"""
    ).format(
        limit=_limit_note(data, max_items),
        truncated=truncated,
        run_header=Markup("<th>run</th>") if len(data.payload["runs"]) > 1 else Markup(""),
    )


def render_page(
    runs: Sequence[Run],
    data: RowData,
    *,
    title: str,
    leaderboard: pd.DataFrame | None,
    max_items: int,
    top_disagreements: int,
) -> str:
    """The whole page as text."""
    generated = dt.datetime.now(tz=dt.UTC)
    row_of: dict[int, int] = {}
    for run in runs:
        for item in run.result:
            for score in item.scorer_results.values():
                row_of[id(score)] = len(row_of)
    sections: list[object] = []
    nav: list[object] = []
    if leaderboard is not None:
        nav.append(Markup("<a href='#leaderboard'>Judge leaderboard</a>"))
        sections.append(
            Markup("<section id='leaderboard'><h2>Judge leaderboard</h2>{}</section>").format(
                _leaderboard(leaderboard)
            )
        )
    for index, run in enumerate(runs):
        anchor = f"run-{index + 1}"
        nav.append(Markup("<a href='#{}'>{}</a>").format(anchor, run.name))
        sections.append(
            Markup(
                "<section id='{anchor}' class='run'><h2>Run: {name}</h2>{metadata}"
                "<h3>Per-scorer summary</h3>{summary}<h3>Figures</h3>{figures}"
                "{disagreements}<h3>Prompts used</h3>{prompts}</section>"
            ).format(
                anchor=anchor,
                name=run.name,
                metadata=_metadata(run),
                summary=_summary(run),
                figures=_figures(run, index),
                disagreements=_disagreement_table(run, row_of, top_disagreements),
                prompts=_prompts(run),
            )
        )
    comparison = comparison_section(runs)
    if comparison is not None:
        nav.append(Markup("<a href='#comparison'>Comparison</a>"))
        sections.append(
            Markup("<section id='comparison'><h2>Is B - A real?</h2>{}</section>").format(
                comparison
            )
        )
    nav.append(Markup("<a href='#items'>Items</a>"))
    sections.append(_items_section(data, max_items))
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    # Nothing may be fetched: no default source, inline styles, and only this script.
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{script_hash}'; img-src 'none'; font-src 'none'; "
        "connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    page = Markup(
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta http-equiv='Content-Security-Policy' content=\"{policy}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<meta name='referrer' content='no-referrer'>"
        "<title>{title}</title><style>{style}</style></head><body><main>"
        "<header><h1>{title}</h1><p class='muted'>Built {generated} by evaltoolkit {version} "
        "from {runs} results set(s). Self-contained: it loads nothing from the network.</p>"
        "<nav>{nav}</nav></header>{sections}</main>{data}<script>{script}</script>"
        "</body></html>\n"
    ).format(
        policy=policy,
        title=title,
        style=Markup(STYLE),
        generated=f"{generated:%Y-%m-%d %H:%M} UTC",
        version=__version__,
        runs=len(runs),
        nav=join(nav),
        sections=join(sections),
        data=_data_block(data),
        script=Markup(SCRIPT),
    )
    # The toolkit's one list of secrets: the environment's keys and tokens, and the keys given
    # to judges in this process.
    return secret_masker(key_shapes=False).text(str(page), replacement="[secret removed]")

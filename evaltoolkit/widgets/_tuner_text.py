"""What the PromptTuner writes on screen: its intro, status, verdict and agreement tables."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._internal.html import Markup, esc, format_score, join, note, table
from ..meta import VERDICTS
from ..records import EvalResult

if TYPE_CHECKING:
    import pandas as pd

    from ..scorers import JudgedScorer, Scorer

__all__ = ["LEVEL_NAMES", "TunerText", "signed"]

_METRIC_NAMES = {
    "spearman": "Spearman",
    "kendall": "Kendall",
    "pearson": "Pearson",
    "auroc": "AUROC",
}
_CHANGE_TOLERANCE = 1e-12
_DEFAULT_GROUP = "doc_id"
_BETTER, _WORSE, _CANNOT_TELL, _LOST = VERDICTS
LEVEL_NAMES = {"per_group": "per-document", "pooled": "pooled", "system": "system-level"}


def signed(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return "0.000" if abs(value) < _CHANGE_TOLERANCE else f"{value:+.3f}"


def _interval(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return ""
    return f" [{low:.2f}, {high:.2f}]"


class TunerText:
    """The PromptTuner's texts, from its state (a base of :class:`PromptTuner` only)."""

    scorer: JudgedScorer
    baseline: Scorer | None
    _data: list[dict[str, Any]]
    _total_items: int
    _unreadable: int
    _seed: int | None
    setting_specs: tuple[Any, ...]
    label_column: str | None
    split: pd.Series | None
    group: str | None
    test_share: float
    axis: str
    level: str
    system: str | None
    offline: bool
    agreement: pd.DataFrame | None
    baseline_agreement: pd.DataFrame | None
    verdict: str | None

    def _primary_metric(self) -> str | None:
        raise NotImplementedError

    def _intro_html(self) -> Markup:
        judge = self.scorer.judge_model
        if len(self._data) == self._total_items - self._unreadable:
            drawn = "all of them"
        elif self._seed is None:
            drawn = "the first ones"
        else:
            drawn = f"drawn with seed {self._seed}"
        what = "offline settings and prompts" if self.setting_specs else "prompts"
        text = (
            f"Tuning the {self.scorer.id} {what} (judge: {judge}) on "
            f"{len(self._data)} of {self._total_items} items ({drawn})."
        )
        if self._unreadable:
            text += f" {self._unreadable} unreadable items are left out."
        if self.label_column:
            text += f" Human labels: {self.label_column}; agreement read on {self._what_is_read()}."
        if self.split is not None:
            counts = self.split.value_counts()
            kept = f"by {self.group!r}" if self.group else "item by item"
            text += (
                f" Split once ({kept}, test share {self.test_share:g}): tune on "
                f"{counts.get('tune', 0)} items, confirm on {counts.get('test', 0)} held-out "
                "items."
            )
        return Markup(f"<div>{esc(text)}</div>")

    def _what_is_read(self) -> str:
        """``"the final score, per document (doc_id)"``: the axis and level of the verdict."""
        axis = "the final score" if self.axis == "score" else f"the {self.axis} axis"
        if self.level == "per_group":
            where = "per document" if self.group == _DEFAULT_GROUP else f"per {self.group}"
            return f"{axis}, {where} ({self.group})"
        if self.level == "system":
            return f"{axis}, at the system level ({self.system} means)"
        return f"{axis}, pooled over the items"

    def _status_html(
        self,
        comparison: pd.DataFrame,
        after: EvalResult,
        edited: list[str],
        settings: dict[str, float],
    ) -> Markup:
        changes = [value for value in comparison["change"].tolist() if not math.isnan(value)]
        changed = sum(1 for value in changes if abs(value) > _CHANGE_TOLERANCE)
        mean = math.fsum(changes) / len(changes) if changes else math.nan
        failed = len(comparison) - len(changes)
        text = (
            f"Scored {len(comparison)} items before and after: {changed} changed, mean change "
            f"{signed(mean)}."
        )
        if failed:
            text += f" {failed} items failed in one of the runs (no change computed)."
        text += f" Edited templates: {', '.join(edited) or 'none'}."
        if self.setting_specs:
            shown = ", ".join(f"{name}={value:g}" for name, value in settings.items())
            text += f" Changed settings: {shown or 'none'}."
        parts: list[object] = [Markup(f"<div class='evaltoolkit-status'>{esc(text)}</div>")]
        if self.offline and not settings:
            advice = (
                "change its settings in the 'offline settings' tab, or use a model judge to "
                "tune prompts"
                if self.setting_specs
                else "use a model judge to tune them"
            )
            parts.append(
                note(
                    f"Scores are unchanged because the offline judge ignores prompts; {advice}.",
                    kind="warning",
                )
            )
        elif not self.offline:
            calls = [
                call
                for item in after
                for result in item.scorer_results.values()
                for call in result.calls
            ]
            cached = sum(1 for call in calls if call.cached)
            cache_text = (
                f"{cached} of {len(calls)} judge calls of the edited run came from the judge "
                "cache (unchanged prompts cost nothing)."
            )
            parts.append(Markup(f"<div>{esc(cache_text)}</div>"))
        return join(parts)

    def _results_html(self, comparison: pd.DataFrame) -> Markup:
        """The verdict, then the agreement on each part and the baseline (the items are in
        the paged table below)."""
        if self.agreement is None or not self.label_column:
            changes = [value for value in comparison["change"].tolist() if not math.isnan(value)]
            changed = sum(1 for value in changes if abs(value) > _CHANGE_TOLERANCE)
            return Markup("<div class='evaltoolkit-verdict'>{}</div>").format(
                f"No verdict without labels: {changed} of {len(comparison)} scores changed."
            )
        return join(self._agreement_html(self.agreement))

    def _agreement_html(self, agreement: pd.DataFrame) -> list[object]:
        agreement_rows = [
            (
                row["part"],
                _METRIC_NAMES.get(str(row["metric"]), str(row["metric"])),
                f"{format_score(row['before'])}",
                f"{format_score(row['after'])}",
                f"{signed(float(row['change']))}"
                f"{_interval(row['change_ci_low'], row['change_ci_high'])}",
                row["n"],
                row["verdict"] or "",
                row["note"],
            )
            for row in agreement.to_dict(orient="records")
        ]
        if self.level == "system":
            resampled = f"{self.group or 'item'} groups and {self.system} systems together"
        else:
            resampled = f"{self.group} groups" if self.group else "items"
        parts: list[object] = [
            self._verdict_html(agreement),
            Markup(
                "<h4 style='margin:6px 0 4px 0'>Agreement with {label} before and after, "
                "{what} (change with a 95% paired bootstrap interval over {resampled})</h4>"
            ).format(label=self.label_column, what=self._what_is_read(), resampled=resampled),
            table(
                ["part", "metric", "before", "after", "change", "n", "verdict", "note"],
                agreement_rows,
                css_class="evaltoolkit-agreement",
            ),
        ]
        parts.append(self._baseline_html())
        return parts

    def _baseline_html(self) -> Markup:
        """One line per part: the edited judge against the baseline, paired."""
        metric = self._primary_metric()
        table = self.baseline_agreement
        if table is None or metric is None or self.baseline is None:
            return Markup("")
        rows = table[table["metric"] == metric].to_dict(orient="records")
        shown = "; ".join(
            f"{row['part']} part: judge {format_score(row['after'])} vs baseline "
            f"{format_score(row['before'])}, difference {signed(float(row['change']))}"
            f"{_interval(row['change_ci_low'], row['change_ci_high'])}"
            for row in rows
        )
        text = (
            f"Beside the {self.baseline.id} baseline ({self._verdict_name(metric)}, the edited "
            f"judge against the baseline on the same resamples): {shown}."
        )
        return Markup("<div class='evaltoolkit-baseline'>{}</div>").format(text)

    def _verdict_name(self, metric: str) -> str:
        """``"per-document Spearman of the final score"``: what the verdict is read on."""
        axis = "the final score" if self.axis == "score" else f"the {self.axis} axis"
        level = LEVEL_NAMES[self.level]
        if self.level == "per_group" and self.group != _DEFAULT_GROUP:
            level = f"per-{self.group}"
        return f"{level} {_METRIC_NAMES.get(metric, metric)} of {axis}"

    def _verdict_html(self, agreement: pd.DataFrame) -> Markup:
        metric = self._primary_metric()
        if metric is None:
            return Markup("")
        name = self._verdict_name(metric)
        rows = {
            str(row["part"]): row
            for row in agreement[agreement["metric"] == metric].to_dict(orient="records")
        }
        if self.split is None or "tune" not in rows or "test" not in rows:
            text = (
                f"No verdict: the {name} was measured on the items it was tuned on only "
                "(no held-out test part)."
            )
            return Markup("<div class='evaltoolkit-verdict'>{}</div>").format(text)
        tune, test = rows["tune"], rows["test"]
        documents = "documents" if self.group == _DEFAULT_GROUP else f"{self.group} groups"
        meaning = {
            _BETTER: "the test interval lies above 0: agreement rose on documents the edit was "
            "not tuned on; this is the one verdict that supports keeping the edit",
            _WORSE: "the test interval lies below 0: agreement fell on documents the edit was "
            "not tuned on; do not keep the edit",
            _CANNOT_TELL: "the test part cannot tell the change from noise (its interval "
            "includes 0, or it has too few documents for a verdict); this is no reason to keep "
            "the edit",
            _LOST: "after the edit every test item gets one and the same score, which was "
            "not so before: the judge no longer tells them apart; do not keep the edit",
        }.get(str(self.verdict), "")
        if self.verdict == _LOST and self.group:
            meaning = (
                f"after the edit each of the {test['groups']:.0f} test {documents} gives all "
                "its items one score, which it did not before: the judge no longer tells them "
                "apart, whatever a pooled figure says; do not keep the edit"
            )
        text = (
            f"Verdict ({name}): {self.verdict}. Tune part: {signed(float(tune['change']))}"
            f"{_interval(tune['change_ci_low'], tune['change_ci_high'])} over {tune['n']} "
            f"items; test part: {signed(float(test['change']))}"
            f"{_interval(test['change_ci_low'], test['change_ci_high'])} over {test['n']} "
            f"items; {meaning}."
        )
        return Markup("<div class='evaltoolkit-verdict'><b>{}</b></div>").format(text)

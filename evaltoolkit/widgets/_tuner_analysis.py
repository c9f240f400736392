"""How the PromptTuner reads a run: the comparison, the agreement, the verdict, the evidence."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..meta import agreement_change, compare_scores
from ..records import EvalResult
from ..runner import arun_evals
from ._tuner_text import TunerText

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TunerAnalysis"]

_PART_COLUMN = "part"


class TunerAnalysis(TunerText):
    """How the PromptTuner reads its runs (a base of :class:`PromptTuner` only)."""

    concurrency: int
    n_bootstrap: int
    _before: EvalResult | None
    _baseline_run: EvalResult | None

    def _compare(self, after: EvalResult) -> pd.DataFrame:
        assert self._before is not None
        fields = [self.group] if self.group and self.label_column else []
        if self.system and self.label_column:
            fields.append(self.system)
        comparison = compare_scores(
            self._before, after, score=self.axis, label=self.label_column, fields=fields
        )
        if self.split is not None:
            comparison[_PART_COLUMN] = [self.split[item_id] for item_id in comparison["item_id"]]
        return comparison

    def _agreement(self, comparison: pd.DataFrame) -> pd.DataFrame | None:
        if not self.label_column:
            return None
        return agreement_change(
            comparison,
            self.label_column,
            group=self.group,
            split=_PART_COLUMN if self.split is not None else None,
            level=self.level,
            system=self.system,
            n_bootstrap=self.n_bootstrap,
            seed=0 if self._seed is None else self._seed,
        )

    async def _against_baseline(self, after: EvalResult) -> pd.DataFrame | None:
        """The baseline's agreement on each part ("before") against the edited judge's
        ("after"), the change being the judge's paired lead over the baseline."""
        if self.baseline is None or not self.label_column:
            return None
        if self._baseline_run is None:
            self._baseline_run = await arun_evals(
                self._data, self.baseline, concurrency=self.concurrency, progress=False
            )
        fields = [self.group] if self.group else []
        if self.system:
            fields.append(self.system)
        table = compare_scores(
            self._baseline_run, after, score=self.axis, label=self.label_column, fields=fields
        )
        if self.split is not None:
            table[_PART_COLUMN] = [self.split[item_id] for item_id in table["item_id"]]
        return agreement_change(
            table,
            self.label_column,
            group=self.group,
            split=_PART_COLUMN if self.split is not None else None,
            level=self.level,
            system=self.system,
            n_bootstrap=self.n_bootstrap,
            seed=0 if self._seed is None else self._seed,
        )

    def _primary_metric(self) -> str | None:
        """The metric the verdict is read on: AUROC for pooled boolean labels, else Spearman."""
        if self.agreement is None or not len(self.agreement):
            return None
        metrics = list(self.agreement["metric"])
        return "auroc" if "auroc" in metrics else str(metrics[0])

    def _verdict(self) -> str | None:
        metric = self._primary_metric()
        if self.agreement is None or self.split is None or metric is None:
            return None
        rows = self.agreement[
            (self.agreement["part"] == "test") & (self.agreement["metric"] == metric)
        ]
        return str(rows["verdict"].iloc[0]) if len(rows) and rows["verdict"].iloc[0] else None

    def _evidence(self) -> dict[str, Any]:
        """The last run's agreement on each part, by part and metric, as plain values."""
        evidence: dict[str, Any] = {}
        if self.agreement is None:
            return evidence
        for row in self.agreement.to_dict(orient="records"):
            figures = {
                key: (None if isinstance(value, float) and math.isnan(value) else value)
                for key, value in row.items()
                if key in ("before", "after", "change", "change_ci_low", "change_ci_high", "n")
            }
            if not (isinstance(row["groups"], float) and math.isnan(row["groups"])):
                figures["groups"] = int(row["groups"])
            evidence.setdefault(str(row["part"]), {})[str(row["metric"])] = figures
        return evidence

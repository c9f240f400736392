"""The record of a judge comparison: the leaderboard, and the runs and paired intervals behind it.

:class:`JudgeComparison` is what :func:`~evaltoolkit.meta.compare_judges` returns with
``keep_runs=True``: each judge's run, the agreement between each pair of judges, and
:meth:`JudgeComparison.paired`, the paired bootstrap interval of two judges' difference in
agreement (the same documents resampled for both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..records import EvalResult
from ._evaluate import SYSTEM_COLUMN, MetaEvaluation
from .stats.resampling import few_note

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["JudgeComparison"]

#: Per-group metrics of :meth:`JudgeComparison.paired`, by leaderboard column name.
_PER_GROUP_METRICS = {"spearman_per_group": "spearman", "kendall_per_group": "kendall"}
#: Pooled metrics of :meth:`JudgeComparison.paired`.
_POOLED_METRICS = ("spearman", "kendall", "pearson", "auroc")
#: The system-level metric of :meth:`JudgeComparison.paired`.
_SYSTEM_METRIC = "spearman_system"


@dataclass(slots=True)
class JudgeComparison:
    """What :func:`compare_judges` returns with ``keep_runs=True``: the leaderboard and what is
    behind it.

    Attributes:
        leaderboard: One row per judge, best agreement first: what :func:`compare_judges`
            returns.
        pairwise: One row per pair of judges: how far their scores agree (the records of
            ``leaderboard.attrs["pairwise"]`` as a DataFrame).
        evaluations: Each judge's :class:`~evaltoolkit.meta.MetaEvaluation` (its scores per
            labelled item, its agreement table and the run behind them), by judge name.
    """

    leaderboard: pd.DataFrame
    pairwise: pd.DataFrame
    evaluations: dict[str, MetaEvaluation]

    @property
    def results(self) -> dict[str, EvalResult]:
        """Each judge's scoring run, by judge name: for the views, the plots and the report."""
        return {name: evaluation.result for name, evaluation in self.evaluations.items()}

    @property
    def score(self) -> str:
        """The score column the judges were compared on."""
        return str(self.leaderboard.attrs["score"])

    @property
    def label(self) -> str:
        """The human label column."""
        return str(self.leaderboard.attrs["label"])

    @property
    def group(self) -> str | None:
        """The column grouping the items (documents), if any."""
        group = self.leaderboard.attrs.get("group")
        return None if group is None else str(group)

    def _column(self, name: str) -> str:
        """The score column of judge ``name`` compared (its final score for a baseline)."""
        columns = self.leaderboard.attrs.get("columns") or {}
        return str(columns.get(name, self.score))

    def _judge(self, name: str) -> MetaEvaluation:
        if name not in self.evaluations:
            raise ConfigurationError(
                f"no judge {name!r} in this comparison; its judges are "
                f"{', '.join(map(repr, self.evaluations))}"
            )
        return self.evaluations[name]

    def items(self) -> pd.DataFrame:
        """One row per labelled item: its fields and every judge's score, side by side.

        Returns:
            ``item_id``, the label, the group and ``system_id`` (where the data has them),
            then one column per judge (named after it) holding its score on the compared
            score column, in data order.

        Example:
            >>> import evaltoolkit as et
            >>> comparison = et.compare_judges(
            ...     "data/demo_summaries.jsonl",
            ...     {"5 questions": et.create_summarization_scorer(max_questions=5),
            ...      "10 questions": et.create_summarization_scorer(max_questions=10)},
            ...     label="human_score", input_col="input", output_col="output",
            ...     n_bootstrap=0, progress=False, keep_runs=True)
            >>> comparison.items().columns.tolist()
            ['item_id', 'human_score', 'doc_id', '5 questions', '10 questions']
        """
        first = next(iter(self.evaluations.values()))
        scored = set(first.score_columns)
        fields = [column for column in first.scores.columns if column not in scored]
        table = first.scores[fields].copy()
        for name, evaluation in self.evaluations.items():
            if name in table.columns:
                raise ConfigurationError(
                    f"judge {name!r} has the name of an item field; rename the judge"
                )
            table[name] = evaluation.scores[self._column(name)].astype(float).to_numpy()
        return table

    def disagreements(self, a: str, b: str, *, top: int | None = 10) -> pd.DataFrame:
        """The items on which two judges' scores differ most, largest gap first.

        Args:
            a: One judge's name.
            b: The other judge's name.
            top: How many items to keep (None: all of them).

        Returns:
            The columns of :meth:`items` for the two judges, plus ``difference`` (a - b)
            and ``gap`` (its absolute value); items that failed with either judge last.

        Example:
            >>> import evaltoolkit as et
            >>> comparison = et.compare_judges(
            ...     "data/demo_summaries.jsonl",
            ...     {"default": et.create_summarization_scorer(),
            ...      "strict": et.create_summarization_scorer(
            ...          offline_settings={"answer_share": 1.0})},
            ...     label="human_score", score="coverage", input_col="input",
            ...     output_col="output", n_bootstrap=0, progress=False, keep_runs=True)
            >>> table = comparison.disagreements("default", "strict", top=3)
            >>> bool((table["gap"].diff().dropna() <= 0).all())
            True
        """
        self._judge(a), self._judge(b)
        table = self.items()
        others = [name for name in self.evaluations if name not in (a, b)]
        table = table.drop(columns=others)
        table["difference"] = table[a] - table[b]
        table["gap"] = table["difference"].abs()
        table = table.sort_values("gap", ascending=False, na_position="last", kind="stable")
        table = table.reset_index(drop=True)
        return table if top is None else table.head(top)

    def paired(
        self,
        a: str,
        b: str,
        *,
        metric: str | None = None,
        n_bootstrap: int = 1000,
        confidence: float = 0.95,
        seed: int = 0,
    ) -> pd.DataFrame:
        """The difference between two judges' agreement with the label, with a paired interval.

        Two judges scored the same items, so their agreement figures are not independent:
        overlapping intervals of each judge alone say little about their difference. Each
        bootstrap resample here draws documents (the ``group``; items without one) once and
        measures both judges on that same draw; the interval is the percentile interval of
        the resampled differences. Items either judge failed are left out of both.

        - Per-document metrics (``spearman_per_group``, ``kendall_per_group``): each
          document's correlation for each judge (:func:`scipy.stats.spearmanr`,
          :func:`scipy.stats.kendalltau`; documents with fewer than 3 items or equal labels
          left out; a document whose scores a judge gives all alike counts 0 for that
          judge, which ranks none of its summaries), the mean of the per-document
          differences, documents resampled with a seeded numpy Generator.
        - Pooled metrics (``spearman``, ``kendall``, ``pearson``, ``auroc`` for boolean
          labels): both judges' figures on each resample of documents (or items), as
          :func:`~evaltoolkit.meta.agreement_change` computes a change.
        - ``spearman_system`` (data with a ``system_id``): each system's mean score against
          its mean label, over systems; the boot-both interval resamples documents and
          systems together (Deutsch, Dror and Roth 2021).

        Args:
            a: One judge's name.
            b: The other judge's name.
            metric: The agreement metric (default: the leaderboard's ranking metric).
            n_bootstrap: Bootstrap resamples (0 leaves the interval NaN).
            confidence: Coverage of the interval.
            seed: Seed of the bootstrap.

        Returns:
            One row: ``judge_a``, ``judge_b``, ``metric``, ``agreement_a``,
            ``agreement_b``, ``difference`` (a - b), ``ci_low``, ``ci_high``, ``n`` (items
            used), ``groups`` (documents used, systems for ``spearman_system``; NaN without
            a group) and ``note`` (fewer than 10 documents, items or systems, or documents a
            judge scored alike; else "").

        Raises:
            ConfigurationError: An unknown judge or metric.

        Example:
            >>> import evaltoolkit as et
            >>> comparison = et.compare_judges(
            ...     "data/demo_summaries.jsonl",
            ...     {"default": et.create_summarization_scorer(),
            ...      "strict": et.create_summarization_scorer(
            ...          offline_settings={"answer_share": 1.0})},
            ...     label="human_score", score="coverage", input_col="input",
            ...     output_col="output", n_bootstrap=0, progress=False, keep_runs=True)
            >>> row = comparison.paired("default", "strict", n_bootstrap=200).iloc[0]
            >>> row["metric"], float(row["groups"])  # a document scored alike counts 0
            ('spearman_per_group', 5.0)
            >>> bool(row["ci_low"] <= row["difference"] <= row["ci_high"])
            True
        """
        import numpy as np
        import pandas as pd

        first, second = self._judge(a), self._judge(b)
        chosen = metric or str(self.leaderboard.attrs.get("metric", "spearman"))
        known = [*_PER_GROUP_METRICS, *_POOLED_METRICS, _SYSTEM_METRIC]
        if chosen not in known:
            raise ConfigurationError(
                f"paired: unknown metric {chosen!r}; choose one of {', '.join(known)}"
            )
        systems = first.scores.get(SYSTEM_COLUMN)
        if chosen == _SYSTEM_METRIC and systems is None:
            raise ConfigurationError(
                f"paired: {chosen} needs a {SYSTEM_COLUMN!r} column in the data; use "
                "metric='spearman'"
            )
        if chosen in _PER_GROUP_METRICS and self.group is None:
            raise ConfigurationError(
                f"paired: {chosen} needs documents, and this comparison has no group; "
                "use metric='spearman' or compare with group="
            )
        if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
            raise ConfigurationError(
                f"paired: n_bootstrap must be a non-negative integer, got {n_bootstrap!r}"
            )
        if not 0.0 < confidence < 1.0:
            raise ConfigurationError(
                f"paired: confidence must lie strictly between 0 and 1, got {confidence!r}"
            )
        scores_a = first.scores[self._column(a)].astype(float).to_numpy()
        scores_b = second.scores[self._column(b)].astype(float).to_numpy()
        labels = first.scores[self.label].astype(float).to_numpy()
        usable = np.isfinite(scores_a) & np.isfinite(scores_b) & np.isfinite(labels)
        groups = first.scores[self.group].to_numpy()[usable] if self.group else None
        if chosen == _SYSTEM_METRIC:
            assert systems is not None
            values = _paired_system(
                scores_a[usable],
                scores_b[usable],
                labels[usable],
                systems.to_numpy()[usable],
                groups,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed=seed,
            )
        elif chosen in _PER_GROUP_METRICS:
            assert groups is not None
            values = _paired_per_group(
                scores_a[usable],
                scores_b[usable],
                labels[usable],
                groups,
                statistic=_PER_GROUP_METRICS[chosen],
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed=seed,
            )
        else:
            values = _paired_pooled(
                scores_a[usable],
                scores_b[usable],
                labels[usable],
                groups,
                binary=bool((first.agreement["metric"] == "auroc").any()),
                metric=chosen,
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed=seed,
            )
        return pd.DataFrame([{"judge_a": a, "judge_b": b, "metric": chosen, **values}])


def _paired_per_group(
    scores_a: Any,
    scores_b: Any,
    labels: Any,
    groups: Any,
    *,
    statistic: str,
    n_bootstrap: int,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """Per-document correlations of two judges, the mean difference and its interval."""
    import numpy as np
    import pandas as pd

    from .stats.levels import paired_per_group

    codes = np.asarray(pd.factorize(pd.Series(list(groups), dtype=object))[0], dtype=np.intp)
    row = paired_per_group(
        scores_b,  # "before": the change after - before is then a - b
        scores_a,
        labels,
        codes,
        statistic=statistic,
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        seed_sequence=np.random.SeedSequence(seed),
    )
    notes = [few_note(int(row["groups"]), "documents")]
    for name, which in (("a", "after"), ("b", "before")):
        if row[f"constant_{which}"]:
            notes.append(
                f"judge {name} scored all the items of {row[f'constant_{which}']} of "
                f"{int(row['groups'])} documents alike (each counted as 0)"
            )
    return _as_pair(row, "; ".join(note for note in notes if note))


def _paired_system(
    scores_a: Any,
    scores_b: Any,
    labels: Any,
    systems: Any,
    groups: Any,
    *,
    n_bootstrap: int,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """System-level Spearman of two judges on the same boot-both resamples."""
    import numpy as np
    import pandas as pd

    from .stats.levels import paired_system

    def codes(values: Any) -> Any:
        return np.asarray(pd.factorize(pd.Series(list(values), dtype=object))[0], dtype=np.intp)

    units = codes(groups) if groups is not None else np.arange(len(labels))
    row = paired_system(
        scores_b,
        scores_a,
        labels,
        codes(systems),
        units,
        statistic="spearman",
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        seed_sequence=np.random.SeedSequence(seed),
    )
    return _as_pair(row, few_note(int(row["groups"]), "systems"))


def _paired_pooled(
    scores_a: Any,
    scores_b: Any,
    labels: Any,
    groups: Any,
    *,
    binary: bool,
    metric: str,
    n_bootstrap: int,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """A pooled metric of two judges on the same resamples of documents (or items)."""
    import numpy as np
    import pandas as pd

    from ._held_out import paired_change

    codes = None
    if groups is not None:
        codes = np.asarray(pd.factorize(pd.Series(list(groups), dtype=object))[0], dtype=np.intp)
    rows = paired_change(
        scores_b,  # "before": the change after - before is then a - b
        scores_a,
        labels,
        binary=binary,
        metrics=[metric],
        group_codes=codes,
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        seed_sequence=np.random.SeedSequence(seed),
    )
    if not rows:
        raise ConfigurationError(
            f"paired: the metric {metric!r} does not apply to this label"
            + (" (AUROC needs a boolean label)" if metric == "auroc" else "")
        )
    row = rows[0]
    units = int(row["n"]) if groups is None else int(row["groups"])
    return _as_pair(row, few_note(units, "items" if groups is None else "documents"))


def _as_pair(row: Mapping[str, Any], note: str) -> dict[str, Any]:
    """A before/after change row as two judges' figures: b was "before", a "after"."""
    return {
        "agreement_a": row["after"],
        "agreement_b": row["before"],
        "difference": row["change"],
        "ci_low": row["change_ci_low"],
        "ci_high": row["change_ci_high"],
        "n": row["n"],
        "groups": row["groups"],
        "note": note,
    }

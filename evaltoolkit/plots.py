"""Matplotlib figures of results: the two summarization axes, score histograms, score vs label.

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot, so it works in
scripts, in tests and on servers without a display; in Jupyter the returned figure shows
itself. Each accepts an :class:`~evaltoolkit.EvalResult`, the path of saved results, or a
DataFrame: the long rows of ``result.to_frame()`` (one row per item and scorer) or, for the
first two, the wide rows of ``result.to_wide()``. Results and exports are read through
:mod:`evaltoolkit.records` (``read_results``, ``EvalResult.from_frame``); any other DataFrame
is read by its column names.

Example:
    >>> import evaltoolkit as et
    >>> from evaltoolkit.plots import axis_scatter
    >>> result = et.run_evals("data/demo_summaries.jsonl", et.create_summarization_scorer(),
    ...                       progress=False)
    >>> figure = axis_scatter(result, threshold=0.3)
    >>> figure.axes[0].get_xlabel()
    'alignment (supported claims / claims)'
"""

from __future__ import annotations

import io
import math
import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ConfigurationError
from .records import EvalResult, read_results
from .records._internal import frame_layout, number_or_nan
from .scorers._internal import SUMMARIZATION_ID, deciding_axis

if TYPE_CHECKING:
    from typing import TypeAlias

    import pandas as pd

    #: What the figures read: a result, the path of saved results, or a DataFrame of rows.
    Results: TypeAlias = EvalResult | pd.DataFrame | str | os.PathLike[str]

__all__ = [
    "AxisPoint",
    "agreement_vs_cost",
    "axis_points",
    "axis_scatter",
    "draw_axis_scatter",
    "paired_differences",
    "score_histograms",
    "score_vs_label",
]

#: Colour and marker of each deciding axis (marker shapes too, so the plot reads without colour).
AXIS_STYLES: dict[str, tuple[str, str]] = {
    "alignment": ("#d1495b", "o"),
    "coverage": ("#2e86ab", "s"),
    "tie": ("#6c757d", "^"),
}
_BASE_MARKER_SIZE = 36.0
_SIZE_PER_SHARED_ITEM = 28.0
_STRIP_JITTER = 0.08
_LEGEND_GROUPS_MAX = 12


def _figure(figsize: tuple[float, float]) -> Any:
    """A new Figure, not registered with pyplot (no global state, no display needed)."""
    from matplotlib.figure import Figure  # a dependency, imported when a figure is drawn

    _show_figures_in_notebooks(Figure)
    return Figure(figsize=figsize, layout="constrained")


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def _show_figures_in_notebooks(figure_class: type) -> None:
    """Let a notebook show a returned Figure as a picture, as pyplot's inline backend would.

    The figures here never touch pyplot, so nothing taught IPython to draw them: a cell
    ending in ``axis_scatter(result)`` showed ``<Figure size ...>``. Outside IPython, and
    where a PNG formatter for figures is already registered, this does nothing.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["image/png"]
    if not _has_type(formatter, figure_class):
        formatter.for_type(figure_class, _png)


def _has_type(formatter: Any, figure_class: type) -> bool:
    try:
        formatter.lookup_by_type(figure_class)
    except KeyError:
        return False
    return True


def _as_result(value: Results) -> EvalResult | None:
    """The EvalResult of a result, a saved file or an export's rows; None for other frames."""
    if isinstance(value, EvalResult):
        return value
    if isinstance(value, str | os.PathLike):
        return read_results(value)
    if frame_layout(value) is not None:
        return EvalResult.from_frame(value)
    return None


def _as_frame(result_or_frame: Results) -> pd.DataFrame:
    result = _as_result(result_or_frame)
    if result is not None:
        return result.to_frame()
    if hasattr(result_or_frame, "columns") and hasattr(result_or_frame, "to_dict"):
        frame: pd.DataFrame = result_or_frame  # type: ignore[assignment]
        return frame
    raise ConfigurationError(
        "expected an EvalResult or a DataFrame of its rows (or the path of saved results), "
        f"got {type(result_or_frame).__name__}"
    )


@dataclass(frozen=True, slots=True)
class AxisPoint:
    """One item's two summarization axes.

    Attributes:
        item_id: The item's id.
        alignment: Supported claims / claims (NaN for a failed item).
        coverage: Answered questions / questions (NaN for a failed item).
        decided_by: The axis that decided the score: ``alignment``, ``coverage`` or ``tie``
            (``failed`` for an item that could not be scored).

    Example:
        >>> AxisPoint("a", alignment=1.0, coverage=0.25, decided_by="coverage").disagreement
        0.75
    """

    item_id: Any
    alignment: float
    coverage: float
    decided_by: str

    @property
    def disagreement(self) -> float:
        """|alignment - coverage| (NaN for a failed item)."""
        return abs(self.alignment - self.coverage)

    @property
    def failed(self) -> bool:
        """Whether the item has no axis scores (it could not be scored)."""
        return math.isnan(self.alignment) or math.isnan(self.coverage)


def axis_points(result_or_frame: Results, *, scorer: str = SUMMARIZATION_ID) -> list[AxisPoint]:
    """Every item's alignment and coverage under one scorer, in data order.

    Args:
        result_or_frame: An EvalResult, ``result.to_frame()`` or ``result.to_wide()``.
        scorer: The summarization scorer's id in the run.

    Raises:
        ConfigurationError: The rows hold no such scorer, or it has no axis scores.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"item_id": ["a"], "scorer": ["summarization"], "score": [0.5],
        ...                       "alignment_score": [0.5], "coverage_score": [1.0]})
        >>> axis_points(frame)[0].decided_by
        'alignment'
    """
    result = _as_result(result_or_frame)
    if result is not None:
        return _result_axis_points(result, scorer)
    frame = _as_frame(result_or_frame)
    if "scorer" in frame.columns:
        present = [str(name) for name in dict.fromkeys(frame["scorer"].tolist())]
        if scorer not in present:
            raise _no_such_scorer(scorer, present)
        frame = frame[frame["scorer"] == scorer]
        alignment_column, coverage_column, decided_column = (
            "alignment_score",
            "coverage_score",
            "decided_by",
        )
    else:
        alignment_column, coverage_column, decided_column = (
            f"{scorer}.alignment_score",
            f"{scorer}.coverage_score",
            f"{scorer}.decided_by",
        )
    error_column = "error" if "scorer" in frame.columns else f"{scorer}.error"
    every_item_failed = (
        len(frame) > 0 and error_column in frame.columns and frame[error_column].notna().all()
    )
    for column in (alignment_column, coverage_column):
        if column not in frame.columns:
            if not every_item_failed:
                raise _no_axes(scorer, column)
            frame = frame.assign(**{column: math.nan})  # each item is a failed point
    item_ids = frame["item_id"].tolist() if "item_id" in frame.columns else list(range(len(frame)))
    alignments = [number_or_nan(value) for value in frame[alignment_column].tolist()]
    coverages = [number_or_nan(value) for value in frame[coverage_column].tolist()]
    decided = (
        frame[decided_column].tolist() if decided_column in frame.columns else [None] * len(frame)
    )
    return [
        _axis_point(item_id, alignment, coverage, decided_by)
        for item_id, alignment, coverage, decided_by in zip(
            item_ids, alignments, coverages, decided, strict=True
        )
    ]


def _no_such_scorer(scorer: str, present: Sequence[str]) -> ConfigurationError:
    return ConfigurationError(
        f"no rows of scorer {scorer!r}; the rows hold {list(present)}. Pass scorer= with one "
        "of them."
    )


def _no_axes(scorer: str, column: str) -> ConfigurationError:
    return ConfigurationError(
        f"no column {column!r}: scorer {scorer!r} has no alignment and coverage scores "
        "(only the summarization scorer does)"
    )


def _axis_point(item_id: Any, alignment: float, coverage: float, decided_by: Any) -> AxisPoint:
    if math.isnan(alignment) or math.isnan(coverage):
        axis = "failed"
    elif isinstance(decided_by, str) and decided_by in AXIS_STYLES:
        axis = decided_by
    else:
        axis = deciding_axis(alignment, coverage)
    return AxisPoint(item_id, alignment, coverage, axis)


def _result_axis_points(result: EvalResult, scorer: str) -> list[AxisPoint]:
    if scorer not in result.scorer_ids:
        raise _no_such_scorer(scorer, result.scorer_ids)
    scores = [(item.item_id, item.scorer_results.get(scorer)) for item in result]
    every_item_failed = bool(scores) and all(
        score is None or score.error is not None for _, score in scores
    )
    if not every_item_failed and not any(
        score is not None and "alignment_score" in score.details for _, score in scores
    ):
        raise _no_axes(scorer, "alignment_score")
    return [
        _axis_point(
            item_id,
            number_or_nan(score.details.get("alignment_score")),
            number_or_nan(score.details.get("coverage_score")),
            score.details.get("decided_by"),
        )
        for item_id, score in scores
        if score is not None
    ]


def axis_scatter(
    result_or_frame: Results,
    *,
    scorer: str = SUMMARIZATION_ID,
    threshold: float | None = None,
    highlight: Any = None,
    figsize: tuple[float, float] = (5.2, 5.6),
) -> Any:
    """Alignment against coverage per item, coloured by the axis that decided the score.

    Items sharing a point draw one larger marker with their count beside it. The dashed
    diagonal is alignment = coverage; with ``threshold``, the dotted lines bound the band
    |alignment - coverage| < threshold, so the items outside it are the disagreeing ones.

    Args:
        result_or_frame: An EvalResult, ``result.to_frame()`` or ``result.to_wide()``.
        scorer: The summarization scorer's id in the run.
        threshold: Draw the disagreement band of this half-width (0 to 1).
        highlight: An item id to ring (the item selected in a view).
        figsize: Figure size in inches.

    Returns:
        A :class:`matplotlib.figure.Figure` with one axes: one scatter collection per deciding
        axis present, plus a ring for the highlighted item.

    Raises:
        ConfigurationError: No such scorer, or one without axis scores.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"item_id": ["a", "b"], "scorer": "summarization",
        ...                       "score": [0.5, 0.2], "alignment_score": [0.5, 1.0],
        ...                       "coverage_score": [1.0, 0.2]})
        >>> len(axis_scatter(frame).axes[0].collections)
        2
    """
    return draw_axis_scatter(
        axis_points(result_or_frame, scorer=scorer),
        scorer=scorer,
        threshold=threshold,
        highlight=highlight,
        figsize=figsize,
    )


def draw_axis_scatter(
    points: Sequence[AxisPoint],
    *,
    scorer: str = SUMMARIZATION_ID,
    threshold: float | None = None,
    highlight: Any = None,
    figsize: tuple[float, float] = (5.2, 5.6),
) -> Any:
    """The figure of :func:`axis_scatter`, drawn from points already extracted.

    Example:
        >>> points = [AxisPoint("a", 1.0, 0.2, "coverage"), AxisPoint("b", 0.5, 0.5, "tie")]
        >>> [c.get_label() for c in draw_axis_scatter(points).axes[0].collections]
        ['decided by coverage (1)', 'decided by tie (1)']
    """
    figure = _figure(figsize)
    ax = figure.subplots()
    ax.plot(
        [0, 1],
        [0, 1],
        linestyle="--",
        color="#999999",
        linewidth=1,
        zorder=1,
        label="alignment = coverage",
    )
    if threshold is not None and threshold > 0:
        band = min(float(threshold), 1.0)
        ax.plot(
            [band, 1],
            [0, 1 - band],
            linestyle=":",
            color="#555555",
            linewidth=1,
            zorder=1,
            label=f"|alignment - coverage| = {band:.2f}",
        )
        ax.plot([0, 1 - band], [band, 1], linestyle=":", color="#555555", linewidth=1, zorder=1)

    scored = [point for point in points if not point.failed]
    for axis, (colour, marker) in AXIS_STYLES.items():
        shared = Counter(
            (point.alignment, point.coverage) for point in scored if point.decided_by == axis
        )
        if not shared:
            continue
        coordinates = list(shared)
        ax.scatter(
            [x for x, _ in coordinates],
            [y for _, y in coordinates],
            s=[_BASE_MARKER_SIZE + _SIZE_PER_SHARED_ITEM * (shared[c] - 1) for c in coordinates],
            c=colour,
            marker=marker,
            alpha=0.75,
            edgecolors="white",
            linewidths=0.8,
            zorder=3,
            label=f"decided by {axis} ({sum(shared.values())})",
        )
        for (x, y), count in shared.items():
            if count > 1:
                ax.annotate(
                    str(count),
                    (x, y),
                    xytext=(6, 4),
                    textcoords="offset points",
                    fontsize=8,
                    color=colour,
                )
    chosen = [point for point in scored if highlight is not None and point.item_id == highlight]
    if chosen:
        ax.scatter(
            [chosen[0].alignment],
            [chosen[0].coverage],
            s=220,
            facecolors="none",
            edgecolors="black",
            linewidths=1.6,
            zorder=4,
            label=f"selected: {highlight}",
        )

    failed = len(points) - len(scored)
    title = f"{scorer}: alignment vs coverage ({len(scored)} items)"
    if failed:
        title += f"\n{failed} failed item{'s' if failed != 1 else ''} not shown"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("alignment (supported claims / claims)")
    ax.set_ylabel("coverage (answered questions / questions)")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_aspect("equal")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    return figure


def _score_columns(frame: pd.DataFrame) -> dict[str, list[float]]:
    """Scores by scorer id, from long rows (``scorer``, ``score``) or wide ones (``s.score``)."""
    if "scorer" in frame.columns and "score" in frame.columns:
        by_scorer: dict[str, list[float]] = {}
        for name, value in zip(frame["scorer"].tolist(), frame["score"].tolist(), strict=True):
            by_scorer.setdefault(str(name), []).append(number_or_nan(value))
        return by_scorer
    wide = {
        str(column)[: -len(".score")]: [number_or_nan(value) for value in frame[column].tolist()]
        for column in frame.columns
        if str(column).endswith(".score")
    }
    if wide:
        return wide
    if "score" in frame.columns:
        return {"score": [number_or_nan(value) for value in frame["score"].tolist()]}
    raise ConfigurationError(
        "no score column: pass an EvalResult, result.to_frame() or result.to_wide()"
    )


def score_histograms(
    result_or_frame: Results,
    *,
    bins: int = 10,
    figsize_per_panel: tuple[float, float] = (3.6, 3.0),
) -> Any:
    """One histogram of scores per scorer, with its mean marked.

    Failed items (NaN scores) are left out of the bars and counted in the panel's title.

    Args:
        result_or_frame: An EvalResult, ``result.to_frame()`` or ``result.to_wide()``.
        bins: Bars per panel, spanning 0 to the largest score (at least 1).
        figsize_per_panel: Size of one panel in inches.

    Returns:
        A :class:`matplotlib.figure.Figure` with one axes per scorer, in run order.

    Raises:
        ConfigurationError: No score column, or ``bins`` < 1.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"scorer": ["a", "a", "b"], "score": [0.1, 0.9, 0.5]})
        >>> [ax.get_title() for ax in score_histograms(frame).axes]
        ['a (2 scored)', 'b (1 scored)']
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ConfigurationError(f"bins must be an integer >= 1, got {bins!r}")
    result = _as_result(result_or_frame)
    by_scorer = (
        {
            name: [number_or_nan(score.score) for score in result.results(name)]
            for name in result.scorer_ids
        }
        if result is not None
        else _score_columns(_as_frame(result_or_frame))
    )
    if not by_scorer:
        raise ConfigurationError("no scores to draw: the result holds no scorer")
    width, height = figsize_per_panel
    figure = _figure((width * len(by_scorer), height))
    panels = figure.subplots(1, len(by_scorer), squeeze=False)[0]
    for ax, (name, values) in zip(panels, by_scorer.items(), strict=True):
        scored = [value for value in values if math.isfinite(value)]
        failed = len(values) - len(scored)
        top = max([1.0, *scored])
        ax.hist(scored, bins=bins, range=(0.0, top), color="#2e86ab", edgecolor="white")
        if scored:
            mean = math.fsum(scored) / len(scored)
            ax.axvline(
                mean, color="#d1495b", linestyle="--", linewidth=1.2, label=f"mean {mean:.3f}"
            )
            ax.legend(fontsize=7)
        title = f"{name} ({len(scored)} scored"
        title += f", {failed} failed)" if failed else ")"
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("score")
        ax.set_ylabel("items")
        ax.set_xlim(0.0, top)
    return figure


def _is_binary(values: Sequence[Any]) -> bool:
    """Boolean labels, or labels holding exactly the values 0 and 1 (as meta.agreement reads)."""
    present = [value for value in values if value is not None and not _is_nan(value)]
    if present and all(isinstance(value, bool) for value in present):
        return True
    return {number_or_nan(value) for value in present} == {0.0, 1.0}


def _flag(value: Any) -> bool:
    """A boolean label value (True, or the number 1) as a bool."""
    return value if isinstance(value, bool) else number_or_nan(value) == 1.0


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _agreement_value(frame: pd.DataFrame, score: str, label: str, metric: str) -> float:
    from .meta import agreement

    table = agreement(frame, score, label, n_bootstrap=0)
    rows = table[(table["metric"] == metric) & (table["level"] == "pooled")]
    return float(rows["value"].iloc[0]) if len(rows) else math.nan


def _jitter(count: int, seed: int = 0) -> list[float]:
    import numpy as np

    generator = np.random.default_rng(seed)
    return [float(value) for value in generator.uniform(-_STRIP_JITTER, _STRIP_JITTER, count)]


def score_vs_label(
    frame: pd.DataFrame | EvalResult,
    score: str | Sequence[str],
    label: str,
    *,
    group: str | None = None,
    figsize: tuple[float, float] = (5.0, 4.0),
) -> Any:
    """A score against a human label: a scatter, or boxes by class for a boolean label.

    Numeric labels give a scatter (with a small seeded horizontal jitter when every label is
    a whole number, so that items on the same grade do not hide each other) titled with the
    pooled Spearman correlation. Boolean (or 0/1) labels give one box per class with the
    items drawn over it, titled with the AUROC. ``group`` colours the items by a column.
    Several score columns give one panel each, side by side.

    Args:
        frame: One row per item, holding ``score`` and ``label`` (for example
            ``result.to_frame()`` of a single-scorer run); an EvalResult is turned into that.
        score: The score column, or several (``["alignment", "coverage", "score"]``).
        label: The human label column.
        group: Optional column to colour the items by (``"doc_id"``).
        figsize: Size in inches of one panel.

    Returns:
        A :class:`matplotlib.figure.Figure` with one axes per score column.

    Raises:
        ConfigurationError: A column is missing, or the rows mix several scorers.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"judge": [0.1, 0.4, 0.8], "human": [1, 2, 3]})
        >>> score_vs_label(frame, "judge", "human").axes[0].get_xlabel()
        'human'
    """
    data = _as_frame(frame)
    scores = [score] if isinstance(score, str) else list(score)
    for column, role in [*((name, "score") for name in scores), (label, "label"), (group, "group")]:
        if column is not None and column not in data.columns:
            raise ConfigurationError(
                f"no column {column!r} (the {role}); the frame has {list(data.columns)}"
            )
    if "scorer" in data.columns and data["scorer"].nunique() > 1:
        names = [str(name) for name in dict.fromkeys(data["scorer"].tolist())]
        raise ConfigurationError(
            f"the rows mix the scorers {names}; keep one first, e.g. "
            f"frame[frame['scorer'] == {names[0]!r}]"
        )
    width, height = figsize
    figure = _figure((width * len(scores), height))
    panels = figure.subplots(1, len(scores), squeeze=False)[0]
    for ax, name in zip(panels, scores, strict=True):
        _draw_score_vs_label(ax, data, name, label, group)
    return figure


def _draw_score_vs_label(
    ax: Any, data: pd.DataFrame, score: str, label: str, group: str | None
) -> None:
    scores = [number_or_nan(value) for value in data[score].tolist()]
    labels = data[label].tolist()
    groups = [str(value) for value in data[group].tolist()] if group else ["" for _ in scores]
    usable = [
        position
        for position, (value, mark) in enumerate(zip(scores, labels, strict=True))
        if math.isfinite(value) and mark is not None and not _is_nan(mark)
    ]
    binary = _is_binary(labels)
    group_names = list(dict.fromkeys(groups[position] for position in usable))
    palette = [f"C{index % 10}" for index in range(len(group_names))]
    colour_of = dict(zip(group_names, palette, strict=True))

    if binary:
        classes = [False, True]
        members = {
            flag: [position for position in usable if _flag(labels[position]) is flag]
            for flag in classes
        }
        ax.boxplot(
            [[scores[position] for position in members[flag]] for flag in classes],
            positions=[0, 1],
            widths=0.5,
            showfliers=False,
        )
        jitter = _jitter(len(usable))
        offsets = dict(zip(usable, jitter, strict=True))
        for name in group_names:
            chosen = [position for position in usable if groups[position] == name]
            ax.scatter(
                [(1 if _flag(labels[p]) else 0) + offsets[p] for p in chosen],
                [scores[p] for p in chosen],
                s=22,
                alpha=0.75,
                color=colour_of[name],
                zorder=3,
                label=name or None,
            )
        ax.set_xticks([0, 1], [f"{flag} ({len(members[flag])})" for flag in classes])
        metric, metric_name = "auroc", "AUROC"
    else:
        label_values = [number_or_nan(labels[position]) for position in usable]
        discrete = all(float(value).is_integer() for value in label_values)
        offsets = dict(
            zip(usable, _jitter(len(usable)) if discrete else [0.0] * len(usable), strict=True)
        )
        for name in group_names:
            chosen = [position for position in usable if groups[position] == name]
            ax.scatter(
                [number_or_nan(labels[p]) + offsets[p] for p in chosen],
                [scores[p] for p in chosen],
                s=24,
                alpha=0.75,
                color=colour_of[name],
                zorder=3,
                label=name or None,
            )
        metric, metric_name = "spearman", "Spearman ρ"
    value = _agreement_value(data, score, label, metric) if len(usable) > 1 else math.nan
    shown = "n/a" if math.isnan(value) else f"{value:.3f}"
    skipped = len(scores) - len(usable)
    title = f"{score} vs {label}: {metric_name} = {shown} (n = {len(usable)})"
    if skipped:
        title += f"\n{skipped} item{'s' if skipped != 1 else ''} without a score or label"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(label)
    ax.set_ylabel(score)
    ax.grid(True, alpha=0.25)
    if group and group_names and len(group_names) <= _LEGEND_GROUPS_MAX:
        ax.legend(fontsize=7, title=group, title_fontsize=7)


def _numbers(frame: pd.DataFrame, column: str) -> list[float]:
    """A column as floats (NaN where missing, or for every row when the column is absent)."""
    if column not in frame.columns:
        return [math.nan] * len(frame)
    return [number_or_nan(value) for value in frame[column].tolist()]


_X_LABELS = {
    "cost": "cost of the run (USD)",
    "tokens": "tokens spent (prompt + completion)",
    "mean_latency_s": "mean latency per item (s)",
}


def agreement_vs_cost(
    leaderboard: pd.DataFrame,
    *,
    x: str = "cost",
    figsize: tuple[float, float] = (5.6, 4.2),
) -> Any:
    """Each judge's agreement with the human label against what it cost: the leaderboard's plot.

    One point per judge (the leaderboard of :func:`~evaltoolkit.compare_judges`), with its
    bootstrap interval as a vertical bar and its name beside it. A judge whose cost is unknown
    (a model missing from litellm's price map) is drawn hollow at 0 and named so. The best
    judge sits top left: the most agreement for the least cost.

    Args:
        leaderboard: The DataFrame :func:`~evaltoolkit.compare_judges` returned.
        x: What to put on the horizontal axis: ``"cost"`` (USD), ``"tokens"`` or
            ``"mean_latency_s"``.
        figsize: Figure size in inches.

    Returns:
        A :class:`matplotlib.figure.Figure` with one axes: one error-bar container per judge.

    Raises:
        ConfigurationError: A frame without the leaderboard's columns, or an unknown ``x``.

    Example:
        >>> import pandas as pd
        >>> board = pd.DataFrame({"judge": ["a", "b"], "agreement": [0.6, 0.4],
        ...                       "ci_low": [0.5, 0.3], "ci_high": [0.7, 0.5],
        ...                       "cost": [0.02, 0.0], "metric": "spearman"})
        >>> agreement_vs_cost(board).axes[0].get_ylabel()
        'agreement with the label (spearman)'
    """
    if x not in _X_LABELS:
        raise ConfigurationError(f"x must be one of {', '.join(_X_LABELS)}, got {x!r}")
    needed = ["judge", "agreement", x]
    missing = [column for column in needed if column not in leaderboard.columns]
    if missing:
        raise ConfigurationError(
            f"no column(s) {missing} in the frame: pass the leaderboard of compare_judges()"
        )
    attrs = getattr(leaderboard, "attrs", {}) or {}
    metrics = leaderboard["metric"].tolist() if "metric" in leaderboard.columns else []
    metric = str(attrs.get("metric") or (metrics[0] if metrics else "agreement"))
    label = attrs.get("label")
    figure = _figure(figsize)
    ax = figure.subplots()
    names = [str(name) for name in leaderboard["judge"].tolist()]
    values, spends, lows, highs = (
        _numbers(leaderboard, column) for column in ("agreement", x, "ci_low", "ci_high")
    )
    unknown = 0
    for index, (name, value, spend, low, high) in enumerate(
        zip(names, values, spends, lows, highs, strict=True)
    ):
        colour = f"C{index % 10}"
        known = math.isfinite(spend)
        unknown += not known
        position = spend if known else 0.0
        below = value - low if math.isfinite(low) and math.isfinite(value) else 0.0
        above = high - value if math.isfinite(high) and math.isfinite(value) else 0.0
        ax.errorbar(
            [position],
            [value],
            yerr=[[max(below, 0.0)], [max(above, 0.0)]],
            fmt="o",
            color=colour,
            mfc=colour if known else "white",
            capsize=4,
            markersize=8,
            label=name if known else f"{name} ({x} unknown)",
        )
        ax.annotate(
            name if known else f"{name} ({x} unknown)",
            (position, value),
            xytext=(7, 5),
            textcoords="offset points",
            fontsize=8,
            color=colour,
        )
    title = f"agreement with {label}" if label else "agreement with the label"
    title += f" vs {x.replace('_', ' ')} ({len(names)} judges)"
    if unknown:
        title += f"\n{unknown} judge{'s' if unknown != 1 else ''} of unknown {x}, drawn hollow at 0"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(_X_LABELS[x])
    ax.set_ylabel(f"agreement with the label ({metric})")
    ax.grid(True, alpha=0.25)
    finite = [value for value in spends if math.isfinite(value)]
    top = max([0.0, *finite])
    ax.set_xlim(-0.05 * (top or 1.0), top * 1.25 + (0.05 if top == 0 else 0.0))
    return figure


def paired_differences(
    a: EvalResult | str | os.PathLike[str],
    b: EvalResult | str | os.PathLike[str],
    *,
    score: str = "score",
    scorer: str | None = None,
    group: str | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    figsize: tuple[float, float] = (6.4, 3.8),
) -> Any:
    """Two runs of the same items: each item's difference B - A, and the mean with its interval.

    One point per pair, sorted by its difference (B higher above the zero line, lower below),
    and a band for the mean difference with its paired bootstrap interval from
    :func:`~evaltoolkit.compare_runs`. Items that failed in either run are left out and
    counted in the title.

    Args:
        a: The first run, or the path of saved results.
        b: The second run of the same items.
        score: The score column: ``"score"`` or an axis such as ``"alignment"``.
        scorer: The scorer id (default: the first scorer both runs have).
        group: An item field whose groups the interval resamples (e.g. ``"doc_id"``).
        n_bootstrap: Bootstrap resamples of the interval.
        seed: Seed of the bootstrap.
        figsize: Figure size in inches.

    Returns:
        A :class:`matplotlib.figure.Figure` with one axes.

    Raises:
        ConfigurationError: The runs hold different items (see ``compare_runs``).

    Example:
        >>> import evaltoolkit as et
        >>> from evaltoolkit.plots import paired_differences
        >>> a = et.run_evals("data/demo_answers.jsonl", et.create_textual_difference_scorer(),
        ...                  progress=False)
        >>> b = et.run_evals("data/demo_answers.jsonl",
        ...                  et.create_textual_difference_scorer(scale=0.9), progress=False)
        >>> paired_differences(a, b, n_bootstrap=100).axes[0].get_ylabel()
        'B - A (score)'
    """
    from .meta import compare_runs, paired_scores

    pairs = paired_scores(a, b, score=score, scorer=scorer, group=group)
    row = compare_runs(
        a, b, score=score, scorer=scorer, group=group, n_bootstrap=n_bootstrap, seed=seed
    ).iloc[0]
    used = pairs[~pairs["failed"]]
    differences = sorted(float(value) for value in used["difference"])
    figure = _figure(figsize)
    ax = figure.subplots()
    positions = list(range(len(differences)))
    colours = ["#2e86ab" if d > 0 else "#d1495b" if d < 0 else "#6c757d" for d in differences]
    ax.scatter(positions, differences, s=14, c=colours, zorder=3, label="items (B - A)")
    ax.axhline(0.0, color="black", linewidth=0.8)
    mean, low, high = float(row["difference"]), float(row["ci_low"]), float(row["ci_high"])
    if math.isfinite(low) and math.isfinite(high):
        ax.axhspan(low, high, color="#f4a259", alpha=0.35, label="95% interval of the mean")
    ax.axhline(mean, color="#f4a259", linewidth=2, label=f"mean {mean:+.3f}")
    title = (
        f"B - A on {score}: {mean:+.3f} [{low:+.3f}, {high:+.3f}]; "
        f"B higher on {row['wins']}, equal {row['ties']}, lower {row['losses']}"
    )
    if row["failed"]:
        title += f"\n{row['failed']} item(s) left out: failed in a run"
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(f"items, sorted by difference ({len(differences)} pairs)")
    ax.set_ylabel(f"B - A ({score})")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, alpha=0.25)
    return figure

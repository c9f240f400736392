"""The report's comparison of two runs of the same items: is B - A real?"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._internal.html import Markup, join, table
from ..errors import ConfigurationError
from ._data import Run
from ._figures import figure_block

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["comparison_section"]

#: Items listed where the two runs' scores differ most.
MOST_DIFFERENT = 10


def _signed(value: Any) -> str:
    return "n/a" if not isinstance(value, float) or math.isnan(value) else f"{value:+.3f}"


def comparison_section(runs: Sequence[Run], *, n_bootstrap: int = 1000) -> Markup | None:
    """For exactly two runs: the paired difference per score column, its interval, drawn.

    Runs of different items get a sentence saying why they are not compared; any other
    number of runs gets no section.
    """
    if len(runs) != 2:
        return None
    from ..meta import compare_runs, paired_scores
    from ..plots import paired_differences

    first, second = runs
    try:
        comparison = compare_runs(first.result, second.result, n_bootstrap=n_bootstrap)
    except ConfigurationError as error:
        return Markup("<p class='muted'>The two runs are not compared: {}</p>").format(str(error))
    rows = [
        [
            record["score"],
            _signed(record["mean_a"]).lstrip("+"),
            _signed(record["mean_b"]).lstrip("+"),
            f"{_signed(record['difference'])} "
            f"[{_signed(record['ci_low'])}, {_signed(record['ci_high'])}]",
            "n/a" if math.isnan(record["p_value"]) else f"{record['p_value']:.3g}",
            f"{record['wins']} / {record['ties']} / {record['losses']}",
            record["n_pairs"],
            record["failed"],
        ]
        for record in comparison.to_dict(orient="records")
    ]
    intro = Markup(
        "<p>A = {a}, B = {b}, paired by item id. B - A with its 95% paired bootstrap "
        "interval (items resampled); the p-value is the Wilcoxon signed-rank test's. An "
        "interval that excludes 0 is a difference the data support.</p>"
    ).format(a=first.name, b=second.name)
    figures = [
        figure_block(
            f"Each item's B - A on {column}, sorted, and the mean with its interval.",
            paired_differences(
                first.result, second.result, score=str(column), n_bootstrap=n_bootstrap
            ),
            f"comparison-{index}",
        )
        for index, column in enumerate(comparison["score"])
    ]
    return join(
        [
            intro,
            table(
                [
                    "score",
                    "mean A",
                    "mean B",
                    "B - A",
                    "p",
                    "B higher / equal / lower",
                    "pairs",
                    "failed",
                ],
                rows,
                css_class="comparison",
            ),
            Markup("<div class='figures'>{}</div>").format(join(figures)),
            _most_different(paired_scores(first.result, second.result, score="score")),
        ]
    )


def _most_different(pairs: pd.DataFrame) -> Markup:
    """The items whose score differs most between the runs, largest difference first."""
    scored = pairs[~pairs["failed"] & (pairs["difference"] != 0)]
    if scored.empty:
        return Markup("<p class='muted'>No item scores differently in A and B.</p>")
    top = scored.reindex(scored["difference"].abs().sort_values(ascending=False).index)
    top = top.head(MOST_DIFFERENT)
    rows = [
        [
            record["item_id"],
            f"{record['a']:.3f}",
            f"{record['b']:.3f}",
            _signed(float(record["difference"])),
        ]
        for record in top.to_dict(orient="records")
    ]
    caption = Markup(
        "<h3>Where A and B differ most</h3><p>The {shown} of {changed} items whose score "
        "differs, largest difference first (the table of every item below shows their "
        "verdicts).</p>"
    ).format(shown=len(rows), changed=len(scored))
    return caption + table(["item", "A", "B", "B - A"], rows, css_class="most-different")

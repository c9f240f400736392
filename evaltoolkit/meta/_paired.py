"""Is the difference between two runs of the same items real? ``compare_runs``.

Two systems' outputs under one judge, or one set of outputs under two judges: the runs are
paired by item id, and each score column gets the mean of each run, the mean difference with
a paired bootstrap interval, a Wilcoxon signed-rank test and wins / ties / losses.

The statistics come from scipy: :func:`scipy.stats.bootstrap` (percentile interval of the
mean of the per-item differences, which resamples whole pairs) and
:func:`scipy.stats.wilcoxon`. scipy cannot resample clusters, so with ``group`` the interval
comes from a seeded resampling of whole groups (numpy's Generator), the same groups for both
runs, and the test is over groups: Wilcoxon's signed-rank test on each group's mean difference,
since the items of one group (the summaries of one document) are not independent.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..records import EvalResult, ItemResult, read_results
from ..records._internal import to_json_text
from .stats.resampling import few_note, group_mean_interval, mean_interval
from .stats.signed_rank import group_wilcoxon_p, wilcoxon_p

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    FloatArray = NDArray[np.float64]

__all__ = ["COMPARISON_COLUMNS", "compare_runs", "paired_scores"]

#: The columns of :func:`compare_runs`, in order.
COMPARISON_COLUMNS = (
    "score",
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "test",
    "wins",
    "ties",
    "losses",
    "n_pairs",
    "failed",
    "groups",
    "note",
)
_AXIS_SUFFIX = "_score"
_SHOWN_IDS = 3
# Bounds the memory of one batch of resamples (cells of the resamples x items matrix).
_RESAMPLE_CHUNK_CELLS = 4_000_000

Run = EvalResult | str | os.PathLike[str]


def _as_run(run: Run, name: str) -> EvalResult:
    if isinstance(run, EvalResult):
        return run
    if isinstance(run, str | os.PathLike):
        return read_results(run)
    raise ConfigurationError(
        f"compare_runs: run {name} must be an EvalResult or the path of saved results, got "
        f"{type(run).__name__}"
    )


def _few(ids: Sequence[Any]) -> str:
    shown = ", ".join(repr(item_id) for item_id in list(ids)[:_SHOWN_IDS])
    return shown + (", ..." if len(ids) > _SHOWN_IDS else "")


def _by_id(run: EvalResult, name: str) -> dict[Any, ItemResult]:
    items: dict[Any, ItemResult] = {}
    repeated: list[Any] = []
    for item in run:
        if item.item_id in items:
            repeated.append(item.item_id)
        items[item.item_id] = item
    if repeated:
        raise ConfigurationError(
            f"compare_runs: run {name} holds {len(repeated)} repeated item id(s) "
            f"({_few(repeated)}); pairing needs one item per id, so give every item its own id"
        )
    return items


def _common_scorer(
    a: EvalResult, b: EvalResult, scorer: str | tuple[str, str] | None
) -> tuple[str, str]:
    """The scorer id of each run to compare: one id both runs have, or one id per run."""
    if scorer is not None:
        pair: tuple[object, ...] = ()
        if isinstance(scorer, str):
            pair = (scorer, scorer)
        elif isinstance(scorer, tuple | list):
            pair = tuple(scorer)
        if len(pair) != 2 or not all(isinstance(name, str) for name in pair):
            raise ConfigurationError(
                f"compare_runs: scorer must be a scorer id or a pair of them (A's, B's), got "
                f"{scorer!r}"
            )
        first, second = str(pair[0]), str(pair[1])
        for name, run, wanted in (("A", a, first), ("B", b, second)):
            if wanted not in run.scorer_ids:
                raise ConfigurationError(
                    f"compare_runs: run {name} has no scorer {wanted!r}; it has "
                    f"{', '.join(run.scorer_ids) or 'none'}"
                )
        return first, second
    shared = [scorer_id for scorer_id in a.scorer_ids if scorer_id in b.scorer_ids]
    if not shared:
        problem = (
            f"the runs share no scorer (A: {', '.join(a.scorer_ids) or 'none'}; "
            f"B: {', '.join(b.scorer_ids) or 'none'})"
        )
        if not (a.scorer_ids and b.scorer_ids):
            raise ConfigurationError(f"compare_runs: {problem}", command_line=problem)
        first, second = a.scorer_ids[0], b.scorer_ids[0]
        hint = f"; to compare {first!r} in A with {second!r} in B,"
        raise ConfigurationError(
            f"compare_runs: {problem}{hint} pass scorer=({first!r}, {second!r})",
            command_line=f"{problem}{hint} pass --scorer {first} {second}",
        )
    if len(shared) > 1:
        problem = f"the runs share {len(shared)} scorers ({', '.join(shared)})"
        raise ConfigurationError(
            f"compare_runs: {problem}; name the one to compare with scorer=, e.g. "
            f"scorer={shared[0]!r}",
            command_line=f"{problem}; name the one to compare with --scorer, e.g. "
            f"--scorer {shared[0]}",
        )
    return shared[0], shared[0]


def _score_columns(items: Sequence[ItemResult], scorer: str) -> list[str]:
    """``score`` and every axis: a numeric detail named ``<axis>_score`` (e.g. alignment)."""
    axes: dict[str, None] = {}
    for item in items:
        for key, value in item.scorer_results[scorer].details.items():
            if (
                key.endswith(_AXIS_SUFFIX)
                and isinstance(value, int | float)
                and not isinstance(value, bool)
            ):
                axes[key.removesuffix(_AXIS_SUFFIX)] = None
    return ["score", *axes]


def _value(item: ItemResult, scorer: str, column: str) -> float:
    result = item.scorer_results[scorer]
    if result.failed:
        return math.nan
    if column == "score":
        return float(result.score)
    value = result.details.get(column + _AXIS_SUFFIX)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return math.nan


def paired_scores(
    a: Run,
    b: Run,
    *,
    score: str | Sequence[str] | None = None,
    scorer: str | tuple[str, str] | None = None,
    group: str | None = None,
) -> pd.DataFrame:
    """Two runs of the same items lined up by item id, one row per item and score column.

    Args:
        a: The first run (an :class:`~evaltoolkit.EvalResult` or the path of saved results).
        b: The second run of the same items.
        score: The score column(s): ``"score"`` or an axis such as ``"alignment"``; None
            takes ``score`` and every axis the scorer reports.
        scorer: The scorer id to compare (default: the one scorer both runs have; runs that
            share several need it named), or a pair of ids, A's and B's, for runs whose
            scorers are named differently (``("summarization", "summarization-strict")``).
        group: An item field grouping the items (e.g. ``"doc_id"``), added as ``group``.

    Returns:
        Columns ``item_id``, ``score`` (the score column), ``a``, ``b``, ``difference``
        (b - a), ``failed`` (the item failed in either run; its values are NaN) and, with
        ``group``, ``group``; in run A's item order.

    Raises:
        ConfigurationError: The runs hold different items (the message counts the ids only in
            A and only in B and names a few), the same id holds a different input or ground
            truth in the two runs, an id repeats, or the group field is missing.

    Example:
        >>> import evaltoolkit as et
        >>> items = [{"id": "x", "input": "q", "output": "Paris", "ground_truth": "Paris"}]
        >>> a = et.run_evals(items, et.create_textual_difference_scorer(), progress=False)
        >>> b = et.run_evals(items, et.create_textual_difference_scorer(scale=2), progress=False)
        >>> paired_scores(a, b)[["item_id", "a", "b", "difference"]].to_dict(orient="records")
        [{'item_id': 'x', 'a': 1.0, 'b': 2.0, 'difference': 1.0}]
    """
    import pandas as pd

    run_a, run_b = _as_run(a, "A"), _as_run(b, "B")
    chosen, chosen_b = _common_scorer(run_a, run_b, scorer)
    items_a, items_b = _by_id(run_a, "A"), _by_id(run_b, "B")
    only_a = [item_id for item_id in items_a if item_id not in items_b]
    only_b = [item_id for item_id in items_b if item_id not in items_a]
    if only_a or only_b:
        raise ConfigurationError(
            f"compare_runs: the runs hold different items: {len(only_a)} id(s) only in A"
            + (f" ({_few(only_a)})" if only_a else "")
            + f", {len(only_b)} only in B"
            + (f" ({_few(only_b)})" if only_b else "")
            + "; compare two runs of the same items (filter both to the shared ids first)"
        )
    for field_name in ("input", "ground_truth"):
        differing = [
            item_id
            for item_id, item in items_a.items()
            if to_json_text(getattr(item, field_name))
            != to_json_text(getattr(items_b[item_id], field_name))
        ]
        if differing:
            raise ConfigurationError(
                f"compare_runs: {len(differing)} item(s) have the same id but a different "
                f"{field_name} in A and B ({_few(differing)}); the runs must score the same "
                "items, so check that both were run on the same data"
            )
    ordered = list(run_a)
    if score is None:
        in_b = _score_columns(list(run_b), chosen_b)
        columns = [column for column in _score_columns(ordered, chosen) if column in in_b]
    else:
        columns = [score] if isinstance(score, str) else list(dict.fromkeys(score))
        known = dict.fromkeys(
            _score_columns(ordered, chosen) + _score_columns(list(run_b), chosen_b)
        )
        unknown = [column for column in columns if column not in known]
        if unknown:
            raise ConfigurationError(
                f"compare_runs: no score column {unknown[0]!r} in the {chosen!r} results; "
                f"choose from {', '.join(known)}"
            )
    if group is not None:
        lacking = [item.item_id for item in ordered if _missing(item.fields.get(group))]
        if lacking:
            problem = (
                f"{len(lacking)} item(s) have no {group!r} field to group by ({_few(lacking)}); "
                "give every item one"
            )
            raise ConfigurationError(
                f"compare_runs: {problem}, or leave group=None",
                command_line=f"{problem}, or leave out --group",
            )
    rows: list[dict[str, Any]] = []
    for column in columns:
        for item in ordered:
            first = _value(item, chosen, column)
            second = _value(items_b[item.item_id], chosen_b, column)
            failed = math.isnan(first) or math.isnan(second)
            row: dict[str, Any] = {
                "item_id": item.item_id,
                "score": column,
                "a": math.nan if failed else first,
                "b": math.nan if failed else second,
                "difference": math.nan if failed else second - first,
                "failed": failed,
            }
            if group is not None:
                row["group"] = item.fields[group]
            rows.append(row)
    frame_columns = ["item_id", "score", "a", "b", "difference", "failed"]
    return pd.DataFrame(rows, columns=frame_columns + (["group"] if group else []))


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _bootstrap_interval(
    differences: FloatArray, *, n_bootstrap: int, confidence: float, seed: int
) -> tuple[float, float]:
    """scipy's percentile bootstrap of the mean difference (whole pairs resampled)."""
    import numpy as np

    if n_bootstrap == 0 or len(differences) < 2:
        return math.nan, math.nan
    return mean_interval(
        differences,
        n_resamples=n_bootstrap,
        confidence=confidence,
        rng=np.random.default_rng(seed),
        batch=max(1, _RESAMPLE_CHUNK_CELLS // len(differences)),
    )


def _group_interval(
    differences: FloatArray,
    groups: Sequence[Any],
    *,
    n_bootstrap: int,
    confidence: float,
    seed: int,
) -> tuple[float, float]:
    """Percentile interval of the mean difference over resamples of whole groups."""
    import pandas as pd

    codes, uniques = pd.factorize(pd.Series(list(groups), dtype=object))
    count = len(uniques)
    if n_bootstrap == 0 or count < 2:
        return math.nan, math.nan
    return group_mean_interval(
        differences,
        codes,
        count,
        n_resamples=n_bootstrap,
        confidence=confidence,
        seed=seed,
        chunk=max(1, min(n_bootstrap, _RESAMPLE_CHUNK_CELLS // count)),
    )


def _test_name(count: int, group: str | None) -> str:
    if group is None:
        return f"Wilcoxon signed-rank over {count} items"
    return f"Wilcoxon signed-rank over {count} {group} groups (their mean differences)"


def compare_runs(
    a: Run,
    b: Run,
    *,
    score: str | Sequence[str] | None = None,
    scorer: str | tuple[str, str] | None = None,
    group: str | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Compare two runs of the same items, paired by item id: is the difference real?

    For each score column (summarization: ``score``, ``alignment``, ``coverage``): the
    mean of each run over the pairs used, the mean difference (B - A) with a paired
    bootstrap interval, the two-sided Wilcoxon signed-rank p-value (over items, or with
    ``group`` over groups, as the ``test`` column says), and how often B scored
    above A (``wins``), the same (``ties``) or below (``losses``). An item that failed in
    either run (a NaN score) is left out of the pair and counted in ``failed``.

    Where the figures come from:

    - The interval without ``group``: :func:`scipy.stats.bootstrap`, percentile method, on
      the per-item differences (each resample draws whole pairs, so A and B are resampled
      together), ``n_bootstrap`` resamples from ``numpy.random.default_rng(seed)``.
    - With ``group`` (e.g. ``"doc_id"``: several summaries of one document are not
      independent): scipy cannot resample clusters, so whole groups are resampled with
      replacement from the same seeded Generator, the same groups for A and B, and the
      interval is the percentile interval of the resampled mean differences.
    - The p-value without ``group``: :func:`scipy.stats.wilcoxon` with
      ``zero_method="pratt"`` on the per-item differences: pairs with a zero difference
      (ties) are ranked with the others and then dropped, tied absolute differences share
      their mean rank; scipy's exact distribution serves up to 50 pairs without ties or
      zeros, its normal approximation (tie-corrected) every other case. All differences
      zero gives 1.
    - The p-value with ``group``: the same test over the groups, each group one
      observation (its items' mean difference), with scipy's exact or permutation
      distribution up to 50 groups. Items of one group are not independent, so a test over
      items would count one document's summaries as separate evidence: over 5 documents
      the smallest two-sided p-value there is is 2 / 2**5 = 0.0625, however many summaries
      each has.

    Args:
        a: The first run (an :class:`~evaltoolkit.EvalResult` or the path of saved results).
        b: The second run of the same items.
        score: The score column(s) to compare (``"score"``, ``"alignment"``, ...); None
            compares ``score`` and every axis the scorer reports.
        scorer: The scorer id (default: the one scorer both runs have; runs that share
            several need it named), or a pair of ids, A's and B's, for runs whose scorers are
            named differently.
        group: An item field whose groups are resampled instead of items.
        n_bootstrap: Bootstrap resamples (0 leaves the intervals NaN).
        confidence: Coverage of the intervals.
        seed: Seed of the bootstrap.

    Returns:
        One row per score column: ``score``, ``mean_a``, ``mean_b``, ``difference``,
        ``ci_low``, ``ci_high``, ``p_value``, ``test`` (what the p-value tests over, e.g.
        ``"Wilcoxon signed-rank over 5 doc_id groups (their mean differences)"``), ``wins``,
        ``ties``, ``losses``, ``n_pairs``, ``failed``, ``groups`` (groups among the
        pairs; NaN without ``group``) and ``note`` (fewer than 10 pairs, or groups: too few
        for a firm figure; else "").

    Raises:
        ConfigurationError: The runs hold different items or different inputs for one id
            (see :func:`paired_scores`), or an option is out of range.

    Example:
        >>> import evaltoolkit as et
        >>> items = [{"id": i, "input": "q", "output": text, "ground_truth": "Paris"}
        ...          for i, text in enumerate(["Paris", "Pariss", "Lyon", "Paris!"])]
        >>> a = et.run_evals(items, et.create_textual_difference_scorer(), progress=False)
        >>> b = et.run_evals(items, et.create_textual_difference_scorer(scale=2), progress=False)
        >>> table = compare_runs(a, b, n_bootstrap=200)
        >>> table[["score", "wins", "ties", "losses", "n_pairs"]].to_dict(orient="records")
        [{'score': 'score', 'wins': 3, 'ties': 1, 'losses': 0, 'n_pairs': 4}]
    """
    import numpy as np
    import pandas as pd

    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, int) or n_bootstrap < 0:
        raise ConfigurationError(
            f"compare_runs: n_bootstrap must be a non-negative integer (0 skips the "
            f"intervals), got {n_bootstrap!r}"
        )
    if not 0.0 < confidence < 1.0:
        raise ConfigurationError(
            f"compare_runs: confidence must lie strictly between 0 and 1 (e.g. 0.95), got "
            f"{confidence!r}"
        )
    pairs = paired_scores(a, b, score=score, scorer=scorer, group=group)
    rows: list[dict[str, Any]] = []
    for column, block in pairs.groupby("score", sort=False):
        used = block[~block["failed"]]
        differences = used["difference"].to_numpy(dtype=float)
        if group is None:
            low, high = _bootstrap_interval(
                differences, n_bootstrap=n_bootstrap, confidence=confidence, seed=seed
            )
            groups = math.nan
            p_value, test = wilcoxon_p(differences), _test_name(len(differences), None)
        else:
            low, high = _group_interval(
                differences,
                list(used["group"]),
                n_bootstrap=n_bootstrap,
                confidence=confidence,
                seed=seed,
            )
            groups = float(used["group"].nunique())
            p_value, count = group_wilcoxon_p(differences, list(used["group"]))
            test = _test_name(count, group)
        rows.append(
            {
                "score": column,
                "mean_a": float(used["a"].mean()) if len(used) else math.nan,
                "mean_b": float(used["b"].mean()) if len(used) else math.nan,
                "difference": float(differences.mean()) if len(used) else math.nan,
                "ci_low": low,
                "ci_high": high,
                "p_value": p_value,
                "test": test,
                "wins": int(np.sum(differences > 0)),
                "ties": int(np.sum(differences == 0)),
                "losses": int(np.sum(differences < 0)),
                "n_pairs": len(used),
                "failed": int(block["failed"].sum()),
                "groups": groups,
                "note": few_note(len(used), "pairs")
                if group is None
                else few_note(int(groups), f"{group} groups"),
            }
        )
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))

"""Loaders for human-labelled benchmark files, mapped onto the standard scoring layout.

The standard layout has the columns ``item_id``, ``input``, ``output`` and, where the task has
one, ``ground_truth``; every other column of the file (human labels, ids, metadata) is kept.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._internal.deprecation import renamed_keywords
from ..errors import ConfigurationError, DataLoadError, EvalToolkitError
from ..records.items import read_table

if TYPE_CHECKING:
    import pandas as pd

STANDARD_COLUMNS = ("item_id", "input", "output", "ground_truth")
_LISTED_COLUMNS_MAX = 30


def _error(message: str, *, unreadable_file: bool = False) -> EvalToolkitError:
    """Build the exception for a bad argument, or for a file that cannot be read."""
    return DataLoadError(message) if unreadable_file else ConfigurationError(message)


def _describe_columns(columns: Any) -> str:
    names = [repr(name) for name in columns]
    if len(names) > _LISTED_COLUMNS_MAX:
        hidden = len(names) - _LISTED_COLUMNS_MAX
        names = [*names[:_LISTED_COLUMNS_MAX], f"... ({hidden} more)"]
    return ", ".join(names) if names else "(none)"


def _require_columns(df: pd.DataFrame, required: Mapping[str, str], *, where: str) -> None:
    """Raises an error naming the first missing column, with the columns that are present.

    Args:
        df: The table to check.
        required: Column name to the argument that named it (used in the message).
        where: What the table is (a path or "the DataFrame"), for the message.
    """
    for column, argument in required.items():
        if column not in df.columns:
            raise _error(
                f"column {column!r} (from {argument}) is not in {where}; the columns present "
                f"are: {_describe_columns(df.columns)}. Pass {argument}= with one of them."
            )


def _check_limit(limit: int | None) -> None:
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise _error(f"limit must be a non-negative integer or None, got {limit!r}.")


def _standard_columns_first(df: pd.DataFrame) -> pd.DataFrame:
    leading = [name for name in STANDARD_COLUMNS if name in df.columns]
    rest = [name for name in df.columns if name not in leading]
    return df[[*leading, *rest]]


def load_table(
    path: str | os.PathLike[str],
    *,
    columns: Mapping[str, str] | None = None,
    limit: int | None = None,
) -> pd.DataFrame:
    """Reads a data file into a DataFrame, renaming columns onto the standard names.

    The format follows the extension: ``.jsonl`` and ``.json`` (JSON Lines; a ``.json`` file
    holding one JSON array of objects also works), ``.csv``, ``.tsv`` and ``.parquet``. In CSV
    files only empty cells are read as missing, so texts such as ``"None"`` or ``"NA"`` stay
    text. Standard columns present (``item_id``, ``input``, ``output``, ``ground_truth``) are
    moved to the front; all other columns are kept in file order.

    Args:
        path: The file to read.
        columns: Maps column names in the file to the names to use, e.g.
            ``{"article": "input", "summary": "output"}``.
        limit: Keeps only the first ``limit`` rows.

    Returns:
        The table, one row per record.

    Raises:
        DataLoadError: The file is missing, unreadable or of an unsupported type.
        ConfigurationError: A mapped column is not in the file, or the mapping would give two
            columns the same name.

    Example:
        >>> df = load_table("reviews.csv", columns={"text": "input"}, limit=100)  # doctest: +SKIP
        >>> list(df.columns)  # doctest: +SKIP
        ['input', 'rating']
    """
    _check_limit(limit)
    frame = read_table(path)
    if limit is not None:
        frame = frame.head(limit)
    file_path = Path(path)
    if columns:
        frame = _rename_columns(frame, columns, where=repr(str(file_path)))
    return _standard_columns_first(frame)


def _rename_columns(frame: pd.DataFrame, columns: Mapping[str, str], *, where: str) -> pd.DataFrame:
    _require_columns(frame, {source: f"columns[{source!r}]" for source in columns}, where=where)
    targets = list(columns.values())
    duplicated = sorted({name for name in targets if targets.count(name) > 1})
    if duplicated:
        raise _error(
            f"columns maps more than one column onto {duplicated[0]!r}; map each name once."
        )
    for source, target in columns.items():
        if target != source and target in frame.columns and target not in columns:
            raise _error(
                f"cannot rename {source!r} to {target!r}: {where} already has a column "
                f"{target!r}. Map or drop that column too."
            )
    return frame.rename(columns=dict(columns))


def _with_item_ids(
    frame: pd.DataFrame, make_id: Callable[[pd.DataFrame], pd.Series] | None
) -> pd.DataFrame:
    """Adds ``item_id``: kept if the file has one, else from ``id``, ``make_id``, or row number."""
    if "item_id" in frame.columns:
        return frame
    if "id" in frame.columns:
        return frame.rename(columns={"id": "item_id"})
    frame = frame.copy()
    if make_id is not None:
        frame["item_id"] = make_id(frame)
    else:
        frame["item_id"] = [str(position) for position in range(len(frame))]
    return frame


def _load_preset(
    path: str | os.PathLike[str],
    *,
    required: Mapping[str, str],
    renames: Mapping[str, str],
    limit: int | None,
) -> pd.DataFrame:
    frame = load_table(path, limit=limit)
    _require_columns(frame, required, where=repr(str(path)))
    for source, target in renames.items():
        if target in frame.columns and target != source and target not in renames:
            raise _error(
                f"{str(path)!r} already has a column {target!r}, which the preset would fill "
                f"from {source!r}. Rename or drop one of them, or use load_table(columns=...)."
            )
    return frame.rename(columns=dict(renames))


@renamed_keywords(source="input_col", summary="output_col")
def load_summeval(
    path: str | os.PathLike[str],
    *,
    input_col: str = "source",
    output_col: str = "summary",
    group: str | None = "doc_id",
    limit: int | None = None,
) -> pd.DataFrame:
    """Loads summaries judged by humans (SummEval layout) for summarization scoring.

    ``input`` is the source document and ``output`` the summary. The group column (the
    document id) and every other column, such as the human ``consistency``, ``relevance``,
    ``coherence`` and ``fluency`` ratings, ``system_id`` and ``references``, are kept.
    ``item_id`` is ``f"{doc_id}/{system_id}"`` when the file has both columns (an ``item_id``
    or ``id`` column in the file wins), else the row number as text.

    Args:
        path: A JSON Lines, CSV or Parquet file.
        input_col: Column holding the source document.
        output_col: Column holding the summary to score.
        group: Column holding the document id, or None when the file has none.
        limit: Keeps only the first ``limit`` rows.

    Returns:
        The table in the standard layout.

    Raises:
        DataLoadError: The file cannot be read.
        ConfigurationError: A named column is missing.

    Example:
        >>> df = load_summeval("../shared/benchmarks/summeval_dev.jsonl")  # doctest: +SKIP
        >>> df[["item_id", "input", "output", "consistency"]].shape  # doctest: +SKIP
        (800, 4)
    """
    required = {input_col: "input_col", output_col: "output_col"}
    if group is not None:
        required[group] = "group"
    frame = _load_preset(
        path, required=required, renames={input_col: "input", output_col: "output"}, limit=limit
    )

    def document_and_system(table: pd.DataFrame) -> pd.Series:
        assert group is not None
        return table[group].astype(str) + "/" + table["system_id"].astype(str)

    has_pair = group is not None and "system_id" in frame.columns
    frame = _with_item_ids(frame, document_and_system if has_pair else None)
    return _standard_columns_first(frame)


def _as_answer_list(value: Any) -> list[str] | None:
    """Normalises one cell of golden answers to a list of strings (None when missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        stripped = value.strip()
        # CSV files store lists as JSON text.
        if stripped.startswith("[") and stripped.endswith("]"):
            try:
                parsed = json.loads(stripped)
            except json.JSONDecodeError:
                return [value]
            if isinstance(parsed, list):
                return [str(answer) for answer in parsed]
        return [value]
    if hasattr(value, "tolist"):  # numpy arrays, as Parquet files give lists back
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [str(answer) for answer in value]
    return [str(value)]


@renamed_keywords(question="input_col", candidate="output_col", answers="ground_truth_col")
def load_qa_equivalence(
    path: str | os.PathLike[str],
    *,
    input_col: str = "question",
    output_col: str = "candidate",
    ground_truth_col: str = "golden_answers",
    label: str | None = "human_correct",
    limit: int | None = None,
) -> pd.DataFrame:
    """Loads candidate answers judged correct or not by humans (EVOUNA layout).

    ``input`` is the question, ``output`` the candidate answer and ``ground_truth`` the list
    of accepted answers: a single string becomes a one-item list, a JSON list written as text
    (as CSV files hold it) is parsed, and a missing cell stays None. ``item_id`` comes from an
    ``item_id`` or ``id`` column when the file has one, else the row number as text. The label
    column and all other columns are kept as they are.

    Args:
        path: A JSON Lines, CSV or Parquet file.
        input_col: Column holding the question.
        output_col: Column holding the answer to judge.
        ground_truth_col: Column holding the golden answers (a list or a single string).
        label: Column holding the human verdict, or None when the file has none.
        limit: Keeps only the first ``limit`` rows.

    Returns:
        The table in the standard layout.

    Raises:
        DataLoadError: The file cannot be read.
        ConfigurationError: A named column is missing.

    Example:
        >>> df = load_qa_equivalence("../shared/benchmarks/evouna_nq_dev.jsonl")  # doctest: +SKIP
        >>> df.loc[0, "ground_truth"]  # doctest: +SKIP
        ['1960']
    """
    required = {
        input_col: "input_col",
        output_col: "output_col",
        ground_truth_col: "ground_truth_col",
    }
    if label is not None:
        required[label] = "label"
    frame = _load_preset(
        path,
        required=required,
        renames={input_col: "input", output_col: "output", ground_truth_col: "ground_truth"},
        limit=limit,
    )
    import pandas as pd

    frame = frame.copy()
    frame["ground_truth"] = pd.Series(
        [_as_answer_list(value) for value in frame["ground_truth"]], index=frame.index, dtype=object
    )
    return _standard_columns_first(_with_item_ids(frame, None))


@renamed_keywords(first="output_col", second="ground_truth_col")
def load_sentence_pairs(
    path: str | os.PathLike[str],
    *,
    output_col: str = "sentence1",
    ground_truth_col: str = "sentence2",
    label: str | None = "score",
    limit: int | None = None,
) -> pd.DataFrame:
    """Loads sentence pairs with a human similarity or paraphrase label (STS-B, MRPC layouts).

    ``output`` and ``input`` are the first sentence and ``ground_truth`` the second, so scorers
    that compare an output with its ground truth compare the two sentences. ``item_id`` comes
    from an ``item_id`` or ``id`` column when the file has one, else the row number as text.
    The label column and all other columns (e.g. ``genre``) are kept. For MRPC, whose label
    column is ``paraphrase``, pass ``label="paraphrase"``.

    Args:
        path: A JSON Lines, CSV or Parquet file.
        output_col: Column holding the first sentence (also the input).
        ground_truth_col: Column holding the second sentence.
        label: Column holding the human label, or None when the file has none.
        limit: Keeps only the first ``limit`` rows.

    Returns:
        The table in the standard layout.

    Raises:
        DataLoadError: The file cannot be read.
        ConfigurationError: A named column is missing.

    Example:
        >>> df = load_sentence_pairs("../shared/benchmarks/stsb_dev.jsonl")  # doctest: +SKIP
        >>> df[["output", "ground_truth", "score"]].shape  # doctest: +SKIP
        (1500, 3)
    """
    required = {output_col: "output_col", ground_truth_col: "ground_truth_col"}
    if label is not None:
        required[label] = "label"
    frame = _load_preset(
        path,
        required=required,
        renames={output_col: "output", ground_truth_col: "ground_truth"},
        limit=limit,
    )
    if "input" in frame.columns:
        raise _error(
            f"{str(path)!r} already has a column 'input', which the preset would fill from "
            f"{output_col!r}. Rename or drop it, or use load_table(columns=...)."
        )
    frame = frame.copy()
    frame["input"] = frame["output"]
    return _standard_columns_first(_with_item_ids(frame, None))

"""Keywords renamed to the glossary's names: each old name still works for one release, with a
DeprecationWarning naming the new one, and gives what the new name gives; both at once is a
TypeError. The twins' signatures show the new names only."""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from _support import REPO

import evaltoolkit as et
from evaltoolkit import meta
from evaltoolkit._internal.deprecation import renamed_keywords

ITEMS = [
    {"key": "x", "q": "Capital of France?", "a": "Paris", "gt": "Paris"},
    {"key": "y", "q": "Capital of Italy?", "a": "Milan", "gt": "Rome"},
]
FRAME = pd.DataFrame(ITEMS)
PAIRS = pd.DataFrame(
    {
        "question": ["Capital of France?", "Capital of Italy?", "Largest planet?"],
        "said": ["Paris", "Milan", "Jupiter"],
        "truth": ["Paris", "Rome", "Jupiter"],
        "correct": [True, False, True],
    }
)
SUMMARIES = pd.DataFrame(
    {
        "article": ["The dam was built in 1998. It holds water.", "Rain fell all day in Oslo."],
        "digest": ["The dam dates from 1998.", "It was sunny in Oslo."],
        "human": [4.0, 1.0],
    }
)
# What a run with custom field names needs besides the renamed keyword.
RUN_FIELDS = {"input_col": "q", "output_col": "a", "ground_truth_col": "gt", "id_col": "key"}
FRAME_COLUMNS = {"input_col": "q", "output_col": "a", "ground_truth_col": "gt"}


def _difference() -> et.Scorer:
    return et.create_textual_difference_scorer()


def _run(**options: Any) -> Any:
    result = et.run_evals(ITEMS, _difference(), progress=False, **options)
    return result.to_frame()[["item_id", "score"]]


def _arun(**options: Any) -> Any:
    result = asyncio.run(et.arun_evals(ITEMS, _difference(), progress=False, **options))
    return result.to_frame()[["item_id", "score"]]


def _estimate(**options: Any) -> Any:
    return et.estimate_cost(ITEMS, et.create_summarization_scorer(), **options).to_frame()


def _score_frame(**options: Any) -> Any:
    return et.score_frame(FRAME, _difference(), progress=False, **options)


def _ascore_frame(**options: Any) -> Any:
    return asyncio.run(et.runner.ascore_frame(FRAME, _difference(), progress=False, **options))


def _meta_answers(**options: Any) -> Any:
    evaluation = meta.meta_evaluate(
        PAIRS, task="answer-similarity", label="correct", n_bootstrap=0, progress=False, **options
    )
    return evaluation.scores


def _ameta_summaries(**options: Any) -> Any:
    evaluation = asyncio.run(
        meta.ameta_evaluate(
            SUMMARIES, task="summarization", label="human", n_bootstrap=0, progress=False, **options
        )
    )
    return evaluation.scores


def _compare_judges(**options: Any) -> Any:
    board = meta.compare_judges(
        SUMMARIES,
        {"offline": et.create_summarization_scorer()},
        label="human",
        n_bootstrap=0,
        progress=False,
        **options,
    )
    return board.drop(columns="mean_latency_s")


RUNS = [
    et.run_evals(
        ITEMS,
        _difference(),
        progress=False,
        input_col="q",
        output_col="a",
        ground_truth_col="gt",
        id_col="key",
    )
]
RUNS.append(
    et.run_evals(
        ITEMS,
        et.create_textual_difference_scorer(scale=2),
        progress=False,
        input_col="q",
        output_col="a",
        ground_truth_col="gt",
        id_col="key",
    )
)


def _loaded(loader: Callable[..., Any], rows: list[dict[str, Any]], **options: Any) -> Any:
    return loader(_RowsFile.of(rows), **options)


class _RowsFile:
    """A JSON Lines file of rows in a temporary folder, written once per set of rows."""

    folder: Any = None

    @classmethod
    def of(cls, rows: list[dict[str, Any]]) -> Any:
        import json
        import tempfile
        from pathlib import Path

        if cls.folder is None:
            cls.folder = tempfile.TemporaryDirectory()
        path = Path(cls.folder.name) / f"{abs(hash(json.dumps(rows)))}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        return path


SUMMEVAL_ROWS = [{"article": "The dam was built.", "digest": "A dam.", "doc_id": "d1"}]
QA_ROWS = [{"q": "Capital?", "pred": "Paris", "gold": ["Paris"], "human_correct": True}]
PAIR_ROWS = [{"left": "a cat", "right": "a dog", "score": 1.0}]


def _summeval(**options: Any) -> Any:
    return _loaded(meta.load_summeval, SUMMEVAL_ROWS, **options)


def _qa(**options: Any) -> Any:
    return _loaded(meta.load_qa_equivalence, QA_ROWS, **options)


def _pairs(**options: Any) -> Any:
    return _loaded(meta.load_sentence_pairs, PAIR_ROWS, **options)


def _compare_scores(**options: Any) -> Any:
    return meta.compare_scores(**options)


# function, old name, new name, the value both take, the other options the call needs
RENAMED: list[tuple[Callable[..., Any], str, str, Any, dict[str, Any]]] = [
    *[
        (call, old, new, RUN_FIELDS[new], {k: v for k, v in RUN_FIELDS.items() if k != new})
        for call in (_run, _arun, _estimate)
        for old, new in [
            ("input_field", "input_col"),
            ("output_field", "output_col"),
            ("ground_truth_field", "ground_truth_col"),
            ("id_field", "id_col"),
        ]
    ],
    *[
        (call, old, new, FRAME_COLUMNS[new], {k: v for k, v in FRAME_COLUMNS.items() if k != new})
        for call in (_score_frame, _ascore_frame)
        for old, new in [
            ("input", "input_col"),
            ("output", "output_col"),
            ("ground_truth", "ground_truth_col"),
        ]
    ],
    (
        _meta_answers,
        "question_col",
        "input_col",
        "question",
        {"output_col": "said", "ground_truth_col": "truth"},
    ),
    (_meta_answers, "answer_col", "output_col", "said", {"ground_truth_col": "truth"}),
    (_meta_answers, "reference_col", "ground_truth_col", "truth", {"output_col": "said"}),
    (_ameta_summaries, "source_col", "input_col", "article", {"output_col": "digest"}),
    (_ameta_summaries, "summary_col", "output_col", "digest", {"input_col": "article"}),
    (_compare_judges, "source_col", "input_col", "article", {"output_col": "digest"}),
    (_compare_judges, "summary_col", "output_col", "digest", {"input_col": "article"}),
    (_summeval, "source", "input_col", "article", {"output_col": "digest"}),
    (_summeval, "summary", "output_col", "digest", {"input_col": "article"}),
    (_qa, "question", "input_col", "q", {"output_col": "pred", "ground_truth_col": "gold"}),
    (_qa, "candidate", "output_col", "pred", {"input_col": "q", "ground_truth_col": "gold"}),
    (_qa, "answers", "ground_truth_col", "gold", {"input_col": "q", "output_col": "pred"}),
    (_pairs, "first", "output_col", "left", {"ground_truth_col": "right"}),
    (_pairs, "second", "ground_truth_col", "right", {"output_col": "left"}),
    (_compare_scores, "before", "a", RUNS[0], {"b": RUNS[1]}),
    (_compare_scores, "after", "b", RUNS[1], {"a": RUNS[0]}),
]


@pytest.mark.parametrize(
    ("call", "old", "new", "value", "others"),
    RENAMED,
    ids=[f"{call.__name__.lstrip('_')}-{old}" for call, old, *_ in RENAMED],
)
def test_an_old_keyword_warns_and_gives_what_the_new_one_gives(
    call: Callable[..., Any], old: str, new: str, value: Any, others: dict[str, Any]
) -> None:
    expected = call(**others, **{new: value})
    with pytest.warns(DeprecationWarning, match=rf"{old}= is deprecated; use {new}= instead"):
        got = call(**others, **{old: value})
    pd.testing.assert_frame_equal(got, expected)
    with pytest.raises(TypeError, match=rf"pass {new}= only \({old}= is its deprecated name\)"):
        call(**others, **{new: value, old: value})


@pytest.mark.parametrize(
    "function",
    [
        et.run_evals,
        et.arun_evals,
        et.estimate_cost,
        et.score_frame,
        meta.meta_evaluate,
        meta.compare_judges,
        meta.compare_scores,
    ],
    ids=lambda function: function.__name__,
)
def test_signatures_show_the_new_names_only(function: Callable[..., Any]) -> None:
    names = set(inspect.signature(function).parameters)
    old = {
        "input_field",
        "output_field",
        "ground_truth_field",
        "id_field",
        "input",
        "output",
        "ground_truth",
        "source_col",
        "question_col",
        "summary_col",
        "answer_col",
        "reference_col",
        "before",
        "after",
    }
    assert not names & old


def test_the_decorator_refuses_a_new_name_the_function_lacks() -> None:
    def count(*, input_col: str = "input") -> str:
        return input_col

    with pytest.raises(TypeError, match="has no parameter 'output_col'"):
        renamed_keywords(output_field="output_col")(count)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert renamed_keywords(input_field="input_col")(count)(input_col="q") == "q"


def test_the_changelog_names_every_deprecated_keyword_and_its_function() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    renamed: dict[str, dict[str, str]] = {}
    for package in (et, meta):
        for name in package.__all__:
            renames = getattr(getattr(package, name), "__renamed_keywords__", None)
            if renames:
                renamed[name] = renames

    assert {"run_evals", "score_frame", "meta_evaluate", "compare_scores"} <= set(renamed)
    for function, renames in renamed.items():
        assert f"`{function}`" in changelog, f"{function} is missing from CHANGELOG.md"
        for old, new in renames.items():
            assert f"`{old}`" in changelog, f"{function}: {old}= is missing from CHANGELOG.md"
            assert f"`{new}`" in changelog

"""The PromptTuner on SummEval dev: a harmful offline setting is never read as one to keep."""

from __future__ import annotations

import re

import pytest
from _support import benchmarks_dir

import evaltoolkit as et
from evaltoolkit.meta import agreement_change, load_summeval
from evaltoolkit.widgets import PromptTuner


@pytest.mark.benchmarks
def test_dropping_key_phrase_questions_reads_as_worse_not_kept() -> None:
    # Issue 32: on SummEval dev (800 summaries, 25 + 25 documents), mention_share=0 lowers
    # agreement with relevance on both parts (pooled Spearman: tune -0.067, test -0.078, both
    # intervals below 0), and the tuner printed "confirmed on test", which the README said to
    # keep.
    summeval = load_summeval(benchmarks_dir() / "summeval_dev.jsonl")
    tuner = PromptTuner(
        et.create_summarization_scorer(reason="template"),
        summeval,
        labels="relevance",
        sample=len(summeval),
    )
    assert tuner.split is not None
    assert tuner.split.value_counts().to_dict() == {"tune": 400, "test": 400}
    tuner.sliders["mention_share"].value = 0.0
    comparison = tuner.run()
    assert comparison.groupby("part")["doc_id"].nunique().to_dict() == {"tune": 25, "test": 25}

    # The default reading, per document: the test interval includes 0, so it cannot tell,
    # and says that this is no reason to keep the edit.
    assert tuner.agreement is not None
    spearman = tuner.agreement.query("metric == 'spearman'").set_index("part")
    assert set(tuner.agreement["level"]) == {"per_group"}
    assert spearman.loc["test", "change"] < 0 and spearman.loc["tune", "change"] < 0
    assert tuner.verdict == "cannot tell"
    shown = re.sub(r"<[^>]+>", "", tuner.results.value)
    assert "Verdict (per-document Spearman of the final score): cannot tell." in shown
    assert "this is no reason to keep the edit" in shown
    assert "supports keeping" not in shown

    # Pooled, as the tuner used to read it: worse on test, and never a reason to keep it.
    pooled = agreement_change(
        comparison, "relevance", group="doc_id", split="part", level="pooled", n_bootstrap=200
    ).query("metric == 'spearman'")
    test = pooled.set_index("part").loc["test"]
    assert test["change_ci_high"] < 0
    assert test["verdict"] == "worse on test"
    assert pooled.set_index("part").loc["tune", "change_ci_high"] < 0

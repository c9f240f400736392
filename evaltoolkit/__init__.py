"""evaltoolkit: score LLM outputs in Jupyter.

Three scorers, each a factory returning a scorer with ``run``/``arun``:

- :func:`create_summarization_scorer`: alignment and coverage of a summary, judged by a model;
- :func:`create_answer_similarity_scorer`: an answer against its ground truth, judged by a model;
- :func:`create_textual_difference_scorer`: sequence matching, no model.

:func:`create_judged_scorer` builds your own judged scorer from :class:`Step` objects.
:func:`run_evals` scores a data set and returns an :class:`EvalResult` that exports
DataFrames. Without a model, the built-in offline judge answers (no API key, no network).

The package is layered by folder; each layer imports only those before it: records (with
``_internal``, the helpers any layer may import) -> judge (model calls only; it knows no
scorer) -> scorers (steps, offline answers, formulas) -> runner -> meta (agreement with human
labels) -> views (plots, widgets, report) -> cli.

Example:
    >>> import evaltoolkit as et
    >>> scorer = et.create_textual_difference_scorer()
    >>> scorer.run(input="q", output="Paris", ground_truth="Paris").score
    1.0
"""

from __future__ import annotations

from ._version import __version__
from .errors import (
    ConfigurationError,
    DataLoadError,
    EvalToolkitError,
    InputError,
    JudgeCallError,
    JudgeError,
    JudgeReplyError,
    MissingDependencyError,
)
from .judge import JudgeConfig, create_judge
from .meta import acompare_judges, compare_judges, compare_runs, repeatability
from .records import (
    EvalResult,
    ItemResult,
    ModelCall,
    ScoreResult,
    ScoreSummary,
    StepError,
    Usage,
    read_results,
)
from .records.messages import ToolResult, extract_tool_results
from .runner import CostEstimate, arun_evals, ascore_frame, estimate_cost, run_evals, score_frame
from .scorers import (
    AnswerSimilarityOfflineSettings,
    Sample,
    Score,
    Scorer,
    Step,
    StepContext,
    SummarizationOfflineSettings,
    create_answer_similarity_scorer,
    create_judged_scorer,
    create_scorer,
    create_summarization_scorer,
    create_textual_difference_scorer,
)

__all__ = [
    "AnswerSimilarityOfflineSettings",
    "ConfigurationError",
    "CostEstimate",
    "DataLoadError",
    "EvalResult",
    "EvalToolkitError",
    "InputError",
    "ItemResult",
    "JudgeCallError",
    "JudgeConfig",
    "JudgeError",
    "JudgeReplyError",
    "MissingDependencyError",
    "ModelCall",
    "Sample",
    "Score",
    "ScoreResult",
    "ScoreSummary",
    "Scorer",
    "Step",
    "StepContext",
    "StepError",
    "SummarizationOfflineSettings",
    "ToolResult",
    "Usage",
    "__version__",
    "acompare_judges",
    "arun_evals",
    "ascore_frame",
    "compare_judges",
    "compare_runs",
    "create_answer_similarity_scorer",
    "create_judge",
    "create_judged_scorer",
    "create_scorer",
    "create_summarization_scorer",
    "create_textual_difference_scorer",
    "estimate_cost",
    "extract_tool_results",
    "read_results",
    "repeatability",
    "run_evals",
    "score_frame",
]

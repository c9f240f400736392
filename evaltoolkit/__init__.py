"""evaltoolkit: score LLM outputs in Jupyter.

Three scorers, each a factory returning a scorer with ``run``/``arun``:

- :func:`create_summarization_scorer`: alignment and coverage of a summary, judged by a model;
- :func:`create_answer_similarity_scorer`: an answer against its ground truth, judged by a model;
- :func:`create_textual_difference_scorer`: sequence matching, no model.

:func:`run_evals` scores a data set and returns an :class:`EvalResult` that exports
DataFrames. Without a model, the built-in offline judge answers (no API key, no network).

Example:
    >>> import evaltoolkit as et
    >>> scorer = et.create_textual_difference_scorer()
    >>> scorer.run(input="q", output="Paris", ground_truth="Paris").score
    1.0
"""

from __future__ import annotations

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
from .judge import create_judge
from .messages import ToolResult, extract_tool_results
from .meta import compare_judges
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
from .runner import arun_evals, ascore_frame, run_evals, score_frame
from .scorers import (
    Scorer,
    create_answer_similarity_scorer,
    create_scorer,
    create_summarization_scorer,
    create_textual_difference_scorer,
)

__version__ = "0.1.0"

__all__ = [
    "ConfigurationError",
    "DataLoadError",
    "EvalResult",
    "EvalToolkitError",
    "InputError",
    "ItemResult",
    "JudgeCallError",
    "JudgeError",
    "JudgeReplyError",
    "MissingDependencyError",
    "ModelCall",
    "ScoreResult",
    "ScoreSummary",
    "Scorer",
    "StepError",
    "ToolResult",
    "Usage",
    "__version__",
    "arun_evals",
    "ascore_frame",
    "compare_judges",
    "create_answer_similarity_scorer",
    "create_judge",
    "create_scorer",
    "create_summarization_scorer",
    "create_textual_difference_scorer",
    "extract_tool_results",
    "read_results",
    "run_evals",
    "score_frame",
]

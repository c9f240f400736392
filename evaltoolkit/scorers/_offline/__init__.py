"""The offline judge: answers the scorers' judge steps from the texts alone.

No model, no network, no randomness: the same input always gives the same output. Each
function answers one structured step an LLM judge would answer, in the same shape.

- :func:`judge_source` (summarization step 1): the summary's atomic claims, each judged
  supported or not against its best source evidence, and closed questions drawn from the
  source's most central facts.
- :func:`judge_coverage` (summarization step 2): whether the summary alone answers each
  question "yes". It never sees the source.
- :func:`extract_units` and :func:`analyze_units` (answer similarity): the semantic units of an
  output and a ground truth, and how each ground-truth unit is matched (exact, semantic,
  partial, missing), with contradictions and extra information.
"""

from ._answers import analyze_units, extract_units
from ._summarization import judge_coverage, judge_source

__all__ = ["analyze_units", "extract_units", "judge_coverage", "judge_source"]

"""The built-in scorers registered, in a fixed order: each folder declares its own entry.

The order is the registry's (``scorer_ids()``): the three scorers, then the baselines, whatever
order the modules happen to be imported in.
"""

from __future__ import annotations

from ._baseline_registration import BASELINE_SPECS
from ._registry import register_scorer
from .answer_similarity import ANSWER_SIMILARITY_SPEC
from .summarization import SUMMARIZATION_SPEC
from .textual_difference import TEXTUAL_DIFFERENCE_SPEC

__all__: list[str] = []

for _spec in (SUMMARIZATION_SPEC, ANSWER_SIMILARITY_SPEC, TEXTUAL_DIFFERENCE_SPEC, *BASELINE_SPECS):
    register_scorer(_spec)

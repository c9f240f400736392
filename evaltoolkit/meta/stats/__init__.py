"""The statistics behind meta's figures, on numpy arrays: no DataFrames, no runs, no judges.

- :mod:`.resampling`: the one resampling module that every bootstrap interval and resampled
  test draws from.
- :mod:`.reliability`: Cohen's kappa and Krippendorff's alpha (sklearn's and krippendorff's).
- :mod:`.chance`: kappa, alpha and exact accuracy rows for few-valued labels, and the
  baselines (majority label, random score).
- :mod:`.system`: system-level correlations and the boot-both draws (items and systems).
- :mod:`.levels`: paired intervals of two judges' agreement per group and per system.
- :mod:`.signed_rank`: Wilcoxon's signed-rank test of paired differences.
- :mod:`.williams`: Williams' test of two dependent correlations sharing a variable.

The public statistics are re-exported by :mod:`evaltoolkit.meta`; this package exports
nothing of its own.
"""

from __future__ import annotations

__all__: list[str] = []

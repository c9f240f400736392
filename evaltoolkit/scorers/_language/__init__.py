"""Text tools shared by the scorers' offline judges and baselines.

``_text``: tokens, stems, sentences and clauses, and the word lists (stopwords, hedges, month
names); ``_memo``: a property computed once per object; ``_quotes``: texts quoted in a reason.
"""

from ._quotes import quoted

__all__ = ["quoted"]

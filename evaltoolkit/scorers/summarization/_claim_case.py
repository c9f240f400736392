"""What a claim check reads: the claim's words, its evidence, and the case put together.

:class:`_Case` is the one argument of every check of ``CLAIM_RULES`` (in ``_claims`` and
``_verb_checks``); the two constants here are read by both modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .._language._text import word_set
from ._document import SourceDocument, TextUnit
from ._settings import SummarizationOfflineSettings

# Cost bound (not tuned: it only caps the work on very long sources).
_POSTINGS_BUDGET = 4096
_BE_FORMS = word_set("is are was were be been being")


@dataclass(frozen=True)
class _ClaimWord:
    """A content word of a claim and what it weighs."""

    stem: str
    surface: str
    position: int
    weight: float
    # A name, number or noun (not a verb or adverb): what a paraphrase must keep.
    key: bool
    # A number, the day of a date, or the word right after a number (its unit: "4 pm").
    value: bool


@dataclass(frozen=True)
class _Evidence:
    """The source sentence read as evidence for a claim, and how much of the claim it states."""

    index: int
    last: int
    unit: TextUnit
    context: frozenset[str]
    support: float
    missing: tuple[_ClaimWord, ...]
    paraphrase: bool

    def has(self, stem: str) -> bool:
        return stem in self.unit.stems or stem in self.context


class _Case(NamedTuple):
    """What a claim check reads: the claim, its evidence, the document and the settings."""

    claim: TextUnit
    evidence: _Evidence
    document: SourceDocument
    settings: SummarizationOfflineSettings

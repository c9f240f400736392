"""The settings of the offline summarization judge: its six tuned values and the rules switched off.

How the defaults were chosen: by a grid search over the ranges below on all the human-labelled
dev sets together (SummEval, REALSumm, Rank19, Newsroom), maximising the judge's mean
improvement over a content-word-overlap baseline, and checked set by set with that set left out
of the search (``benchmarks/offline_quality.py`` prints both).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._offline_settings import OfflineSettings, setting

__all__ = ["SummarizationOfflineSettings"]


@dataclass(frozen=True)
class SummarizationOfflineSettings(OfflineSettings):
    """Settings of the offline summarization judge (``judge_source`` and ``judge_coverage``).

    Every value is checked against its range on construction.

    Attributes:
        claim_support: Share of a claim's content (each word weighted by how specific it is to
            the document) that its evidence, one source sentence and what that sentence refers
            to, must state for the claim to count as supported.
        phrase_gap: Most words the source sentence may have between two names, nouns or
            numbers that a claim puts side by side; more, and the claim joins what the source
            keeps apart ("Seven games involving Nimes were arrested" from "... were
            investigated after Conrad was arrested"). Words of a comma-delimited aside between
            them do not count.
        verb_gap: The same for a verb or adverb and the word next to it in the claim.
        question_lead_bias: How strongly questions favour the start of the source: a fact's
            importance is divided by ``(1 + sentence index) ** question_lead_bias``.
        mention_share: Share of the questions that ask whether the summary mentions one of the
            source's key names or phrases ("Does the text mention ...?"); the others ask whether
            it states one of the source's central facts.
        answer_share: Share of a question's fact (names and numbers included, each word
            weighted) that one sentence of the summary must state for the question to count
            as answered.
        disabled_rules: Names of rules switched off (see ``OFFLINE_RULES``): each decides
            no verdict then, as if it were not there. Empty by default.

    Example:
        >>> settings = SummarizationOfflineSettings(claim_support=0.8, verb_gap=3)
        >>> settings.claim_support, settings.verb_gap
        (0.8, 3)
        >>> SummarizationOfflineSettings.from_mapping({"answer_share": 0.6}).answer_share
        0.6
    """

    claim_support: float = setting(
        0.9,
        0.5,
        1.0,
        "Share of a claim's content its evidence sentence must state for the claim to count "
        "as supported.",
    )
    phrase_gap: int = setting(
        4,
        0,
        6,
        "Most words the source may have between two names, nouns or numbers that a claim "
        "puts side by side (words of an aside set off by commas do not count).",
    )
    verb_gap: int = setting(
        8,
        0,
        10,
        "Most words the source may have between a verb or adverb and the word a claim puts "
        "next to it.",
    )
    question_lead_bias: float = setting(
        0.5,
        0.0,
        3.0,
        "How strongly questions favour the start of the source: a fact's importance is "
        "divided by (1 + its sentence's index) to this power.",
    )
    mention_share: float = setting(
        0.6,
        0.0,
        1.0,
        "Share of the questions that ask whether the summary mentions a key name or phrase "
        "of the source; the rest ask whether it states a central fact.",
    )
    answer_share: float = setting(
        0.6,
        0.1,
        1.0,
        "Share of a question's fact that one summary sentence must state "
        "for the question to count as answered.",
    )
    disabled_rules: frozenset[str] = frozenset()

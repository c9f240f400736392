"""Offline answers to the summarization steps: claim support, source questions, coverage.

Step 1 (:func:`judge_source`) sees the source and the summary: the summary's claims, each
judged against its best evidence in the source (:mod:`._claims`), and closed questions about
the source's central facts and key phrases (:mod:`._questions`).

Step 2 (:func:`judge_coverage`) never sees the source: each question is answered from the
summary alone (:mod:`._questions`).

Both take the judge's few tuned settings (:class:`SummarizationOfflineSettings`). Each
verdict names the rule that decided it (``rule``); :data:`OFFLINE_RULES` lists them, and
``settings.disabled_rules`` switches any but the default verdicts off.

Cost: every step grows about linearly with the length of the texts (each claim reads a bounded
number of source sentences, found through an index of the source's words). Texts longer than
``MAX_SOURCE_CHARS`` (a source) or ``MAX_SUMMARY_CHARS`` (a summary) are refused with an
:class:`~evaltoolkit.errors.InputError` that becomes that item's error (NaN score) rather than
a long wait: judge such texts with a model judge, or split them and score the parts.
"""

from __future__ import annotations

import difflib
from typing import Any

from ...errors import ConfigurationError, InputError
from .._offline_settings import OfflineRule
from ._claims import CLAIM_RULES, ClaimCheck, judge_claim, split_claims
from ._questions import QUESTION_RULES, QuestionCheck, answer_questions, draw_questions
from ._settings import SummarizationOfflineSettings

#: Every named rule of the offline summarization judge: the claim rules, then the question
#: rules (each with its name, the verdicts it decides, the verdict it gives, its purpose, its
#: check and its kind).
OFFLINE_RULES: tuple[OfflineRule[ClaimCheck] | OfflineRule[QuestionCheck], ...] = (
    CLAIM_RULES + QUESTION_RULES
)

# About 2 MB of text, some 350,000 words: ten seconds and a few hundred MB to judge.
MAX_SOURCE_CHARS = 2_000_000
# About 200 KB, some 35,000 words: a summary longer than that is a document of its own.
MAX_SUMMARY_CHARS = 200_000


def _check_size(text: str, limit: int, what: str, field: str) -> None:
    """Refuse a text over the offline judge's size limit, saying what to do instead."""
    if len(text) > limit:
        raise InputError(
            f"the {what} has {len(text):,} characters, more than the offline judge's limit of "
            f"{limit:,} ({'MAX_SOURCE_CHARS' if field == 'source' else 'MAX_SUMMARY_CHARS'}); "
            f"judge it with a model judge (create_summarization_scorer('<model>')), or split "
            f"the text into parts under the limit and score each part",
            field=field,
        )


def check_rules(settings: SummarizationOfflineSettings) -> SummarizationOfflineSettings:
    """Refuse ``disabled_rules`` naming no rule, or a default verdict (which has no check).

    Returns:
        The settings, when every name is a rule that can be switched off.

    Raises:
        ConfigurationError: An unknown name (with the closest rule name), or a default
            verdict such as ``supported``.

    Example:
        >>> check_rules(SummarizationOfflineSettings(disabled_rules={"changd_number"}))
        Traceback (most recent call last):
        ...
        evaltoolkit.errors.ConfigurationError: unknown offline rule 'changd_number'; did you \
mean 'changed_number'? See OFFLINE_RULES for the rules that can be switched off
    """
    switchable = [rule.name for rule in OFFLINE_RULES if rule.check is not None]
    for name in sorted(settings.disabled_rules - set(switchable)):
        if any(rule.name == name for rule in OFFLINE_RULES):
            raise ConfigurationError(
                f"offline rule {name!r} is the verdict given when no check decides and cannot "
                f"be switched off; choose among {', '.join(switchable)}"
            )
        close = difflib.get_close_matches(name, switchable, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ";"
        raise ConfigurationError(
            f"unknown offline rule {name!r}{hint} See OFFLINE_RULES for the rules that can be "
            "switched off"
        )
    return settings


def judge_source(
    source: str,
    summary: str,
    max_questions: int,
    *,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Judge a summary's claims against its source and draw questions from the source.

    Args:
        source: The source document.
        summary: The summary to judge.
        max_questions: The most questions to draw from the source.
        settings: The judge's settings (None: the defaults).

    Returns:
        ``{"claims": [{"claim", "supported", "reason", "rule"}, ...], "questions": [str, ...]}``;
        ``rule`` names the entry of :data:`OFFLINE_RULES` that decided the verdict.

    Raises:
        InputError: The source is longer than ``MAX_SOURCE_CHARS`` (``field="source"``) or the
            summary longer than ``MAX_SUMMARY_CHARS`` (``field="output"``).
        ConfigurationError: ``settings.disabled_rules`` names no rule that can be switched off.

    Example:
        >>> source = "In 1995 John Smith founded Acme in Boston. Today Acme makes robots."
        >>> result = judge_source(source, "John Smith founded Acme in 1997.", 2)
        >>> [claim["supported"] for claim in result["claims"]]
        [False]
        >>> result["questions"][0]
        'Does the text say that in 1995 John Smith founded Acme in Boston?'
    """
    _check_size(source, MAX_SOURCE_CHARS, "source", "source")
    _check_size(summary, MAX_SUMMARY_CHARS, "summary", "output")
    settings = check_rules(settings or SummarizationOfflineSettings())
    claims = [judge_claim(claim, source, settings) for claim in split_claims(summary)]
    return {"claims": claims, "questions": draw_questions(source, max_questions, settings)}


def judge_coverage(
    summary: str,
    questions: list[str],
    *,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Decide from the summary alone whether it answers each question "yes".

    Args:
        summary: The summary text.
        questions: Closed questions whose text carries the fact asked about.
        settings: The judge's settings (None: the defaults).

    Returns:
        ``{"verdicts": [{"question", "answered", "reason", "rule"}, ...]}``, one per question
        in order; the reason quotes the part of the summary that states the fact, or the
        closest one, and ``rule`` names the rule that decided.

    Raises:
        InputError: The summary is longer than ``MAX_SUMMARY_CHARS`` (``field="output"``).

    Example:
        >>> reply = judge_coverage("Acme was founded in 1995.", ["Does the text mention Acme?"])
        >>> reply["verdicts"][0]["answered"]
        True
    """
    _check_size(summary, MAX_SUMMARY_CHARS, "summary", "output")
    settings = check_rules(settings or SummarizationOfflineSettings())
    return {"verdicts": answer_questions(summary, questions, settings)}


def draw_source_questions(
    source: str,
    max_questions: int,
    *,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Draw the closed questions of a source from the source alone (``questions="per_source"``).

    The same questions :func:`judge_source` draws, in a step that never sees a summary.

    Returns:
        ``{"questions": [str, ...]}``.

    Raises:
        InputError: The source is longer than ``MAX_SOURCE_CHARS`` (``field="source"``).

    Example:
        >>> source = "In 1995 John Smith founded Acme in Boston. Today Acme makes robots."
        >>> drawn = draw_source_questions(source, 2)["questions"]
        >>> drawn == judge_source(source, "Acme makes robots.", 2)["questions"]
        True
    """
    _check_size(source, MAX_SOURCE_CHARS, "source", "source")
    settings = settings or SummarizationOfflineSettings()
    return {"questions": draw_questions(source, max_questions, settings)}


def judge_claims(
    source: str,
    summary: str,
    *,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Judge a summary's claims against its source, drawing no question (``"per_source"``).

    Returns:
        ``{"claims": [{"claim", "supported", "reason", "rule"}, ...]}``, as :func:`judge_source`.

    Raises:
        InputError: A text over the offline judge's size limits.

    Example:
        >>> source = "In 1995 John Smith founded Acme in Boston."
        >>> [c["supported"] for c in judge_claims(source, "Acme was founded in 1995.")["claims"]]
        [True]
    """
    _check_size(source, MAX_SOURCE_CHARS, "source", "source")
    _check_size(summary, MAX_SUMMARY_CHARS, "summary", "output")
    settings = check_rules(settings or SummarizationOfflineSettings())
    return {"claims": [judge_claim(claim, source, settings) for claim in split_claims(summary)]}

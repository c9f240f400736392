"""Closed questions drawn from a source, and answering them from a summary alone.

Drawing (sees the source only) asks two kinds of question, ``settings.mention_share`` of them
of the second kind:

- "Does the text say that <fact>?": every source sentence is split into atomic facts
  (:func:`sentence_facts`), ranked by the centrality of their sentence (the mean log number of
  sentences that repeat each of its words) divided by ``(1 + sentence index) **
  settings.question_lead_bias``, because news puts what matters first. Run-ons longer than
  ``MAX_FACT_WORDS`` words are not asked.
- "Does the text mention <phrase>?": the key phrases of the source, runs of names, nouns and
  numbers (a negation such as "not" is none of these, and ends a run), ranked by how much
  every one of their words recurs through the document (the harmonic mean of the number of
  sentences using each) with the same lead prior; no two share a word.

Each question carries its fact or phrase, so answering needs nothing else.

Answering (sees the summary and the question only, never the source): the question is answered
when one sentence of the summary holds at least
``settings.answer_share`` of the fact's content words and every number and date of it: the
fact must be stated in one sentence, not pieced together from words scattered over the summary.
The verdict's reason quotes that place.

Cost: drawing reads each source sentence once (then sorts the candidates); answering compares
each question with each place of the summary, so both grow linearly with the texts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .._language._text import Token, clean_clause, split_sentences, tokenize, word_set
from .._offline_settings import OfflineRule, rule_named, rules_of_kind
from ._document import TextUnit, analyse_source, detokenize, excerpt
from ._facts import Fact, sentence_facts
from ._settings import SummarizationOfflineSettings

# Facts asked about carry at least this many content words.
MIN_FACT_CONTENT = 5
# Longer facts are run-ons (often photo captions glued to the text) and are not asked.
MAX_FACT_WORDS = 40

QUESTION_PREFIX = "Does the text say that "
MIN_RECURRENCE = 2
MENTION_PREFIX = "Does the text mention "
_QUESTION_FRAME_RE = re.compile(
    r"^\s*(?:does|do|did|is|are|was|were|has|have|had)\s+(?:the\s+)?"
    r"(?:text|document|source|article|passage|story|report)\s+"
    r"(?:say|state|mention|report|claim|indicate|note)s?\s+(?:that\s+)?",
    re.IGNORECASE,
)
# Words of a question's frame, never part of the fact asked about.
_QUESTION_WORDS = word_set(
    "does do did is are was were has have had text document source article passage say "
    "state mention"
)
# Openings and endings that make a fact read as a fragment: stray punctuation and quotes.
_LEADING_NOISE_RE = re.compile(r"^[^\w(]+")
_TRAILING_NOISE_RE = re.compile(r"[\s,;:\-'\"`]+$")


@dataclass(frozen=True, order=True)
class _RankedFact:
    """A candidate fact, ordered most important first (then in document order)."""

    negative_importance: float
    sentence_index: int
    order: int
    fact: Fact = field(compare=False)
    stems: frozenset[str] = field(compare=False)


def _as_question(fact: Fact, names: frozenset[str]) -> str:
    """Phrase a fact as "Does the text say that <fact>?" (or "mention <thing>?")."""
    text = detokenize(clean_clause(fact.text))
    text = _TRAILING_NOISE_RE.sub("", _LEADING_NOISE_RE.sub("", text)).strip()
    tokens = tokenize(text)
    first = tokens[0] if tokens else None
    second = tokens[1] if len(tokens) > 1 else None
    keeps_capital = first is not None and (
        first.stem in names
        or first.norm == "i"
        or (len(first.surface) > 1 and first.surface.isupper())
        # The first word of a name whose other word is known: "Maria Lopez".
        or (first.capitalized and second is not None and second.stem in names)
    )
    if first is not None and not keeps_capital:
        # The fact no longer starts a sentence: "... say that the company ...".
        text = text[:1].lower() + text[1:]
    return f"{MENTION_PREFIX if fact.mention else QUESTION_PREFIX}{text}?"


@dataclass(frozen=True)
class _Mention:
    """A key name or phrase of the source: a run of names, nouns and numbers of a sentence."""

    sentence_index: int
    text: str
    stems: tuple[str, ...]
    # The harmonic mean of how many sentences use each of its words: high when every word of
    # the phrase recurs through the document.
    recurrence: float


@lru_cache(maxsize=8)
def _facts(source: str) -> tuple[tuple[_RankedFact, ...], frozenset[str]]:
    """Every fact worth asking about, with its sentence's centrality (no lead prior yet)."""
    document = analyse_source(source)
    candidates: list[_RankedFact] = []
    for index, sentence in enumerate(document.sentences):
        if sentence.text.rstrip(" '\"`").endswith("?"):
            continue  # the source asks it: no fact
        centrality = document.centrality(sentence)
        for order, fact in enumerate(sentence_facts(sentence.text, MIN_FACT_CONTENT)):
            unit = TextUnit.of(fact.text)
            if len(unit.stems) >= MIN_FACT_CONTENT and len(fact.text.split()) <= MAX_FACT_WORDS:
                candidates.append(_RankedFact(-centrality, index, order, fact, unit.stems))
    return tuple(candidates), document.names


@lru_cache(maxsize=8)
def _mentions(source: str) -> tuple[_Mention, ...]:
    """Every key phrase of a source (first occurrences), in document order."""
    document = analyse_source(source)
    found: dict[tuple[str, ...], _Mention] = {}
    for index, sentence in enumerate(document.sentences):
        tokens = sentence.tokens
        run: list[int] = []
        for position in [*range(len(tokens)), len(tokens)]:
            token = tokens[position] if position < len(tokens) else None
            if (
                token is not None
                and token.is_content
                and not token.is_ordinal
                and not token.is_negation
                and position not in sentence.light_positions
            ):
                run.append(position)
                continue
            stems = tuple(tokens[p].stem for p in run)
            if run and stems not in found:
                counts = [document.sentence_frequency.get(stem, 1) for stem in stems]
                text = sentence.text[tokens[run[0]].start : tokens[run[-1]].end]
                recurrence = len(counts) / math.fsum(1.0 / count for count in counts)
                found[stems] = _Mention(index, detokenize(text), stems, recurrence)
            run = []
    return tuple(found.values())


def _chosen_facts(source: str, count: int, lead_bias: float) -> list[str]:
    """The ``count`` most important facts, each asked once."""
    candidates, names = _facts(source)
    ranked = sorted(
        candidates,
        key=lambda c: (c.negative_importance / (1.0 + c.sentence_index) ** lead_bias, c),
    )
    chosen: list[_RankedFact] = []
    asked: set[frozenset[str]] = set()
    for candidate in ranked:
        if len(chosen) >= count:
            break
        if candidate.stems not in asked:
            chosen.append(candidate)
            asked.add(candidate.stems)
    return [_as_question(candidate.fact, names) for candidate in chosen]


def _chosen_mentions(source: str, count: int, lead_bias: float) -> list[str]:
    """The ``count`` key phrases that recur most (early ones first), sharing no word."""
    ranked = sorted(
        _mentions(source),
        key=lambda m: (-m.recurrence / (1.0 + m.sentence_index) ** lead_bias, m.sentence_index),
    )
    chosen: list[_Mention] = []
    used: set[str] = set()
    for mention in ranked:
        if len(chosen) >= count:
            break
        if mention.recurrence >= MIN_RECURRENCE and used.isdisjoint(mention.stems):
            chosen.append(mention)
            used.update(mention.stems)
    return [f"{MENTION_PREFIX}{mention.text}?" for mention in chosen]


def draw_questions(
    source: str, max_questions: int, settings: SummarizationOfflineSettings | None = None
) -> list[str]:
    """Ask about the source's central facts and key phrases, as closed yes/no questions.

    ``settings.mention_share`` of the questions ask whether the summary mentions a key phrase
    (a run of names, nouns and numbers whose words recur through the document); the others
    ask whether it states a central fact. Both favour the start of the source as
    ``settings.question_lead_bias`` says. Facts come first, then phrases; when a source has
    too few of one kind, the other fills in.

    Args:
        source: The source document.
        max_questions: The most questions to return.
        settings: The judge's settings (None: the defaults).

    Returns:
        Questions answerable "yes" from the source.

    Example:
        >>> source = "In 1995 John Smith founded Acme in Boston. Today Acme makes robots."
        >>> draw_questions(source, 2)
        ['Does the text say that in 1995 John Smith founded Acme in Boston?', \
'Does the text mention Acme?']
    """
    settings = settings or SummarizationOfflineSettings()
    total = max(max_questions, 0)
    mentions = round(total * settings.mention_share)
    facts = _chosen_facts(source, total - mentions, settings.question_lead_bias)
    phrases = _chosen_mentions(source, total - len(facts), settings.question_lead_bias)
    if len(facts) + len(phrases) < total:
        facts = _chosen_facts(source, total - len(phrases), settings.question_lead_bias)
    return facts + phrases


def question_fact(question: str) -> str:
    """The fact a closed question asks about, without its question frame.

    Args:
        question: A question such as "Does the text say that X?".

    Returns:
        The fact ("X").
    """
    return _QUESTION_FRAME_RE.sub("", question.strip()).rstrip(" ?").strip()


def _fact_stems(fact: TextUnit) -> list[str]:
    """The distinct content stems of a fact, in order, without the question's frame words."""
    return list(
        dict.fromkeys(
            token.stem
            for token in fact.tokens
            if token.is_content and token.norm not in _QUESTION_WORDS
        )
    )


def _quote(tokens: list[Token]) -> str:
    return ", ".join(dict.fromkeys(token.surface for token in tokens))


#: A question check: whether the fact is missing from the summary, given the fact, the summary
#: sentence holding most of it (None: none holds any), the share it holds and the share needed.
QuestionCheck = Callable[[TextUnit, TextUnit | None, float, float], bool]


def _missing_words(fact: TextUnit, best: TextUnit | None, share: float, needed: float) -> bool:
    return best is None or share < needed - 1e-9


def _missing_number(fact: TextUnit, best: TextUnit | None, share: float, needed: float) -> bool:
    return best is not None and bool(fact.values - best.values)


#: The named rules of a question verdict: a question is ``answered`` when one summary
#: sentence holds ``answer_share`` of its fact's content words and every number and date of
#: it (the ``default`` rule), unless a ``missing`` check finds otherwise (the first in table
#: order that does names the verdict): no
#: sentence holds ``answer_share`` (``missing_words``), or the sentence holding the most
#: lacks a number or date (``missing_number``: "founded in 2001" does not answer "founded in
#: 1995").
QUESTION_RULES: tuple[OfflineRule[QuestionCheck], ...] = (
    OfflineRule("answered", "question", True, "one sentence states the fact", None, "default"),
    OfflineRule(
        "missing_words",
        "question",
        False,
        "no place states answer_share",
        _missing_words,
        "missing",
    ),
    OfflineRule(
        "missing_number",
        "question",
        False,
        "a number or date is missing",
        _missing_number,
        "missing",
    ),
)
_ANSWERED = rule_named(QUESTION_RULES, "answered").name
_MISSING = rules_of_kind(QUESTION_RULES, "missing")


def answer_question(
    question: str,
    sentences: list[TextUnit],
    answer_share: float,
    disabled_rules: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Decide from a summary's sentences alone whether it states a question's fact.

    Args:
        question: A closed question that carries its fact.
        sentences: The summary's sentences.
        answer_share: The share of the fact's content words one sentence must hold.
        disabled_rules: Names of :data:`QUESTION_RULES` switched off.

    Returns:
        ``{"question", "answered", "reason", "rule"}``; the reason quotes the closest sentence,
        the rule names the entry of :data:`QUESTION_RULES` that decided.

    Example:
        >>> sentences = [TextUnit.of("John Smith founded Acme in 1995.")]
        >>> question = "Does the text say that Acme was founded in 1995?"
        >>> answer_question(question, sentences, answer_share=0.6)["rule"]
        'answered'
    """
    fact = TextUnit.of(question_fact(question))
    stems = _fact_stems(fact)
    best: TextUnit | None = None
    best_share = 0.0
    for sentence in sentences if stems else []:
        share = sum(1 for stem in stems if stem in sentence.stems) / len(stems)
        if share > best_share:
            best, best_share = sentence, share
    rule = next(
        (
            rule.name
            for rule in _MISSING
            if rule.name not in disabled_rules
            and rule.check is not None
            and rule.check(fact, best, best_share, answer_share)
        ),
        _ANSWERED,
    )
    quote = f'"{excerpt(best.text)}"' if best is not None else "nothing"
    if rule == _ANSWERED:
        reason = f"The summary states it ({best_share:.0%} of the fact): {quote}."
        return {"question": question, "answered": True, "reason": reason, "rule": rule}
    found = best.stems if best is not None else frozenset()
    absent = [token for token in fact.tokens if token.stem in stems and token.stem not in found]
    detail = f"missing {_quote(absent)}" if absent else "nothing to look for"
    reason = (
        f"The summary does not state it ({best_share:.0%} of the fact in one sentence; {detail})."
        f" Closest: {quote}."
    )
    return {"question": question, "answered": False, "reason": reason, "rule": rule}


def answer_questions(
    summary: str, questions: list[str], settings: SummarizationOfflineSettings | None = None
) -> list[dict[str, Any]]:
    """Answer each question from the summary alone.

    Args:
        summary: The summary text.
        questions: Closed questions whose text carries the fact asked about.
        settings: The judge's settings (None: the defaults).

    Returns:
        One verdict per question, in order.

    Example:
        >>> verdicts = answer_questions("Acme makes robots.", ["Does the text mention Acme?"])
        >>> verdicts[0]["answered"]
        True
    """
    sentences = [TextUnit.of(sentence) for sentence in split_sentences(summary)]
    settings = settings or SummarizationOfflineSettings()
    return [
        answer_question(question, sentences, settings.answer_share, settings.disabled_rules)
        for question in questions
    ]

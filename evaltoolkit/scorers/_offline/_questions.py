"""Closed questions drawn from a source's central facts, and answering them from a summary.

Drawing (sees the source only): every source sentence is split into atomic facts
(:func:`sentence_facts`); each fact is ranked by the centrality of its sentence (the mean log
number of sentences that repeat each of its words) times a lead prior
``1 / (1 + position) ** LEAD_PRIOR_EXPONENT``, because news puts what matters first; a fact
sharing ``FACT_REDUNDANCY`` of its words with a fact already chosen is skipped, and run-ons
longer than ``MAX_FACT_WORDS`` are not asked. A statement is asked as "Does the text say that
<fact>?", a thing mentioned as "Does the text mention <thing>?", so the question carries the
fact and answering needs nothing else.

Answering (sees the summary and the question only, never the source): the fact's content words
are weighted (numbers and names count more, verbs and adverbs less, because a summary may say
"paid for" where the source says "funded"; the fact's first content word, its subject, counts
most) and looked for in every window of one or two adjacent summary sentences. The question is
answered when one window holds at least ``ANSWER_THRESHOLD`` of the fact's weight and every
number and date of the fact: the fact must be stated in one place, not pieced together from
words scattered over the summary.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ._document import TextUnit, analyse_source, detokenize, excerpt
from ._facts import Fact, sentence_facts
from ._text import Token, clean_clause, split_sentences, tokenize, word_set

# Importance of a fact: its sentence's centrality times 1 / (1 + position) ** this.
LEAD_PRIOR_EXPONENT = 0.25
# Facts asked about carry at least this many content words.
MIN_FACT_CONTENT = 5
# Longer facts are run-ons (often photo captions glued to the text) and are not asked.
MAX_FACT_WORDS = 40
# A fact sharing this share of its words with a fact already asked about is not asked.
FACT_REDUNDANCY = 0.7
# A question is answered when one window of the summary covers this share of its fact.
ANSWER_THRESHOLD = 0.5
# Adjacent summary sentences read together when looking for a fact.
ANSWER_WINDOW_SENTENCES = 2

NUMBER_WEIGHT = 2.0
NAME_WEIGHT = 1.5
LIGHT_WORD_WEIGHT = 0.5
SUBJECT_WEIGHT = 2.0

QUESTION_PREFIX = "Does the text say that "
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
    keeps_capital = first is not None and (
        first.stem in names
        or first.norm == "i"
        or (len(first.surface) > 1 and first.surface.isupper())
    )
    if first is not None and not keeps_capital:
        # The fact no longer starts a sentence: "... say that the company ...".
        text = text[:1].lower() + text[1:]
    return f"{MENTION_PREFIX if fact.mention else QUESTION_PREFIX}{text}?"


@lru_cache(maxsize=256)
def _ranked_questions(source: str) -> tuple[str, ...]:
    """Every question worth asking about a source, most important first."""
    document = analyse_source(source)
    candidates: list[_RankedFact] = []
    for index, sentence in enumerate(document.sentences):
        if sentence.text.rstrip(" '\"`").endswith("?"):
            continue  # the source asks it: no fact
        importance = document.centrality(sentence) / (1.0 + index) ** LEAD_PRIOR_EXPONENT
        for order, fact in enumerate(sentence_facts(sentence.text, MIN_FACT_CONTENT)):
            unit = TextUnit.of(fact.text)
            if len(unit.stems) >= MIN_FACT_CONTENT and len(fact.text.split()) <= MAX_FACT_WORDS:
                candidates.append(_RankedFact(-importance, index, order, fact, unit.stems))
    chosen: list[_RankedFact] = []
    for candidate in sorted(candidates):
        limit = FACT_REDUNDANCY * len(candidate.stems)
        if all(len(candidate.stems & earlier.stems) < limit for earlier in chosen):
            chosen.append(candidate)
    return tuple(_as_question(candidate.fact, document.names) for candidate in chosen)


def draw_questions(source: str, max_questions: int) -> list[str]:
    """Pick the most central facts of a source and ask each as a closed yes/no question.

    Args:
        source: The source document.
        max_questions: The most questions to return.

    Returns:
        Questions answerable "yes" from the source, most central first.
    """
    return list(_ranked_questions(source)[: max(max_questions, 0)])


def question_fact(question: str) -> str:
    """The fact a closed question asks about, without its question frame.

    Args:
        question: A question such as "Does the text say that X?".

    Returns:
        The fact ("X").
    """
    return _QUESTION_FRAME_RE.sub("", question.strip()).rstrip(" ?").strip()


def _fact_weights(fact: TextUnit) -> dict[str, float]:
    """The weight of each content stem of a fact (its subject, names and numbers the most)."""
    weights: dict[str, float] = {}
    for position, token in enumerate(fact.tokens):
        if not token.is_content or token.norm in _QUESTION_WORDS:
            continue
        weight = 1.0
        if token.is_number or token.is_date_day:
            weight = NUMBER_WEIGHT
        elif position > 0 and token.capitalized:
            weight = NAME_WEIGHT
        elif position in fact.light_positions:
            weight = LIGHT_WORD_WEIGHT
        if not weights:
            weight *= SUBJECT_WEIGHT
        weights[token.stem] = max(weights.get(token.stem, 0.0), weight)
    return weights


def _windows(sentences: list[TextUnit]) -> list[TextUnit]:
    """Every run of one to ``ANSWER_WINDOW_SENTENCES`` adjacent sentences."""
    return [
        TextUnit.joined(sentences[start:end])
        for start in range(len(sentences))
        for end in range(start + 1, min(len(sentences), start + ANSWER_WINDOW_SENTENCES) + 1)
    ]


def _quote(tokens: list[Token]) -> str:
    return ", ".join(dict.fromkeys(token.surface for token in tokens))


def answer_question(question: str, windows: list[TextUnit]) -> dict[str, Any]:
    """Decide from a summary's windows alone whether it states a question's fact.

    Args:
        question: A closed question that carries its fact.
        windows: The summary's windows of adjacent sentences (see :func:`_windows`).

    Returns:
        ``{"question", "answered", "reason"}``.
    """
    fact = TextUnit.of(question_fact(question))
    weights = _fact_weights(fact)
    total = math.fsum(weights.values())
    best: TextUnit | None = None
    best_share = 0.0
    for window in windows if total else []:
        share = math.fsum(w for stem, w in weights.items() if stem in window.stems) / total
        if share > best_share + 1e-12:
            best, best_share = window, share
    values_missing = sorted(fact.values - best.values) if best is not None else []
    quote = f'"{excerpt(best.text)}"' if best is not None else "nothing"
    if best is not None and total and best_share >= ANSWER_THRESHOLD and not values_missing:
        reason = f"The summary states it ({best_share:.0%} of the fact): {quote}."
        return {"question": question, "answered": True, "reason": reason}
    found = best.stems if best is not None else frozenset()
    absent = [t for t in fact.tokens if t.stem in weights and t.stem not in found]
    detail = f"missing {_quote(absent)}" if absent else "nothing to look for"
    reason = (
        f"The summary does not state it ({best_share:.0%} of the fact in one place; {detail})."
        f" Closest: {quote}."
    )
    return {"question": question, "answered": False, "reason": reason}


def answer_questions(summary: str, questions: list[str]) -> list[dict[str, Any]]:
    """Answer each question from the summary alone.

    Args:
        summary: The summary text.
        questions: Closed questions whose text carries the fact asked about.

    Returns:
        One verdict per question, in order.
    """
    windows = _windows([TextUnit.of(sentence) for sentence in split_sentences(summary)])
    return [answer_question(question, windows) for question in questions]

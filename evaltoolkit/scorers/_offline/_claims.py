"""Claims of a summary and whether the source supports each one.

Claims: the summary is split into sentences and then clauses, one fact each.

Evidence: the source sentence, or two adjacent ones, that state the most of the claim,
together with what they may refer to without naming it (the names and nouns of the lead
sentence; see :class:`SourceDocument`). Each content word of the claim weighs how specific it
is to the document (its inverse sentence frequency), and each occurrence in the claim needs its
own occurrence in the evidence ("Swansea host Swansea" is not stated by "the Foxes host
Swansea"). A common word the evidence lacks but the document uses elsewhere ("this season")
counts for half its weight (``ELSEWHERE_CREDIT``); a name or number from elsewhere counts for
nothing.
Two sentences are evidence together only when each states a name, number or noun of the claim
that the other lacks, the claim takes its part of one after its part of the other (not
interleaved: "The festival opened in York on Friday" from "The festival opened on Friday. A
stage will open in York"), and the claim's first verb keeps the subject its sentence gives it
("Tom Becker won" from "Maria Lopez won ... Tom Becker conceded").

A claim is supported (rule ``supported``) when nothing below contradicts it and the evidence
states at least ``settings.claim_support`` of its weight, or (``paraphrase``) it keeps every
name, number and noun of the evidence and changes at most one verb or adverb for a new word
("started" for "founded"; a word of the evidence used twice is no change); else it is
unsupported by ``low_support``. The contradictions are the rules of :data:`CLAIM_RULES` of kind
``contradiction`` (each check a function named after its rule), checked in the table's order,
each quoted in the reason; the first that finds one names the verdict (each check's docstring
gives its cases):

- ``changed_number``: a number the evidence gives for something else ("12,000 people" where
  it says "12,000 robots"; an age set off by commas counts for the word before it). A number,
  date or name the evidence does not give at all lowers its support instead (a
  name or number from elsewhere in the document counts for nothing);
- ``added_comparison``: a comparison ("larger than") the evidence does not make;
- ``flipped_negation``: a negation the claim and its restating source clause disagree on
  (within ``NEGATION_SCOPE`` words, no comma between), or one next to the claim's verb
  elsewhere ("has erupted" where the source says "an eruption is not certain");
- ``joined_apart``: two words side by side that a source sentence has more than
  ``settings.phrase_gap`` (names, nouns, numbers) or ``settings.verb_gap`` (next to a verb or
  adverb) words apart, or on the other side of a verb ("Swansea beat the Foxes"); a splice of
  two verbatim copies may have no verb between the joined words ("Seven games involving Nimes
  were | arrested" from "... were investigated after Conrad was arrested");
- ``swapped_roles``: a verb's doer and undergoer swapped, read in either voice ("John Smith
  was founded by the company"; "Her husband was found" from "Her husband found the infant");
- ``pronoun_for_another``, ``lost_subject``, ``object_as_subject``: a subject the source gives
  the verb otherwise ("they are being driven away" from "they claim customers are being driven
  away"; "hoping to stay away" from "hoping the clouds stay away"; "EU will be forced" from
  "Foreigners from outside the EU will be forced");
- ``changed_agent``: "by", which names the doer, for another preposition or the reverse
  ("captured by 1,500 frames per second" for "captured at ...");
- ``changed_tense``: "is" for the source's "was" between the same two words, outside
  reported speech.

Cost: the evidence is looked for among the sentences that share the claim's most specific
words, at most ``EVIDENCE_CANDIDATES`` of them, and each check reads at most
``SENTENCES_PER_CHECK`` sentences, so a claim costs the same whatever the source's length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice, pairwise
from typing import Any, NamedTuple

from ._document import (
    ASIDE_BREAK_RE,
    SourceDocument,
    TextUnit,
    analyse_source,
    base_stem,
    excerpt,
    is_negated,
    verbs_between,
    words_apart,
)
from ._facts import REPORTING_VERBS
from ._settings import (
    OfflineRule,
    RuleKind,
    SummarizationOfflineSettings,
    rule_named,
    rules_of_kind,
)
from ._text import (
    AUXILIARIES,
    MONTH_NAMES,
    Token,
    split_clauses,
    split_sentences,
    stem,
    tokenize,
    word_set,
)

# A summary clause needs this many content words to stand as a claim of its own.
CLAIM_MIN_CONTENT = 2
# A paraphrase keeps every name, number and noun and changes at most this many verbs or adverbs.
PARAPHRASE_CHANGED_WORDS = 1
# A negation bears on a word at most this many words away ("an eruption is not certain").
NEGATION_SCOPE = 3
# How many words after a passive verb its "by" may come ("founded in 1995 by John Smith").
AGENT_WINDOW = 8
# The part of its weight a claim's word counts for when the evidence lacks it but the document
# states it elsewhere ("this season", "the video"): summaries join facts from across a
# document, while a word the document never uses is invented. Names and numbers get no such
# credit (another name from the document is the classic swapped entity). Half: not tuned.
ELSEWHERE_CREDIT = 0.5
# Evidence is one source sentence or, at 2, two adjacent ones that each state part of the claim.
EVIDENCE_SENTENCES = 2
# Cost bounds (not tuned: they only cap the work on very long sources).
EVIDENCE_CANDIDATES = 8
SENTENCES_PER_CHECK = 16
_POSTINGS_BUDGET = 4096

REPORTING_STEMS = frozenset(stem(word) for word in REPORTING_VERBS)
_BE_FORMS = word_set("is are was were be been being")
_DETERMINERS = word_set("a an the this that these those his her its their our my your")
_WEEKDAYS = word_set("monday tuesday wednesday thursday friday saturday sunday")
_SUBJECT_PRONOUNS = word_set("he she it they we i you")
_PRESENT_BE = word_set("am is are")
_PAST_BE = word_set("was were")
# "'s" or a bare apostrophe right after a word: its owner ("Chelsea's", "the players'").
_POSSESSIVE_RE = re.compile(r"\s*['\u2019]s?(?![\w'])")
_PREPOSITIONS = word_set(
    "of from outside inside in on at with without for by about among between within into onto"
)


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


def split_claims(summary: str) -> list[str]:
    """Split a summary into atomic claims: sentences, and clauses where sentences join facts.

    Args:
        summary: The summary text.

    Returns:
        The claims in order, each with at least one content word.

    Example:
        >>> split_claims("Acme was founded in 1995 by John Smith, and it sold 12,000 robots.")
        ['Acme was founded in 1995 by John Smith', 'and it sold 12,000 robots']
    """
    return [
        clause
        for sentence in split_sentences(summary)
        for clause in split_clauses(sentence, min_content=CLAIM_MIN_CONTENT)
        if any(token.is_content for token in tokenize(clause))
    ]


def _claim_words(claim: TextUnit, document: SourceDocument) -> list[_ClaimWord]:
    """The claim's content words, each weighted by how specific it is to this document."""
    return [
        _ClaimWord(
            token.stem,
            token.surface,
            position,
            document.weight(token.stem),
            key=position not in claim.light_positions,
            value=token.is_number
            or token.is_date_day
            or (position > 0 and claim.tokens[position - 1].is_number),
        )
        for position, token in enumerate(claim.tokens)
        if token.is_content
    ]


def _candidate_sentences(words: list[_ClaimWord], document: SourceDocument) -> list[int]:
    """The sentences sharing the most specific words of the claim, best first (bounded)."""
    shared: dict[int, float] = {}
    budget = _POSTINGS_BUDGET
    for word in sorted({word.stem: word for word in words}.values(), key=lambda w: -w.weight):
        postings = document.postings.get(word.stem, ())
        if shared and len(postings) > budget:
            break
        for index in postings[:budget]:
            shared[index] = shared.get(index, 0.0) + word.weight
        budget -= min(len(postings), budget)
    ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
    return [index for index, _ in ranked[:EVIDENCE_CANDIDATES]]


def _fuses(claim: TextUnit, words: list[_ClaimWord], before: TextUnit, after: TextUnit) -> bool:
    """Whether a claim states one part of each of two sentences, one part after the other.

    Each sentence must give a name, number or noun the other lacks, and the claim's names and nouns
    from one sentence must not be interleaved with the other's ("The festival opened in York
    on Friday" mixes "The festival opened on Friday" with "A stage will open in York").
    Numbers, dates and the units after numbers are checked on their own (see
    the number rules of :data:`CLAIM_RULES`).
    """
    # For each name, number or noun that only one of the sentences has: whether it is the
    # first's, and whether it is a number.
    own = [
        (word.stem in before.stems, word.value)
        for word in words
        if word.key and (word.stem in before.stems) != (word.stem in after.stems)
    ]
    sides = [first for first, value in own if not value]
    switches = sum(1 for left, right in pairwise(sides) if left != right)
    firsts = {first for first, _ in own}
    return (
        firsts == {True, False}
        and switches <= 1
        and _subject_with_verb(claim, words, before, after)
    )


def _subject_with_verb(
    claim: TextUnit, words: list[_ClaimWord], before: TextUnit, after: TextUnit
) -> bool:
    """Whether the claim's first verb keeps its subject: in a sentence that has the verb, the
    words before it share one with the claim's words before it, or there are none (a pronoun
    that refers back: "Tim Durkan ... . He photographed the skyline"). "Tom Becker won the
    election" fuses "Maria Lopez won the election" with "Tom Becker conceded". A claim without
    a verb of its own is held to its first form of "be": "Ozil was on the bench" fuses "Jack
    Wilshere was on the bench" with "Mesut Ozil returned"."""
    verb = next((word for word in words if not word.key), None)
    if verb is None:
        return _copula_keeps_subject(claim, words, before, after)
    subject = {word.stem for word in words if word.position < verb.position}
    for sentence in (before, after):
        stems = [stem for stem, _ in sentence.phrases]
        if verb.stem in stems:
            own_subject = set(stems[: stems.index(verb.stem)])
            if not own_subject or own_subject & subject:
                return True
    return not subject


def _copula_keeps_subject(
    claim: TextUnit, words: list[_ClaimWord], before: TextUnit, after: TextUnit
) -> bool:
    """:func:`_subject_with_verb` for a claim without a verb of its own, held to its first form
    of "be": in a sentence with one, the content words before it share one with the claim's,
    or there are none. Where neither sentence has one, the claim rephrases ("Leicester are
    three points from safety" from "The Foxes host Swansea ... three points from safety")."""
    be = next((i for i, token in enumerate(claim.tokens) if token.norm in _BE_FORMS), None)
    if be is None:
        return True
    subject = {word.stem for word in words if word.position < be}
    held = False  # whether a sentence has a form of "be" to hold the claim to
    for sentence in (before, after):
        tokens = sentence.tokens
        index = next((i for i, token in enumerate(tokens) if token.norm in _BE_FORMS), None)
        if index is not None:
            held = True
            own_subject = {token.stem for token in tokens[:index] if token.is_content}
            if not own_subject or own_subject & subject:
                return True
    return not held or not subject


def _evidence(
    claim: TextUnit,
    words: list[_ClaimWord],
    first: int,
    last: int,
    document: SourceDocument,
) -> _Evidence | None:
    """How much of the claim one or two adjacent source sentences (with what they refer to)
    state; None for two sentences that do not each state a name, number or noun of the claim
    that the other lacks."""
    sentences = document.sentences[first : last + 1]
    if len(sentences) == 2 and not _fuses(claim, words, sentences[0], sentences[1]):
        return None
    unit = TextUnit.joined(sentences)
    context = document.context[first]
    total = math.fsum(word.weight for word in words)
    available = unit.content_counts.copy()
    # What the sentence refers to stands in for a word it lacks, not for a second one.
    available.update(context - unit.stems)
    found: list[float] = []
    missing: list[_ClaimWord] = []
    for word in words:
        if available[word.stem] > 0:
            available[word.stem] -= 1
            found.append(word.weight)
        else:
            missing.append(word)
            if _stated_elsewhere(word, unit, document):
                found.append(word.weight * ELSEWHERE_CREDIT)
    keeps_keys = not any(word.key for word in missing)
    changed = sum(1 for word in missing if not word.key)
    # A changed verb is a new word: one the evidence has, used a second time, restates
    # nothing ("increasingly increasingly perplexed"; "investigated after Conrad was
    # investigated").
    reused = any(word.stem in unit.stems for word in missing)
    paraphrase = (
        keeps_keys
        and changed <= PARAPHRASE_CHANGED_WORDS
        and not reused
        and len(missing) < len(words)
    )
    support = math.fsum(found) / total if total else 0.0
    return _Evidence(first, last, unit, context, support, tuple(missing), paraphrase)


def _stated_elsewhere(word: _ClaimWord, unit: TextUnit, document: SourceDocument) -> bool:
    """Whether a word the evidence lacks is a common word the document uses elsewhere (not a
    name, number or a number's unit)."""
    return (
        not word.value
        and word.stem not in document.names
        and word.stem not in unit.stems
        and word.stem in document.all_stems
    )


def _best_evidence(claim: TextUnit, document: SourceDocument) -> _Evidence | None:
    """The source sentence, or two adjacent ones, that best state the claim (one sentence
    before two, then the earliest)."""
    words = _claim_words(claim, document)
    if not words:
        return None
    best: _Evidence | None = None
    windows: set[tuple[int, int]] = set()
    for index in _candidate_sentences(words, document):
        windows.add((index, index))
        if EVIDENCE_SENTENCES == 2:
            windows.update(
                (first, first + 1)
                for first in (index - 1, index)
                if first >= 0 and first + 1 < len(document.sentences)
            )
    for first, last in sorted(windows):
        candidate = _evidence(claim, words, first, last, document)
        if candidate is None:
            continue
        rank = (candidate.support, first - last, -first)
        if best is None or rank > (best.support, best.index - best.last, -best.index):
            best = candidate
    return best


def _restating_clauses(
    claim: TextUnit, unit: TextUnit, context: frozenset[str]
) -> list[tuple[float, TextUnit]]:
    """The clauses of ``unit``, each with the share of the claim's words it states."""
    claim_stems = {base_stem(stem) for stem in claim.stems}
    if not claim_stems:
        return []
    found: list[tuple[float, TextUnit]] = []
    for clause in unit.clauses:
        stems = {base_stem(stem) for stem in clause.stems | context}
        found.append((len(claim_stems & stems) / len(claim_stems), clause))
    return found


def _flipped_negation(case: _Case) -> str | None:
    """Describe a negation that the claim and the source clause it restates disagree on."""
    claim, evidence, document = case.claim, case.evidence, case.document
    negated = is_negated(claim)
    restating = _restating_clauses(claim, evidence.unit, evidence.context)
    if restating:
        clause = max(restating, key=lambda found: found[0])[1]
        if negated and not is_negated(clause):
            return f'the claim is negated but the source is not ("{excerpt(clause.text)}")'
        if not negated and _negation_on_claim(clause, claim):
            return f'the source negates it ("{excerpt(clause.text)}")'
    if negated:
        return None
    predicates = {
        base_stem(claim.tokens[position].stem)
        for position in claim.light_positions
        if claim.tokens[position].norm not in REPORTING_VERBS
    }
    candidates = sorted(
        {
            index
            for predicate in predicates
            for index in document.negated_postings(predicate)[:SENTENCES_PER_CHECK]
        }
    )
    for index in candidates[:SENTENCES_PER_CHECK]:
        if evidence.index <= index <= evidence.last:
            continue
        clauses = _restating_clauses(claim, document.sentences[index], document.context[index])
        for overlap, clause in clauses:
            # Another sentence contradicts only a clause stating every word of the claim.
            if overlap == 1.0 and _negates_predicate(clause, predicates):
                return f'the source says otherwise ("{excerpt(clause.text)}")'
    return None


def _negation_on_claim(clause: TextUnit, claim: TextUnit) -> bool:
    """Whether a negation in the clause bears on a word the claim shares: one within
    ``NEGATION_SCOPE`` words of it with no comma or other break between them ("a lot of
    attention, not all of it good" does not negate the attention; "No 1" is a rank)."""
    tokens = clause.tokens
    stems = {base_stem(stem) for stem in claim.stems}
    for index, token in enumerate(tokens):
        if not token.is_negation:
            continue
        if token.norm == "no" and index + 1 < len(tokens) and tokens[index + 1].is_number:
            continue
        for other in range(max(0, index - NEGATION_SCOPE), index + NEGATION_SCOPE + 1):
            if other == index or other >= len(tokens):
                continue
            near = tokens[other]
            if not near.is_content or base_stem(near.stem) not in stems:
                continue
            start, end = (near.end, token.start) if other < index else (token.end, near.start)
            if not ASIDE_BREAK_RE.search(clause.text, start, end):
                return True
    return False


def _negates_predicate(clause: TextUnit, predicates: set[str]) -> bool:
    """Whether a negation in the clause stands next to one of the claim's predicate words."""
    tokens = clause.tokens
    negations = [index for index, token in enumerate(tokens) if token.is_negation]
    return any(
        base_stem(token.stem) in predicates
        and any(abs(index - negation) <= NEGATION_SCOPE for negation in negations)
        for index, token in enumerate(tokens)
    )


def _joined_apart(case: _Case) -> str | None:
    """Two words the claim puts side by side that a source sentence has apart.

    Names, nouns and numbers may swap places within the gap ("a 4 percent pay rise", "a pay
    rise of 4 percent"); a verb keeps its neighbours on their side, unless the claim or the
    source puts it in the passive ("was raised", "led by"), which swaps them.

    Where the claim copies the sentence on both sides of the two words and joins the copies
    (a splice: "Seven games involving Nimes were | arrested last November"), the sentence
    must have no verb between the two words, in one comma-delimited part of it ("Nimes were
    investigated after Conrad was arrested" does not give "Nimes were arrested"). Where the
    two words are in different parts of the sentence, an aside has moved ("The researchers,
    led by X, followed 120 colonies": "a study of 120 colonies led by X"), and the gaps alone
    apply.
    """
    claim, document, settings = case.claim, case.document, case.settings
    tokens = claim.tokens
    words = [(position, token) for position, token in enumerate(tokens) if token.is_content]
    claim_passive = dict(zip((position for position, _ in words), claim.passive, strict=True))
    for (left_position, left), (right_position, right) in pairwise(words):
        if left.stem == right.stem:
            continue
        verbs = [p for p in (left_position, right_position) if p in claim.light_positions]
        allowed = 1 + (settings.verb_gap if verbs else settings.phrase_gap)
        verb_stems = {tokens[position].stem for position in verbs}
        either_order = not verbs or any(claim_passive[position] for position in verbs)
        junction = tokens[left_position : right_position + 1]
        before = tokens[max(0, left_position - 1) : left_position + 1]
        after = tokens[right_position : right_position + 2]
        apart: TextUnit | None = None
        for index in _sentences_with_both(left.stem, right.stem, document):
            sentence = document.sentences[index]
            if sentence.has_run(junction):
                apart = None
                break
            splice = (
                len(before) == 2
                and len(after) == 2
                and sentence.has_run(before)
                and sentence.has_run(after)
            )
            phrases, passive = sentence.phrases, sentence.passive
            lefts = [i for i, (stem, _) in enumerate(phrases) if stem == left.stem]
            rights = [i for i, (stem, _) in enumerate(phrases) if stem == right.stem]
            if any(
                (
                    verbs_between(sentence, min(first, second), max(first, second)) == 0
                    if splice and phrases[first][1] == phrases[second][1]
                    else words_apart(phrases, min(first, second), max(first, second)) <= allowed
                )
                for first in lefts
                for second in rights
                if second > first
                or either_order
                or any(passive[i] and phrases[i][0] in verb_stems for i in (first, second))
            ):
                apart = None
                break
            apart = apart or sentence
        if apart is not None:
            return (
                f'the source does not put "{left.surface}" and "{right.surface}" together '
                f'as the claim does ("{excerpt(apart.text)}")'
            )
    return None


def _noun_phrase(
    tokens: tuple[Token, ...], start: int, step: int, light: frozenset[int]
) -> frozenset[str]:
    """The stems of the run of names and nouns next to ``start`` (going by ``step``), past
    determiners; empty where another word comes first."""
    found: list[str] = []
    index = start
    while 0 <= index < len(tokens):
        token = tokens[index]
        if token.is_content and index not in light and not token.is_negation:
            found.append(token.stem)
        elif found or token.norm not in _DETERMINERS:
            break
        index += step
    return frozenset(found)


def _subject_before(tokens: tuple[Token, ...], position: int, light: frozenset[int]) -> int:
    """The position of the word before a verb and its auxiliaries, negations and adverbs
    ("customers | are being driven"); -1 where the verb opens the text."""
    before = position - 1
    while before >= 0 and (
        tokens[before].norm in AUXILIARIES or tokens[before].is_negation or before in light
    ):
        before -= 1
    return before


def _roles(
    unit: TextUnit, verb: str, positions: list[int] | None = None
) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Who does and who undergoes each use of a verb in a text: (agent, patient), each the
    stems of a run of names and nouns. Active: the words before the verb act on those after
    it ("John Smith founded the company"); passive: the words before it undergo, those after
    "by" act ("The company was founded in 1995 by John Smith")."""
    tokens, light = unit.tokens, unit.light_positions
    found: list[tuple[frozenset[str], frozenset[str]]] = []
    for position in sorted(light) if positions is None else positions:
        if tokens[position].stem != verb:
            continue
        subject = _noun_phrase(tokens, _subject_before(tokens, position, light), -1, light)
        by = next(
            (
                index
                for index in range(position + 1, min(len(tokens), position + 1 + AGENT_WINDOW))
                if tokens[index].norm == "by" or index in light
            ),
            None,
        )
        by = by if by is not None and tokens[by].norm == "by" else None
        # "was founded" is passive, "is carrying" is not.
        after_be = (
            position > 0
            and tokens[position - 1].norm in _BE_FORMS
            and not tokens[position].norm.endswith("ing")
        )
        after_auxiliary = position > 0 and tokens[position - 1].norm in AUXILIARIES
        if after_be or (by is not None and not after_auxiliary):
            # Passive ("was founded by", "capped 25 times by Brazil"): the words before
            # undergo, the words after "by" act.
            agent = _noun_phrase(tokens, by + 1, 1, light) if by is not None else frozenset()
            found.append((agent, subject))
        else:
            found.append((subject, _noun_phrase(tokens, position + 1, 1, light)))
    return found


def _objects(unit: TextUnit, verb: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """The (agent, patient) of each active use of a verb whose object starts with a
    determiner right after it ("found the infant")."""
    tokens = unit.tokens
    uses = [
        position
        for position in sorted(unit.light_positions)
        if tokens[position].stem == verb
        and not (position > 0 and tokens[position - 1].norm in _BE_FORMS)
        and position + 1 < len(tokens)
        and tokens[position + 1].norm in _DETERMINERS
    ]
    return [(a, p) for a, p in _roles(unit, verb, uses) if a and p]


def _swapped_roles(case: _Case) -> str | None:
    """A verb whose doer and undergoer the claim swaps, in either voice: "John Smith was
    founded by the company" from "The company was founded by John Smith"."""
    claim, evidence = case.claim, case.evidence.unit
    for verb in sorted({claim.tokens[p].stem for p in claim.light_positions}):
        if verb not in evidence.stems:
            continue
        if verb in REPORTING_STEMS:
            continue
        source = [(a, p) for a, p in _roles(evidence, verb) if a and p]
        for agent, patient in _roles(claim, verb):
            if not agent and patient:
                # "The husband was found" from "The husband found the infant": who undergoes
                # the claim's verb does it in the source, to something the verb's object
                # names right after it (not "colonies kept near meadows", which is passive).
                objects = _objects(evidence, verb)
                if any(patient & a and not patient & p for a, p in objects):
                    surface = next(t.surface for t in claim.tokens if t.stem == verb)
                    return f'the claim swaps who does what in "{surface}"'
                continue
            if not (agent and patient):
                continue
            same = any(agent & a or patient & p for a, p in source)
            swapped = any(agent & p or patient & a for a, p in source)
            if swapped and not same:
                surface = next(t.surface for t in claim.tokens if t.stem == verb)
                return f'the claim swaps who does what in "{surface}"'
    return None


def _pronoun_for_another(case: _Case) -> str | None:
    """A pronoun the claim makes the subject of a verb whose subject the source names, where
    the source's own use of that pronoun comes before the name and so refers to someone else:
    "They claim they are being driven away" from "they claim customers are being driven
    away" ("her son would be eligible when he is five": "he" after "son" may be the son)."""
    claim, evidence = case.claim, case.evidence.unit
    tokens, light = claim.tokens, claim.light_positions
    source, source_light = evidence.tokens, evidence.light_positions
    pronouns = {token.norm for token in source if token.norm in _SUBJECT_PRONOUNS}
    for position in sorted(light):
        verb = tokens[position]
        before = _subject_before(tokens, position, light)
        if verb.stem in REPORTING_STEMS or before < 0:
            continue
        pronoun = tokens[before].norm
        if pronoun not in _SUBJECT_PRONOUNS or pronoun not in pronouns:
            continue
        uses = [index for index in sorted(source_light) if source[index].stem == verb.stem]
        named: list[str] = []
        for use in uses:
            subject = _subject_before(source, use, source_light)
            if (
                subject < 0
                or not _noun_phrase(source, subject, -1, source_light)
                or any(token.norm == pronoun for token in source[subject + 1 :])
            ):
                break
            named.append(source[subject].surface)
        else:
            if named:
                return (
                    f'the source says "{named[0]} {verb.surface}", not '
                    f'"{tokens[before].surface} {verb.surface}"'
                )
    return None


def _changed_tense(case: _Case) -> str | None:
    """A form of "be" the claim copies between the same two words as the source but in the
    other tense: "Jean Bourdain, is one of them" where the source says "Jean Bourdain, was
    one of them". Reported speech may shift its tense ("says the police are" for "said the
    police were"), so a claim that reports what someone said is not checked."""
    claim, evidence, document = case.claim, case.evidence.unit, case.document
    tokens, source = claim.tokens, evidence.tokens
    for index in range(1, len(tokens) - 1):
        word = tokens[index].norm
        if word in _PRESENT_BE:
            other_tense = _PAST_BE
        elif word in _PAST_BE:
            other_tense = _PRESENT_BE
        else:
            continue
        if any(token.norm in REPORTING_VERBS for token in tokens[:index]):
            return None
        run = tokens[index - 1 : index + 2]
        left, right = run[0].norm, run[2].norm
        other = next(
            (
                source[k]
                for k in range(1, len(source) - 1)
                if source[k].norm in other_tense
                and source[k - 1].norm == left
                and source[k + 1].norm == right
            ),
            None,
        )
        if other is not None and not any(
            sentence.has_run(run) for sentence in document.sentences[:_POSTINGS_BUDGET]
        ):
            return f'the source says "{other.surface}", not "{tokens[index].surface}"'
    return None


def _lost_subject(case: _Case) -> str | None:
    """An infinitive the claim gives its clause's subject where the source gives that verb a
    subject of its own, right after the verb the infinitive follows: "Visitors will be hoping
    to stay away" from "Visitors will be hoping the clouds stay away"."""
    claim, evidence = case.claim, case.evidence.unit
    tokens, light = claim.tokens, claim.light_positions
    source, source_light = evidence.tokens, evidence.light_positions
    for index in range(1, len(tokens) - 1):
        governing, verb = tokens[index - 1], tokens[index + 1]
        if tokens[index].norm != "to" or not governing.is_content or index + 1 not in light:
            continue
        subjects: list[str] = []
        for use in (k for k in range(1, len(source)) if source[k].stem == verb.stem):
            subject = _subject_before(source, use, source_light)
            if (
                subject < 0
                or source[use - 1].norm == "to"
                or not source[subject].is_content
                or source[subject].is_number
                or subject in source_light
            ):
                break
            # The subject's noun phrase follows the governing verb: "hoping the clouds stay",
            # not "an offer to 19-year-old Andreas Pereira".
            start = subject
            while start > 0 and (
                source[start - 1].norm in _DETERMINERS
                or (
                    source[start - 1].is_content
                    and not source[start - 1].is_number
                    and start - 1 not in source_light
                )
            ):
                start -= 1
            if start == 0 or source[start - 1].stem != governing.stem:
                break
            subjects.append(source[subject].surface)
        else:
            if subjects:
                return f'the source says "{subjects[0]} {verb.surface}", not "to {verb.surface}"'
    return None


def _object_as_subject(case: _Case) -> str | None:
    """A claim opening with a word and an auxiliary ("The EU will") that the source has only
    after a preposition, or only as the owner of something ("Chelsea's Izzy Brown"), so that
    what follows is said of something else: "EU will be forced to provide" from "Foreigners
    from outside the EU will be forced to provide"; "Chelsea has been named" from "Chelsea's
    Izzy Brown has been named"."""
    claim, evidence = case.claim, case.evidence.unit
    tokens, source = claim.tokens, evidence.tokens
    first = 0
    while first < len(tokens) and tokens[first].norm in _DETERMINERS:
        first += 1
    if first + 1 >= len(tokens) or tokens[first + 1].norm not in AUXILIARIES:
        return None
    opening = tokens[first]
    if not opening.is_content or opening.is_number:
        return None
    uses = [
        k
        for k in range(len(source) - 1)
        if source[k].stem == opening.stem and source[k + 1].norm == tokens[first + 1].norm
    ]
    prepositions: list[str] = []
    for use in uses:
        before = use - 1
        while before >= 0 and source[before].norm in _DETERMINERS:
            before -= 1
        if before < 0 or source[before].norm not in _PREPOSITIONS:
            return None
        prepositions.append(source[before].surface)
    if prepositions:
        return f'the source has "{opening.surface}" only after "{prepositions[0]}"'
    owned = [k for k in range(len(source) - 1) if source[k].stem == opening.stem]
    if (
        owned
        and not _is_owner(claim, opening)
        and all(_is_owner(evidence, source[k]) for k in owned)
    ):
        owner_of = source[owned[0] + 1].surface
        return f'the source has "{opening.surface}" only as the owner of "{owner_of}"'
    return None


def _is_owner(unit: TextUnit, token: Token) -> bool:
    """Whether a word is written as an owner: "Chelsea's", "Chelsea 's", "the players'"."""
    return token.surface.endswith(("'s", "\u2019s")) or bool(
        _POSSESSIVE_RE.match(unit.text, token.end)
    )


def _changed_agent(case: _Case) -> str | None:
    """A preposition the claim changes to or from "by", which names who does something,
    between the same two words: "captured by 1,500 frames per second" where the source says
    "captured at 1,500 frames per second"; "valued for the Palermo president" where it says
    "valued by the Palermo president". "From" ("a performance from Madonna") and a time
    ("by Wednesday") name no other role."""
    claim, evidence = case.claim, case.evidence.unit
    tokens, source = claim.tokens, evidence.tokens
    for index in range(1, len(tokens) - 1):
        word, preposition = tokens[index - 1], tokens[index]
        if preposition.norm not in _PREPOSITIONS or not word.is_content:
            continue
        target = _next_word(tokens, index + 1)
        if target is None or target.norm in _WEEKDAYS or target.norm in MONTH_NAMES:
            continue
        if evidence.has_run(tokens[index - 1 : index + 1]):
            continue
        for k in range(len(source) - 2):
            other = source[k + 1].norm
            if (
                source[k].stem != word.stem
                or other not in _PREPOSITIONS
                or "by" not in (other, preposition.norm)
                or "from" in (other, preposition.norm)
            ):
                continue
            found = _next_word(source, k + 2)
            if found is not None and found.stem == target.stem:
                return (
                    f'the source says "{source[k].surface} {source[k + 1].surface}", not '
                    f'"{word.surface} {preposition.surface}"'
                )
    return None


def _next_word(tokens: tuple[Token, ...], start: int) -> Token | None:
    """The first content word from ``start`` on, past determiners; None where another word
    comes first."""
    index = start
    while index < len(tokens) and tokens[index].norm in _DETERMINERS:
        index += 1
    return tokens[index] if index < len(tokens) and tokens[index].is_content else None


def _sentences_with_both(first: str, second: str, document: SourceDocument) -> list[int]:
    """The first sentences (at most ``SENTENCES_PER_CHECK``) that use both stems."""
    shorter, longer = sorted((first, second), key=lambda stem: len(document.postings.get(stem, ())))
    other = document.posting_set(longer)
    both = (
        index for index in document.postings.get(shorter, ())[:_POSTINGS_BUDGET] if index in other
    )
    return list(islice(both, SENTENCES_PER_CHECK))


def _added_comparison(case: _Case) -> str | None:
    """A comparison the claim makes ("larger than") that the evidence does not."""
    claim, evidence = case.claim, case.evidence
    tokens = claim.tokens
    for index in range(len(tokens) - 1):
        compared = tokens[index]
        if tokens[index + 1].norm != "than" or not compared.is_content or compared.is_number:
            continue
        if compared.stem not in evidence.unit.stems:
            return f'the source does not say "{compared.surface} than"'
    return None


def _number_slots(unit: TextUnit) -> dict[str, set[str]]:
    """What each number counts: the stems of the content words after it, and the word an
    appositive number describes ("Lucy Powell, 40," gives "powell")."""
    slots: dict[str, set[str]] = {}
    tokens = unit.tokens
    for index, token in enumerate(tokens):
        if not token.is_number:
            continue
        words = [t.stem for t in tokens[index + 1 :] if t.is_content and not t.is_number]
        described = _appositive_head(unit, index)
        if described is not None:
            words.append(described)
        slots.setdefault(token.norm, set()).update(words)
    return slots


def _appositive_head(unit: TextUnit, index: int) -> str | None:
    """The stem of the name or noun that the number at ``index`` describes when it stands
    between commas right after it, as an age does ("the victim, now 38, was"); else None."""
    tokens, text = unit.tokens, unit.text
    start = index
    while start > 0 and tokens[start - 1].is_stopword:
        start -= 1
    if start == 0:
        return None
    head = tokens[start - 1]
    closes = index + 1 == len(tokens) or text[tokens[index].end : tokens[index + 1].start].strip()
    if (
        "," not in text[head.end : tokens[start].start]
        or not closes
        or not head.is_content
        or head.is_number
    ):
        return None
    return head.stem


def _changed_number(case: _Case) -> list[str]:
    """Numbers the source gives for something else: "12,000 people" for "4,000 people"."""
    claim, evidence = case.claim, case.evidence.unit
    problems: list[str] = []
    evidence_slots = _number_slots(evidence)
    for number, words in sorted(_number_slots(claim).items()):
        if not words or words & evidence_slots.get(number, set()):
            continue
        elsewhere = sorted(n for n, slot in evidence_slots.items() if n != number and words & slot)
        if elsewhere:
            given = _written(evidence, elsewhere)
            problems.append(f"the source gives {given} there, not {_written(claim, [number])}")
    return problems


def _written(unit: TextUnit, values: list[str] | frozenset[str]) -> str:
    """How a text writes some of its values ("420 million", "June 1"), in its order."""
    return ", ".join(
        dict.fromkeys(
            unit.text[token.start : token.end]
            for token in unit.tokens
            if token.norm in values and (token.is_number or token.is_date_day)
        )
    )


def _low_support(case: _Case) -> str | None:
    evidence = case.evidence
    if evidence.support >= case.settings.claim_support:
        return None
    missing = ", ".join(dict.fromkeys(word.surface for word in evidence.missing[:6]))
    return (
        f"the closest source sentence states only {evidence.support:.0%} of it "
        f"(not there: {missing})"
    )


def _paraphrase(case: _Case) -> str | None:
    if not case.evidence.paraphrase:
        return None
    return "keeps every name, number and noun of its evidence and changes one verb"


#: A claim check: what it finds in a claim case (one finding, several, or None for nothing).
ClaimCheck = Callable[[_Case], str | list[str] | None]


def _findings(found: str | list[str] | None) -> list[str]:
    return [found] if isinstance(found, str) else found or []


def _rule(
    name: str, kind: RuleKind, purpose: str, check: ClaimCheck | None, outcome: bool = False
) -> OfflineRule[ClaimCheck]:
    return OfflineRule(name, "claim", outcome, purpose, check, kind)


#: The named rules of a claim verdict, each with its kind. With no source sentence to compare
#: with, a claim is unsupported by ``no_evidence``. Else the ``contradiction`` rules are checked
#: in this order, and the first that finds one names the verdict (the reason lists all it
#: found); with none, the claim is ``supported`` when its evidence states ``claim_support`` of
#: it, else the ``weak_support`` rules decide in this order: ``paraphrase`` (supported) or
#: ``low_support`` (unsupported).
CLAIM_RULES: tuple[OfflineRule[ClaimCheck], ...] = (
    _rule(
        "supported",
        "default",
        "evidence states claim_support of it, nothing contradicts it",
        None,
        True,
    ),
    _rule(
        "paraphrase",
        "weak_support",
        "keeps every name, number, noun; changes one verb",
        _paraphrase,
        True,
    ),
    _rule(
        "low_support",
        "weak_support",
        "its evidence states less than claim_support of it",
        _low_support,
    ),
    _rule("no_evidence", "precondition", "no source sentence shares a content word with it", None),
    _rule(
        "changed_number",
        "contradiction",
        "a number the evidence gives for something else",
        _changed_number,
    ),
    _rule(
        "added_comparison",
        "contradiction",
        "a comparison the evidence does not make",
        _added_comparison,
    ),
    _rule(
        "flipped_negation",
        "contradiction",
        "a negation the source's restating clause lacks",
        _flipped_negation,
    ),
    _rule(
        "joined_apart",
        "contradiction",
        "two words side by side a source sentence keeps apart",
        _joined_apart,
    ),
    _rule(
        "swapped_roles", "contradiction", "the doer and undergoer of a verb swapped", _swapped_roles
    ),
    _rule(
        "pronoun_for_another",
        "contradiction",
        "a pronoun for a subject the source names",
        _pronoun_for_another,
    ),
    _rule(
        "changed_tense", "contradiction", "a form of be in the source's other tense", _changed_tense
    ),
    _rule(
        "lost_subject",
        "contradiction",
        "an infinitive for a verb with its own subject",
        _lost_subject,
    ),
    _rule(
        "object_as_subject",
        "contradiction",
        "a subject the source has after a preposition",
        _object_as_subject,
    ),
    _rule(
        "changed_agent",
        "contradiction",
        "by for another preposition, or the reverse",
        _changed_agent,
    ),
)
_SUPPORTED = rule_named(CLAIM_RULES, "supported").name
_NO_EVIDENCE = rule_named(CLAIM_RULES, "no_evidence").name
_CONTRADICTIONS = rules_of_kind(CLAIM_RULES, "contradiction")
_WEAK_SUPPORT = rules_of_kind(CLAIM_RULES, "weak_support")


def judge_claim(
    claim_text: str,
    source: str,
    settings: SummarizationOfflineSettings | None = None,
) -> dict[str, Any]:
    """Judge one claim against the source.

    Args:
        claim_text: The claim.
        source: The source document.
        settings: The judge's settings (None: the defaults).

    Returns:
        ``{"claim", "supported", "reason", "rule"}``; the reason quotes the source sentence
        that supports the claim, or the closest one and what it lacks; the rule names the
        entry of :data:`CLAIM_RULES` that decided.

    Example:
        >>> source = "The Foxes beat Swansea on Saturday. The crowd was 30,000."
        >>> judge_claim("The Foxes beat Swansea.", source)["supported"]
        True
        >>> verdict = judge_claim("Swansea beat the Foxes.", source)
        >>> verdict["supported"], verdict["rule"]
        (False, 'joined_apart')
    """
    settings = settings or SummarizationOfflineSettings()
    document = analyse_source(source)
    claim = TextUnit.of(claim_text)
    evidence = _best_evidence(claim, document)
    if evidence is None:
        reason = "Unsupported: the source has nothing to compare it with."
        return {"claim": claim_text, "supported": False, "reason": reason, "rule": _NO_EVIDENCE}
    case = _Case(claim, evidence, document, settings)
    off = settings.disabled_rules
    problems: list[str] = []
    fired: list[str] = []
    for rule in _CONTRADICTIONS:
        if rule.name in off or rule.check is None:
            continue
        found = _findings(rule.check(case))
        if found:
            problems.extend(found)
            fired.append(rule.name)
    rule_name = fired[0] if fired else _SUPPORTED
    if not problems and evidence.support < settings.claim_support:
        for rule in _WEAK_SUPPORT:
            if rule.name in off or rule.check is None:
                continue
            found = _findings(rule.check(case))
            if found:
                if not rule.outcome:
                    problems.extend(found)
                rule_name = rule.name
                break
    quote = f'"{excerpt(evidence.unit.text)}"'
    if problems:
        reason = "Unsupported: " + "; ".join(problems) + f". Closest source text: {quote}."
        return {"claim": claim_text, "supported": False, "reason": reason, "rule": rule_name}
    reason = f"Supported by the source: {quote}."
    return {"claim": claim_text, "supported": True, "reason": reason, "rule": rule_name}

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

The checks that read the claim's verb (its roles, subject, agent and tense) are in
``_verb_checks``; what every check reads (the claim, its evidence, the document and the
settings) is declared in ``_claim_case``.

Cost: the evidence is looked for among the sentences that share the claim's most specific
words, at most ``EVIDENCE_CANDIDATES`` of them, and each check reads at most
``SENTENCES_PER_CHECK`` sentences, so a claim costs the same whatever the source's length.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import islice, pairwise
from typing import Any

from .._language._text import (
    split_clauses,
    split_sentences,
    tokenize,
)
from .._offline_settings import OfflineRule, RuleKind, rule_named, rules_of_kind
from ._claim_case import _BE_FORMS, _POSTINGS_BUDGET, _Case, _ClaimWord, _Evidence
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
from ._settings import SummarizationOfflineSettings
from ._verb_checks import (
    _changed_agent,
    _changed_tense,
    _lost_subject,
    _object_as_subject,
    _pronoun_for_another,
    _swapped_roles,
)

# A summary clause needs this many content words to stand as a claim of its own.
CLAIM_MIN_CONTENT = 2
# A paraphrase keeps every name, number and noun and changes at most this many verbs or adverbs.
PARAPHRASE_CHANGED_WORDS = 1
# A negation bears on a word at most this many words away ("an eruption is not certain").
NEGATION_SCOPE = 3
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

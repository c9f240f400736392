"""Claims of a summary and whether the source supports each one.

Claims: the summary is split into sentences and then clauses, one fact each.

Evidence: every window of one or two adjacent source sentences, so that a claim fusing two
neighbouring sentences ("voted to replace the 80-year-old bridge with a 240 million dollar
bridge") finds both; in a window of two, each sentence must give the claim a substantial part
of its own (``PAIR_SHARE``), or any stray word of the next sentence would do. What a window may
refer to without naming it counts as present in it: the names of the two sentences before it
and the names and nouns of the lead sentence (see :class:`SourceDocument`); but its own words
must cover at least ``MIN_OWN_SHARE`` of the claim.

Support: the claim's content words are weighted by how specific they are in this document
(inverse sentence frequency); numbers and names count more, verbs and adverbs less (a
summary says "paid for" where the source says "funded", "will host" for "will be held",
"daily" for "each day"), and the claim's first content word (its subject, usually) counts
double. A name the document mentions, but not near the window, gets half its weight. The best
window covers most of that weight; the claim's support is half that coverage and half the
coverage in the window's word order (either sentence first), so that words lifted from the
source and recombined into another who-did-what score lower.

A claim is supported when nothing contradicts it and either its support reaches
``SUPPORT_THRESHOLD`` or it is a paraphrase: the window has every one of its names, numbers and
nouns (each occurrence its own, so "Swansea host Swansea" is no paraphrase of "the Foxes host
Swansea"), with its phrases mostly in the claim's order (inside a phrase, words may move: "a
4 percent pay rise", "a pay rise of 4 percent"), and the claim changes at most one verb or
adverb ("funded" for "paid for"; not a whole new predicate). Contradictions, each decisive:

- a number or date the document never gives, or one the window does not give;
- a number that counts something else in the window ("12,000 people" where it says "12,000
  robots");
- a duration that differs ("a week" where the window says "48 hours");
- a capitalised name the document never mentions;
- a comparison the window does not make ("larger than");
- a negation that the claim and the clause of the window it restates disagree on, or one next
  to the claim's verb in a clause elsewhere that restates the whole claim ("has erupted" where
  the source says "an eruption is not certain");
- a verb whose subject and object the window has the other way round ("Swansea beat the Foxes"
  where it says "The Foxes beat Swansea").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from ._document import SourceDocument, TextUnit, analyse_source, excerpt
from ._facts import REPORTING_VERBS
from ._text import Token, split_clauses, split_sentences, tokenize, word_set

SUPPORT_THRESHOLD = 0.85
# Weight of word-order agreement (against plain word coverage) in a claim's support.
ORDER_SHARE = 0.5
# A claim whose names, numbers and nouns are all in the window is a paraphrase when the words
# it changed (verbs, adverbs) leave at least this share of its weight covered, and the window
# gives at least ``PARAPHRASE_ORDER`` of the weight of its phrases in the claim's order.
PARAPHRASE_COVERAGE = 0.5
PARAPHRASE_ORDER = 0.5
# A paraphrase changes at most this many verbs and adverbs, not the whole predicate.
PARAPHRASE_CHANGED_WORDS = 1
# A window is evidence only when its own words (not only what it refers to) cover this share
# of the claim.
MIN_OWN_SHARE = 0.5
# Evidence windows (best by plain coverage) whose word order is compared.
CANDIDATE_WINDOWS = 3
# The most adjacent source sentences one window of evidence spans.
WINDOW_SENTENCES = 2
# In a window of two sentences, each must give this share of the claim's weight on its own.
PAIR_SHARE = 0.2
# A summary clause needs this many content words to stand as a claim of its own.
CLAIM_MIN_CONTENT = 2
# The negation check compares the claim with the window's clause restating this share of it.
NEGATION_CLAUSE_OVERLAP = 0.7
# A clause elsewhere in the source contradicts the claim when it restates this share of it
# (what the clause refers to included) with a negation next to the claim's verb.
ELSEWHERE_NEGATION_OVERLAP = 1.0
# A negation bears on a word at most this many words away ("an eruption is not certain").
NEGATION_SCOPE = 3
# Content words after a number that say what it counts ("4,000 people").
NUMBER_SLOT_WORDS = 2

NUMBER_WEIGHT = 2.0
NAME_WEIGHT = 1.5
LIGHT_WORD_WEIGHT = 0.3
SUBJECT_WEIGHT = 2.0
# Share of its weight a name earns when the document mentions it, but not near the evidence.
DISTANT_NAME_CREDIT = 0.5

# Units of time, in hours, so that "48 hours" and "two days" agree and "a week" does not.
_HOURS_PER_UNIT = {
    "second": 1 / 3600,
    "minute": 1 / 60,
    "hour": 1.0,
    "day": 24.0,
    "week": 168.0,
    "fortnight": 336.0,
    "month": 730.0,
    "year": 8760.0,
    "decade": 87600.0,
}
_ONE = word_set("a an one")
# Derivational endings that turn a verb into a noun ("erupt" -> "eruption").
_NOUN_ENDINGS = ("ation", "ition", "ment", "ion")


@dataclass(frozen=True)
class _ClaimWord:
    """A content word of a claim and what it weighs."""

    token: Token
    position: int
    weight: float
    # A name, number or noun (not a verb or adverb): what a paraphrase must keep.
    key: bool


@dataclass(frozen=True)
class _Window:
    """Adjacent source sentences read together as evidence."""

    unit: TextUnit
    sentences: tuple[TextUnit, ...]
    context: frozenset[str]
    first: int
    last: int

    def has(self, stem: str) -> bool:
        return stem in self.unit.stems or stem in self.context

    @cached_property
    def hours(self) -> frozenset[float]:
        """The spans of time the window gives, in hours."""
        return frozenset(span.hours for span in _durations(self.unit))


@dataclass(frozen=True)
class _Alignment:
    window: _Window
    support: float
    missing: tuple[Token, ...]
    paraphrase: bool


@lru_cache(maxsize=64)
def _windows(source: str) -> tuple[_Window, ...]:
    """Every window of one to ``WINDOW_SENTENCES`` adjacent sentences of a source."""
    document = analyse_source(source)
    sentences = document.sentences
    return tuple(
        _Window(
            TextUnit.joined(sentences[start:end]),
            sentences[start:end],
            document.context[start],
            start,
            end - 1,
        )
        for start in range(len(sentences))
        for end in range(start + 1, min(len(sentences), start + WINDOW_SENTENCES) + 1)
    )


def split_claims(summary: str) -> list[str]:
    """Split a summary into atomic claims: sentences, and clauses where sentences join facts.

    Args:
        summary: The summary text.

    Returns:
        The claims in order, each with at least one content word.
    """
    return [
        clause
        for sentence in split_sentences(summary)
        for clause in split_clauses(sentence, min_content=CLAIM_MIN_CONTENT)
        if any(token.is_content for token in tokenize(clause))
    ]


def _claim_words(claim: TextUnit, document: SourceDocument) -> list[_ClaimWord]:
    """The claim's content words, weighted by how specific they are to this document."""
    words: list[_ClaimWord] = []
    for position, token in enumerate(claim.tokens):
        if not token.is_content:
            continue
        weight = document.weight(token.stem)
        key = True
        if token.is_number or token.is_date_day:
            weight *= NUMBER_WEIGHT
        elif token.stem in document.names or (position > 0 and token.capitalized):
            weight *= NAME_WEIGHT
        elif position in claim.light_positions:
            weight *= LIGHT_WORD_WEIGHT
            key = False
        if not words:
            # The clause's first content word is usually its subject: who or what it is about.
            weight *= SUBJECT_WEIGHT
        words.append(_ClaimWord(token, position, weight, key))
    return words


def _covered_weight(
    words: list[_ClaimWord],
    window: _Window,
    document: SourceDocument,
    same: frozenset[int],
    *,
    with_context: bool = True,
) -> float:
    """Weight of the claim words found in the window (and, ``with_context``, what it refers to).

    Each occurrence in the claim needs its own occurrence in the window, so "the Foxes host
    the Foxes" is not covered by "the Foxes host Swansea". Words of a span of time the window
    gives in other units (``same``) count as found.
    """
    available = window.unit.content_counts.copy()
    if with_context:
        # What the window refers to stands in for a word it lacks, not for a second one.
        available.update(window.context - window.unit.stems)
    found: list[float] = []
    for word in words:
        if word.position in same:
            found.append(word.weight)
        elif available[word.token.stem] > 0:
            available[word.token.stem] -= 1
            found.append(word.weight)
        elif word.token.stem in document.names:
            found.append(DISTANT_NAME_CREDIT * word.weight)
    return math.fsum(found)


def _heaviest_common_subsequence(words: list[_ClaimWord], stems: list[str]) -> float:
    """Weight of the heaviest common subsequence of the claim's words and a list of stems."""
    previous = [0.0] * (len(stems) + 1)
    for word in words:
        current = [0.0] * (len(stems) + 1)
        for j, stem in enumerate(stems, start=1):
            if stem == word.token.stem:
                current[j] = previous[j - 1] + word.weight
            else:
                current[j] = max(previous[j], current[j - 1])
        previous = current
    return previous[-1]


def _ordered_overlap(words: list[_ClaimWord], window: _Window) -> float:
    """Weight of the claim words the window has in the claim's order.

    The sentences of a window may be taken in either order: a summary often states the
    second sentence's fact first.
    """
    claim_stems = {word.token.stem for word in words}
    best = 0.0
    for sentences in {window.sentences, window.sentences[::-1]}:
        stems = [
            token.stem
            for sentence in sentences
            for token in sentence.tokens
            if token.is_content and token.stem in claim_stems
        ]
        best = max(best, _heaviest_common_subsequence(words, stems))
    return best


def _phrase_numbers(words: list[_ClaimWord], claim: TextUnit) -> list[int]:
    """For each claim word, which phrase (run of adjacent content words) of the claim it is in."""
    phrases: list[int] = []
    phrase, previous = -1, -2
    for word in words:
        if word.position != previous + 1 or word.position in claim.light_positions:
            phrase += 1
        phrases.append(phrase)
        previous = word.position
    return phrases


def _phrases_in_order(words: list[_ClaimWord], phrases: list[int], window: _Window) -> float:
    """Weight of the claim's phrases that the window gives in the claim's order.

    Within a phrase the words may be rearranged ("a 4 percent pay rise", "a pay rise of 4
    percent"); the phrases themselves must keep their order ("the Foxes host Swansea" is not
    "Swansea host the Foxes"). The window's sentences may be taken in either order.
    """
    weight: dict[int, float] = {}
    first_word: dict[str, int] = {}
    for word, phrase in zip(words, phrases, strict=True):
        weight[phrase] = weight.get(phrase, 0.0) + word.weight
        first_word.setdefault(word.token.stem, phrase)
    best = 0.0
    for sentences in {window.sentences, window.sentences[::-1]}:
        sequence: list[int] = []
        for sentence in sentences:
            for token in sentence.tokens:
                found = first_word.get(token.stem)
                if found is not None and (not sequence or sequence[-1] != found):
                    sequence.append(found)
        # The heaviest increasing run of phrases along the window.
        heaviest: dict[int, float] = {}
        for current in sequence:
            earlier = max((w for p, w in heaviest.items() if p < current), default=0.0)
            heaviest[current] = max(heaviest.get(current, 0.0), earlier + weight[current])
        best = max(best, max(heaviest.values(), default=0.0))
    return best


def _keeps_key_words(
    words: list[_ClaimWord], claim: TextUnit, window: _Window, same: frozenset[int]
) -> bool:
    """Whether the window has every name, number and noun of the claim, phrases in order.

    Each occurrence needs its own ("Swansea host Swansea" does not keep "The Foxes host
    Swansea"); words the window only refers to (its context) need not be in order.
    """
    keys = [word for word in words if word.key and word.position not in same]
    if not keys:
        return False
    available = window.unit.content_counts.copy()
    in_window: list[_ClaimWord] = []
    for word in keys:
        stem = word.token.stem
        if available[stem] > 0:
            available[stem] -= 1
            in_window.append(word)
        elif stem in window.unit.stems or stem not in window.context:
            return False
    total = math.fsum(word.weight for word in in_window)
    phrases = _phrase_numbers(in_window, claim)
    return _phrases_in_order(in_window, phrases, window) >= PARAPHRASE_ORDER * total


def _swapped_roles(claim: TextUnit, window: _Window, document: SourceDocument) -> str | None:
    """Describe a verb whose subject and object the window has the other way round.

    "Swansea beat the Foxes" where the window says "The Foxes beat Swansea".
    """
    words = _claim_words(claim, document)
    for index, word in enumerate(words):
        if word.key or index == 0 or index == len(words) - 1:
            continue
        before, after = words[index - 1], words[index + 1]
        if not (before.key and after.key):
            continue
        for sentence in window.sentences:
            stems = [token.stem for token in sentence.tokens]
            if word.token.stem not in stems:
                continue
            verb = stems.index(word.token.stem)
            wrong_before = before.token.stem in stems[verb + 1 :]
            wrong_before = wrong_before and before.token.stem not in stems[:verb]
            wrong_after = after.token.stem in stems[:verb] and after.token.stem not in stems[verb:]
            if wrong_before and wrong_after:
                return (
                    f'the source has it the other way round ("{before.token.surface} '
                    f'{word.token.surface} ... {after.token.surface}" is not what it says)'
                )
    return None


def _combines_two_facts(words: list[_ClaimWord], window: _Window) -> bool:
    """Whether each sentence of a window gives the claim a substantial part of its own.

    A claim may fuse two neighbouring sentences, but a second sentence that only lends it a
    stray word is no evidence: each must give names, numbers or nouns the other lacks,
    weighing at least ``PAIR_SHARE`` of the claim.
    """
    if len(window.sentences) == 1:
        return True
    total = math.fsum(word.weight for word in words)
    for sentence in window.sentences:
        others = frozenset().union(*(s.stems for s in window.sentences if s is not sentence))
        own = math.fsum(
            word.weight
            for word in words
            if word.key and word.token.stem in sentence.stems and word.token.stem not in others
        )
        if own < PAIR_SHARE * total:
            return False
    return True


def _align(claim: TextUnit, source: str) -> _Alignment | None:
    """Find the window of source sentences that best supports the claim."""
    document = analyse_source(source)
    words = _claim_words(claim, document)
    total = math.fsum(word.weight for word in words)
    if total == 0:
        return None
    candidates: list[_Alignment] = []
    for window in _windows(source):
        same = _same_spans(claim, window)
        own = _covered_weight(words, window, document, same, with_context=False) / total
        if own < MIN_OWN_SHARE or not _combines_two_facts(words, window):
            continue
        covered = _covered_weight(words, window, document, same) / total
        changed = sum(1 for word in words if not word.key and not window.has(word.token.stem))
        paraphrase = (
            changed <= PARAPHRASE_CHANGED_WORDS
            and covered >= PARAPHRASE_COVERAGE
            and _keeps_key_words(words, claim, window, same)
        )
        missing = tuple(
            word.token
            for word in words
            if not window.has(word.token.stem) and word.position not in same
        )
        candidates.append(_Alignment(window, covered, missing, paraphrase))
    # The best few by plain coverage (one sentence before two) have their word order compared.
    candidates.sort(key=lambda c: (-c.support, c.window.last - c.window.first, c.window.first))
    best: _Alignment | None = None
    for candidate in candidates[:CANDIDATE_WINDOWS]:
        window = candidate.window
        same = _same_spans(claim, window)
        in_window = [word for word in words if word.token.stem in window.unit.stems]
        via_context = math.fsum(
            word.weight
            for word in words
            if word.token.stem not in window.unit.stems
            and (word.token.stem in window.context or word.position in same)
        )
        ordered = (_ordered_overlap(in_window, window) + via_context) / total
        support = (1 - ORDER_SHARE) * candidate.support + ORDER_SHARE * ordered
        scored = _Alignment(window, support, candidate.missing, candidate.paraphrase)
        if best is None or (scored.paraphrase, support) > (best.paraphrase, best.support):
            best = scored
    return best


def _is_negated(unit: TextUnit) -> bool:
    """Whether a piece of text contains a negation ("No 1" as a rank does not count)."""
    tokens = unit.tokens
    for index, token in enumerate(tokens):
        if not token.is_negation:
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.norm == "no" and following is not None and following.is_number:
            continue
        return True
    return False


def _base_stem(stem: str) -> str:
    """The stem without a noun-forming ending, so that "eruption" meets "erupt"."""
    for ending in _NOUN_ENDINGS:
        if stem.endswith(ending) and len(stem) - len(ending) >= 4:
            return stem[: -len(ending)]
    return stem


def _restating_clauses(
    claim: TextUnit, units: list[TextUnit], context: frozenset[str], min_overlap: float
) -> list[tuple[float, TextUnit]]:
    """The clauses of ``units`` that restate most of the claim, with the share they cover."""
    claim_stems = {_base_stem(stem) for stem in claim.stems}
    if not claim_stems:
        return []
    found: list[tuple[float, TextUnit]] = []
    for unit in units:
        for clause_unit in unit.clauses:
            stems = {_base_stem(stem) for stem in clause_unit.stems | context}
            overlap = len(claim_stems & stems) / len(claim_stems)
            if overlap >= min_overlap:
                found.append((overlap, clause_unit))
    return found


def _negation_flip(claim: TextUnit, window: _Window, source: str) -> str | None:
    """Describe a negation that the claim and the source clause it restates disagree on."""
    negated = _is_negated(claim)
    in_window = _restating_clauses(claim, [window.unit], window.context, NEGATION_CLAUSE_OVERLAP)
    if in_window:
        clause = max(in_window, key=lambda found: found[0])[1]
        if negated and not _is_negated(clause):
            return f'the claim is negated but the source is not ("{excerpt(clause.text)}")'
        if _is_negated(clause) and not negated:
            return f'the source negates it ("{excerpt(clause.text)}")'
    if negated:
        return None
    predicates = {
        _base_stem(claim.tokens[position].stem)
        for position in claim.light_positions
        if claim.tokens[position].norm not in REPORTING_VERBS
    }
    if not predicates:
        return None
    document = analyse_source(source)
    for index, sentence in enumerate(document.sentences):
        if window.first <= index <= window.last:
            continue
        restating = _restating_clauses(
            claim, [sentence], document.context[index], ELSEWHERE_NEGATION_OVERLAP
        )
        for _, clause in restating:
            if _negates_predicate(clause, predicates):
                return f'the source says otherwise ("{excerpt(clause.text)}")'
    return None


def _negates_predicate(clause: TextUnit, predicates: set[str]) -> bool:
    """Whether a negation in the clause stands next to one of the claim's predicate words."""
    tokens = clause.tokens
    negations = [index for index, token in enumerate(tokens) if token.is_negation]
    return any(
        _base_stem(token.stem) in predicates
        and any(abs(index - negation) <= NEGATION_SCOPE for negation in negations)
        for index, token in enumerate(tokens)
    )


def _number_slots(unit: TextUnit) -> dict[str, set[str]]:
    """What each number counts: the stems of the content words right after it."""
    slots: dict[str, set[str]] = {}
    tokens = unit.tokens
    for index, token in enumerate(tokens):
        if not token.is_number:
            continue
        words = [
            t.stem
            for t in tokens[index + 1 : index + 1 + NUMBER_SLOT_WORDS]
            if t.is_content and not t.is_number
        ]
        slots.setdefault(token.norm, set()).update(words)
    return slots


def _swapped_numbers(claim: TextUnit, evidence: TextUnit) -> list[str]:
    """Numbers the source gives for something else: "12,000 people" for "4,000 people"."""
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


@dataclass(frozen=True)
class _Duration:
    """A span of time a text gives ("48 hours"), in hours."""

    hours: float
    written: str
    # The number it is counted in ("48"), if written with one.
    value: str | None
    # Positions of its words in the text.
    positions: tuple[int, int]


def _durations(unit: TextUnit) -> list[_Duration]:
    """The spans of time a text gives: a number (or "a", "one") and a unit of time."""
    found: list[_Duration] = []
    tokens = unit.tokens
    for index in range(1, len(tokens)):
        hours = _HOURS_PER_UNIT.get(tokens[index].stem)
        amount = tokens[index - 1]
        if hours is None:
            continue
        if amount.is_number:
            count, value = float(amount.norm), amount.norm
        elif amount.norm in _ONE:
            count, value = 1.0, None
        else:
            continue
        written = unit.text[amount.start : tokens[index].end]
        found.append(_Duration(round(count * hours, 6), written, value, (index - 1, index)))
    return found


def _written(unit: TextUnit, values: list[str] | frozenset[str]) -> str:
    """How a text writes some of its values ("420 million", "June 1"), in its order."""
    return ", ".join(
        dict.fromkeys(
            unit.text[token.start : token.end]
            for token in unit.tokens
            if token.norm in values and (token.is_number or token.is_date_day)
        )
    )


def _same_spans(claim: TextUnit, window: _Window) -> frozenset[int]:
    """Positions of the claim's words that give a span of time the window gives in other
    units ("two days" where it says "48 hours")."""
    return frozenset(
        position
        for span in _durations(claim)
        if span.hours in window.hours
        for position in span.positions
    )


def _value_problems(claim: TextUnit, window: _Window, document: SourceDocument) -> list[str]:
    """Numbers, dates and durations of the claim that the source does not give as stated."""
    window_spans = _durations(window.unit)
    window_hours = {span.hours for span in window_spans}
    claim_spans = _durations(claim)
    # "two days" for "48 hours": the same span in other units, so its number need not match.
    converted = {span.value for span in claim_spans if span.hours in window_hours}
    values = sorted(value for value in claim.values if value not in converted)
    absent = [value for value in values if value not in document.values]
    if absent:
        return ["the source never gives " + _written(claim, absent)]
    elsewhere = [value for value in values if value not in window.unit.values]
    if elsewhere:
        given = window.unit.values
        where = f"; there it says {_written(window.unit, given)}" if given else ""
        return [f"the source gives {_written(claim, elsewhere)} only elsewhere{where}"]
    problems = _swapped_numbers(claim, window.unit)
    if window_spans:
        for span in claim_spans:
            if span.hours not in window_hours:
                problems.append(
                    f'the claim says "{span.written}" where the source says '
                    + ", ".join(f'"{other.written}"' for other in window_spans)
                )
    return problems


def _comparison_problem(claim: TextUnit, window: _Window) -> str | None:
    """A comparison the claim makes ("larger than") that the window does not."""
    tokens = claim.tokens
    for index in range(len(tokens) - 1):
        compared = tokens[index]
        if tokens[index + 1].norm != "than" or not compared.is_content or compared.is_number:
            continue
        if compared.stem not in window.unit.stems:
            return f'the source does not say "{compared.surface} than"'
    return None


def judge_claim(claim_text: str, source: str) -> dict[str, Any]:
    """Judge one claim against the source.

    Args:
        claim_text: The claim.
        source: The source document.

    Returns:
        ``{"claim", "supported", "reason"}``; the reason quotes the closest evidence.
    """
    document = analyse_source(source)
    claim = TextUnit.of(claim_text)
    alignment = _align(claim, source)
    if alignment is None:
        reason = "Unsupported: the source has nothing to compare it with."
        return {"claim": claim_text, "supported": False, "reason": reason}
    window = alignment.window
    quote = f'"{excerpt(window.unit.text)}"'
    problems = _value_problems(claim, window, document)
    absent_names = [
        token.surface
        for position, token in enumerate(claim.tokens)
        if position > 0
        and token.capitalized
        and token.is_content
        and not token.is_number
        and token.stem not in document.all_stems
    ]
    if absent_names:
        problems.append("the source never mentions " + ", ".join(dict.fromkeys(absent_names)))
    swapped = _swapped_roles(claim, window, document)
    for problem in (
        swapped,
        _comparison_problem(claim, window),
        _negation_flip(claim, window, source),
    ):
        if problem:
            problems.append(problem)
    if not problems and not alignment.paraphrase and alignment.support < SUPPORT_THRESHOLD:
        missing = ", ".join(dict.fromkeys(t.surface for t in alignment.missing[:6]))
        problems.append(
            f"only {alignment.support:.0%} of its content is in the closest source sentences "
            f"as stated (not there: {missing or 'the same word order'})"
        )
    if problems:
        reason = "Unsupported: " + "; ".join(problems) + f". Closest source text: {quote}."
        return {"claim": claim_text, "supported": False, "reason": reason}
    return {"claim": claim_text, "supported": True, "reason": f"Supported by the source: {quote}."}

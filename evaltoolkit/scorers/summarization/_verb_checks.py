"""The claim checks that read a claim's verb: who does it, to whom, by whom and when.

``swapped_roles``, ``pronoun_for_another``, ``lost_subject``, ``object_as_subject``,
``changed_agent`` and ``changed_tense``: rules of kind ``contradiction`` in ``CLAIM_RULES``
(``_claims``, whose docstring gives each rule's cases), each check named after its rule and
taking a :class:`~._claim_case._Case`.
"""

from __future__ import annotations

import re

from .._language._text import AUXILIARIES, MONTH_NAMES, Token, stem, word_set
from ._claim_case import _BE_FORMS, _POSTINGS_BUDGET, _Case
from ._document import TextUnit
from ._facts import REPORTING_VERBS

# How many words after a passive verb its "by" may come ("founded in 1995 by John Smith").
AGENT_WINDOW = 8
REPORTING_STEMS = frozenset(stem(word) for word in REPORTING_VERBS)
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

"""Atomic facts of a source sentence, each phrased so that it reads on its own.

A sentence is cut into clause-sized pieces (:func:`split_clauses`: at semicolons, commas and
clause-joining conjunctions, with pieces too small to state anything put back onto their
neighbour). Each piece becomes one fact, phrased to stand alone:

- a clause loses the conjunction that opened it ("after he slipped on a manhole cover");
- a verb phrase without a subject ("will attempt to add to his accomplishments") gets the
  subject of the clause it continues, when that clause has one verb and so one subject;
- an opening that states nothing yet ("Council member Rita Okafor, who led the project")
  joins the clause after it, or lends it its subject ("Council member Rita Okafor said ...");
- a phrase without a verb after the first clause ("a series of small earthquakes beneath the
  volcano") is a thing mentioned rather than a statement, and is asked about as such;
- a condition ("if City fail to qualify") stays with the clause it conditions;
- a relative clause (", who led the project") and a bare attribution ("officials said") are
  side remarks and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._language._memo import memoized_property
from .._language._text import AUXILIARIES, Token, is_verb_form, split_clauses, tokenize, word_set

_RELATIVE_OPENERS = word_set("who whom whose which")
_COORDINATING_OPENERS = word_set("and but or")
_CONDITIONAL_OPENERS = word_set("if unless whether")
REPORTING_VERBS = word_set(
    """
    say said says tell told tells add added adds announce announced announces report reported
    reports claim claimed claims confirm confirmed confirms insist insisted insists explain
    explained explains state stated states note noted notes comment commented comments reveal
    revealed reveals according write wrote writes
    """
)
# A subject borrowed for a verb phrase has at most this many words.
_SUBJECT_WORDS = 12
_OPENER_RE = re.compile(r"^[\s,;:\-]*(?P<word>as well as|[A-Za-z]+)?")
_DATELINE_RE = re.compile(
    r"^\s*(?:[A-Z][\w.,' ]{0,40}?)?\(\s*(?:CNN|AP|Reuters|AFP)\s*\)\s*(?:--|-|:)?\s*",
    re.IGNORECASE,
)
_LEADING_PUNCTUATION_RE = re.compile(r"^[\s,;:\-]+")
_ATTRIBUTION_VERBS = "said|says|told|reported|added|announced|confirmed|claimed|explained|noted"
# ", officials said." / ", said the police." / ", according to state media." at the end.
_CLOSING_ATTRIBUTION_RE = re.compile(
    r",\s*(?:(?:[\w'.\-]+\s+){1,4}(?:"
    + _ATTRIBUTION_VERBS
    + r")|(?:"
    + _ATTRIBUTION_VERBS
    + r")(?:\s+[\w'.\-]+){1,4}|according\s+to(?:\s+[\w'.\-]+){1,5})\s*[.!?]?\s*$",
    re.IGNORECASE,
)
_OPENING_CONJUNCTION_RE = re.compile(
    r"^(?:and|but|or|after|before|because|while|whereas|although|though)\s+", re.IGNORECASE
)
_OPENING_PREPOSITION_RE = re.compile(
    r"^(?:and|or|of|with|to|for|from|by|in|on|at|into|as|including|like|than|during|"
    r"after|before|since|until|despite|following)\s+",
    re.IGNORECASE,
)
# Adverbs that may come before the verb of a verb phrase ("and also lost fewer bees").
_LEADING_ADVERBS = word_set("also then now later still just")


@dataclass(frozen=True)
class _Piece:
    """A piece of a sentence between clause boundaries, with what can be told of its role."""

    text: str
    opener: str
    tokens: tuple[Token, ...]

    @staticmethod
    def of(raw: str) -> _Piece:
        match = _OPENER_RE.match(raw)
        word = (match.group("word") or "").lower() if match else ""
        return _Piece(raw, word, tokenize(raw))

    @memoized_property
    def verbs(self) -> tuple[int, ...]:
        """Positions of the piece's own finite verbs.

        Verbs of a relative clause ("who led the project"), participles after a comma ("The
        researchers, led by ..."), infinitives ("to replace") and "-ing" forms belong to
        modifiers, not to the piece.
        """
        found: list[int] = []
        in_relative = False
        for index, token in enumerate(self.tokens):
            before = self.text[self.tokens[index - 1].end if index else 0 : token.start]
            after_comma = "," in before
            if after_comma:
                in_relative = False
            if token.norm in _RELATIVE_OPENERS:
                in_relative = True
            elif in_relative:
                continue
            elif token.norm in AUXILIARIES:
                if not (found and found[-1] == index - 1):
                    found.append(index)
            elif is_verb_form(self.tokens, index) and not token.surface.lower().endswith("ing"):
                previous = self.tokens[index - 1].norm if index else ""
                following = self.tokens[index + 1].norm if index + 1 < len(self.tokens) else ""
                if previous in AUXILIARIES and found and found[-1] == index - 1:
                    continue
                if previous != "to" and not (after_comma and following == "by"):
                    found.append(index)
        return tuple(found)

    @property
    def main_verb(self) -> int | None:
        """Position of the piece's first finite verb, if it has one."""
        return self.verbs[0] if self.verbs else None

    @property
    def predicate(self) -> bool:
        return self.main_verb is not None

    @property
    def verb_first(self) -> bool:
        """Whether the piece starts with its verb: a verb phrase without a subject."""
        for index, token in enumerate(self.tokens):
            if token.norm in _COORDINATING_OPENERS or token.is_negation:
                continue
            if token.norm in _LEADING_ADVERBS:
                continue
            return index == self.main_verb
        return False

    @property
    def subject(self) -> str:
        """The words before the piece's verb, when it has one verb and they are few.

        Without a verb, the words before its first modifier ("Council member Rita Okafor" of
        "Council member Rita Okafor, who led the project"). A piece with several verbs
        ("This is the moment a guard slipped") gives none: which one a later verb phrase
        continues cannot be told.
        """
        if len(self.verbs) > 1:
            return ""
        if self.main_verb is not None:
            end = self.tokens[self.main_verb].start
        else:
            end = len(self.text)
            for token in self.tokens:
                if token.norm in _RELATIVE_OPENERS:
                    end = token.start
                    break
            comma = self.text.find(",", 1)
            end = min(end, comma) if comma > 0 else end
        subject = _drop_opener(self.text[:end]).strip(" ,")
        return subject if 0 < len(subject.split()) <= _SUBJECT_WORDS else ""

    @property
    def attribution(self) -> bool:
        """Whether the piece only says who said something: "officials said"."""
        if not any(token.norm in REPORTING_VERBS for token in self.tokens):
            return False
        if any(token.norm == "that" for token in self.tokens):
            return False
        content = [t for t in self.tokens if t.is_content and t.norm not in REPORTING_VERBS]
        return not content


def strip_dateline(sentence: str) -> str:
    """Remove a news dateline such as "( CNN )" or "Rome (CNN) --" from a sentence.

    Args:
        sentence: A source sentence.

    Returns:
        The sentence without its dateline.
    """
    return _DATELINE_RE.sub("", sentence, count=1)


def _strip_attribution(text: str) -> str:
    """Remove a closing attribution: ", officials said" or ", according to police"."""
    match = _CLOSING_ATTRIBUTION_RE.search(text)
    return text[: match.start()] if match else text


def _drop_opener(text: str, *, phrase: bool = False) -> str:
    """Remove the punctuation and conjunction (for a phrase: preposition) opening a piece."""
    text = _LEADING_PUNCTUATION_RE.sub("", text)
    text = _OPENING_CONJUNCTION_RE.sub("", text)
    return _OPENING_PREPOSITION_RE.sub("", text) if phrase else text


@dataclass(frozen=True)
class Fact:
    """One atomic fact of a source sentence.

    Attributes:
        text: The fact, in the sentence's own words.
        mention: Whether it is a thing mentioned rather than a statement (a phrase without a
            verb, such as "a series of small earthquakes beneath the volcano").
    """

    text: str
    mention: bool = False


def _join(left: str, right: str) -> str:
    """Put two pieces of a sentence back together, with the comma that stood between them.

    A piece that opens with a conjunction ("and ...") was cut there, not at a comma.
    """
    opener = _OPENER_RE.match(right)
    word = (opener.group("word") or "").lower() if opener else ""
    separator = " " if word in _COORDINATING_OPENERS else ", "
    return f"{left.rstrip(' ,')}{separator}{right.strip()}"


def sentence_facts(sentence: str, min_content: int) -> list[Fact]:
    """Split a sentence into atomic facts that each read on their own (see the module).

    Args:
        sentence: One source sentence.
        min_content: The fewest content words a piece needs to be a fact of its own.

    Returns:
        The facts in order. Each is the sentence's own text, less the conjunction that
        opened it, and a verb phrase is preceded by the subject it continues.
    """
    clauses = split_clauses(strip_dateline(sentence), min_content=min_content)
    facts: list[Fact] = []
    # The subject of the last clause, for the verb phrases that continue it.
    subject = ""
    # An opening that states nothing yet ("Council member Rita Okafor, who led the project"):
    # the subject (or the setting) of what follows.
    opening = ""
    for clause in clauses:
        piece = _Piece.of(clause)
        if piece.attribution or (piece.opener in _RELATIVE_OPENERS and (facts or opening)):
            continue
        if piece.opener in _CONDITIONAL_OPENERS and facts:
            # "..., if City fail to reach the group stages": a condition of the fact before.
            facts[-1] = Fact(_join(facts[-1].text, piece.text), facts[-1].mention)
            continue
        core = _Piece.of(_strip_attribution(clause))
        if not core.predicate:
            # A phrase with an attribution glued on ("after a series of earthquakes, officials
            # said") is still a phrase.
            piece = core
        if not piece.predicate:
            if not facts:
                opening = _join(opening, piece.text) if opening else _drop_opener(piece.text)
                subject = subject or piece.subject
            else:
                facts.append(Fact(_drop_opener(piece.text, phrase=True), mention=True))
            continue
        if piece.verb_first and subject:
            facts.append(Fact(f"{subject} {_drop_opener(piece.text)}"))
        elif opening:
            facts.append(Fact(_join(opening, piece.text)))
        elif piece.verb_first and facts:
            facts[-1] = Fact(_join(facts[-1].text, piece.text), facts[-1].mention)
        else:
            facts.append(Fact(_drop_opener(piece.text)))
        if not piece.verb_first:
            subject = piece.subject or subject
        opening = ""
    if opening:
        # Nothing followed: the opening was a clause whose verb went unrecognised ("The new
        # design adds ...": present-tense verbs look like plural nouns).
        facts.append(Fact(opening))
    return [Fact(fact.text.strip(), fact.mention) for fact in facts if fact.text.strip()]

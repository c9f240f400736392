"""Offline answers to the answer-similarity steps: semantic units and their analysis.

Units: a short answer is one unit ("1960", "Johannes Gutenberg", "July 25, 2017"); a real list
("red, blue, and yellow": commas or semicolons with "and" / "or" before the last item) is one
unit per item; longer text is split into sentences and then clauses, one fact each, and a
clause of more than ``MAX_UNIT_WORDS`` (40) words or ``MAX_UNIT_CHARS`` (1,000) characters into
pieces of that size. A non-empty text always has a unit: an answer of punctuation or symbols
only ("-", "?") is its own unit. Words of
a ground truth that only restate the question are no units: "The capital of France is Paris"
answers "What is the capital of France?" with the one unit "Paris" (a name or a date is kept
whole: "United Kingdom" to "who did the United States fight?").

Analysis: both sides are normalised (case, punctuation, articles, hedges such as "about" or
"circa", number words and ordinals to digits, month abbreviations, light stemming).
Normalisation never empties a unit: an answer that is only an article ("A", "The") keeps it,
an article-like word that introduces nothing ("option A", "A) Paris", "The answer is A.") is
a label and is kept, and a unit without words keeps its symbols. A ground-truth unit is

- exact when it is the same text as an output unit up to case and whitespace, or when its
  normalised words occur, in order, in an output unit (or in the passage around it when the
  answer straddles two units);
- semantic when nearly all of its content words are there (a word also matches a longer
  form that begins with it, "Bennet" / "Bennett", and a name its initial), when the strings
  are near-identical, or when a name is given without its middle names or its description
  ("Shirley Jones" for "Shirley Mae Jones");
- partial when about half of it is there;
- missing otherwise.

The thresholds behind "nearly all", "near-identical" and "about half" are the
:class:`AnswerSimilarityOfflineSettings` (``settings=`` of :func:`analyze_units`).

Parenthesised and quoted asides of a ground truth are optional ("585 (HD)" is answered by
"585"), and a yes/no ground truth is matched by the polarity of the output's first statement.
A ground-truth unit not matched at least semantically is contradicted when the output puts a
different value in its slot: another year where the ground truth has a year, another number
for a number (values the question itself mentions do not count), or, for a short output,
another name for a name (names the question mentions do not count: "Lyon is the capital of
France" puts Lyon, not France, where the ground truth has Paris). Output units that match
nothing and say more than the question and the ground truth already say are extra
information.

Cost: every step is near-linear in the length of the texts. Words are looked up through a
blocking index (``_answer_words``), and each ground-truth unit is compared with at most
``MAX_CANDIDATES`` (8) output units, those holding the most of its content, and with the
passage around the best of them (``_answer_index``); an output of at most 8 units is
compared whole, as before.

Size limit: an output, ground truth or question longer than ``MAX_TEXT_CHARS``
(1,500,000 characters, some 250,000 words, a 500-page book) is refused with an
:class:`~evaltoolkit.errors.InputError` whose ``field`` names it (``"output"``,
``"ground_truth"``, ``"input"``) and whose message says what to do: score an excerpt or a
summary of the text, or use a model judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from rapidfuzz import fuzz

from ...errors import InputError
from .._language._text import HEDGES, MONTH_NAMES, Token, split_sentences
from ._answer_index import OutputIndex, Spelling
from ._answer_text import (
    MAX_UNIT_CHARS,
    MAX_UNIT_WORDS,
    NormalisedUnit,
    cap_unit,
    clauses_with_words,
    is_content,
    text_tokens,
)
from ._answer_words import BLOCKING_LENGTH, WordIndex
from ._settings import AnswerSimilarityOfflineSettings

__all__ = [
    "MAX_TEXT_CHARS",
    "MAX_UNIT_CHARS",
    "MAX_UNIT_WORDS",
    "analyze_units",
    "extract_units",
    "split_units",
]

MatchType = Literal["exact", "semantic", "partial", "missing"]

#: The longest output, ground truth or question (in characters) the offline judge analyses.
#: Far above any answer (a long-form answer of a few pages is 10,000-50,000 characters) and
#: above a 1 MB text. Cost is near-linear, some 5-8 s of CPU per million characters of each
#: text through the scorer (``benchmarks/offline_answer_cost.py``), so an item at the limit
#: takes about half a minute and up to 700 MB in the worst case (all words distinct); a
#: runaway text, such as a corpus pasted into one field, fails at once with a clear error
#: instead of holding a run for minutes.
MAX_TEXT_CHARS = 1_500_000

# Character similarity is measured for ground-truth units of at most this many characters
# (normalised), the names and short phrases whose spellings it tells apart; its cost grows with
# the square of the length, and for a longer unit the share of its words found says more.
CHARACTER_SIMILARITY_CHARS = 64
# A word of at least this many letters also matches a longer word that begins with it
# ("Bennet" / "Bennett", "revolution" / "revolutionary"): the shortest word the word index
# compares with others.
FUZZY_WORD_LENGTH = BLOCKING_LENGTH
# A text of at most this many words, without sentence punctuation inside, is a short answer.
SHORT_ANSWER_WORDS = 12

# A list: items separated by commas or semicolons, the last one introduced by "and" / "or".
_LIST_RE = re.compile(r"^(?:[^,;]+[,;]\s*)+(?:and|or)\s+[^,;]+$|;", re.IGNORECASE)
_LIST_SEPARATOR_RE = re.compile(r"\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
# A quoted nickname after a first name: 'Nicholas "Nick" Bakay' is also "Nick Bakay".
_NICKNAME_RE = re.compile(r"\b\w+\s+[\"\u201c](\w+)[\"\u201d]")
# An aside ends at the first closing mark; an opening mark inside one starts another (innermost
# first), so that an unclosed "(" is given up at the next "(" rather than at the end of the text.
_OPTIONAL_PART_RE = re.compile(
    r"\s*(?:\([^()]*\)|\[[^\[\]]*\]|\"[^\"]*\"|\u201c[^\u201c\u201d]*\u201d)\s*"
)


def _check_size(length: int, field: str) -> None:
    """Refuse a text longer than :data:`MAX_TEXT_CHARS` with an error that says what to do."""
    if length > MAX_TEXT_CHARS:
        raise InputError(
            f"field {field!r} has {length:,} characters, more than the {MAX_TEXT_CHARS:,} "
            "(MAX_TEXT_CHARS) the offline answer-similarity judge analyses; score an excerpt "
            "or a summary of it, or use a model judge",
            field=field,
        )


def _clean(text: str) -> str:
    return " ".join(text.split())


def _is_short(text: str) -> bool:
    words = text.split()
    inner = text.strip().rstrip(".!?")
    return len(words) <= SHORT_ANSWER_WORDS and not re.search(r"[.!?]\s", inner)


def _split_list(text: str) -> list[str]:
    """Split a short answer into list items ("red, blue, and yellow" -> three items).

    Only a real list is split: items joined by commas or semicolons whose last item comes
    after "and" / "or". "July 25, 2017", "Tucson, Arizona" and "salt and pepper" stay whole.
    """
    stripped = text.strip().rstrip(".")
    if not _LIST_RE.search(stripped):
        return [stripped]
    items = [item.strip(" .") for item in _LIST_SEPARATOR_RE.split(stripped) if item.strip(" .")]
    return items if len(items) >= 2 else [stripped]


def split_units(text: str) -> list[str]:
    """Split a text into semantic units.

    Args:
        text: An answer or a passage.

    Returns:
        The units in order: list items for a short answer, clauses of at most
        :data:`MAX_UNIT_WORDS` words for longer text. A text that is not blank has at least
        one unit, itself when it has no words ("-", "?").

    Example:
        >>> split_units("red, blue, and yellow")
        ['red', 'blue', 'yellow']
        >>> split_units("?")
        ['?']
    """
    text = _clean(text)
    if not text:
        return []
    if _is_short(text):
        units = [item for item in _split_list(text) if text_tokens(item)]
    else:
        units = [
            clause
            for sentence in split_sentences(text)
            for clause, has_words in clauses_with_words(sentence)
            if has_words
        ]
    return [piece for unit in units or [text] for piece in _bounded(unit)]


def _bounded(unit: str) -> list[str]:
    """A unit, or the pieces with words of a unit too long to be one (see ``cap_unit``)."""
    pieces = cap_unit(unit)
    if len(pieces) == 1:
        return pieces
    return [piece for piece in pieces if text_tokens(piece)] or pieces


def answer_part(ground_truth: str, question: str | None) -> str:
    """The part of a ground truth that answers the question, without restating it.

    "The capital of France is Paris" answers "What is the capital of France?" with "Paris";
    "Water boils at 100 degrees Celsius at sea level" answers "What is the boiling point of
    water at sea level?" with "100 degrees Celsius". The part runs from the first to the last
    content word the question does not have. A ground truth that adds nothing to the question,
    or shares nothing with it, is kept whole.

    Args:
        ground_truth: The expected answer.
        question: The question, if any.

    Returns:
        The answering part of the ground truth.

    Example:
        >>> answer_part("The capital of France is Paris", "What is the capital of France?")
        'Paris'
    """
    if not question:
        return ground_truth
    asked = WordIndex(
        (token.stem for token in text_tokens(question) if is_content(token)), _words_match
    )
    tokens = text_tokens(ground_truth)
    content = [token for token in tokens if is_content(token)]
    new = [
        token for token in content if not asked.matching(token.stem) and token.norm not in HEDGES
    ]
    if not new or len(new) == len(content):
        return ground_truth
    first = tokens.index(new[0])
    last = tokens.index(new[-1])
    # A name or a date is answered whole: "United Kingdom" to "who did the United States
    # fight", "July 14, 2017" to "when does it come out 2017".
    while first > 0 and _same_phrase(tokens[first - 1], tokens[first]):
        first -= 1
    while last + 1 < len(tokens) and _same_phrase(tokens[last], tokens[last + 1]):
        last += 1
    part = ground_truth[tokens[first].start : tokens[last].end]
    if part.count("(") > part.count(")"):
        closing = ground_truth.find(")", tokens[last].end)
        part = ground_truth[tokens[first].start : closing + 1] if closing >= 0 else part
    return part


def _same_phrase(left: Token, right: Token) -> bool:
    """Whether two neighbouring words belong to one name or one date."""
    if left.capitalized and right.capitalized and not (left.is_number or right.is_number):
        return True
    date_parts = (left.is_date_day or left.norm in MONTH_NAMES or left.is_number) and (
        right.is_date_day or right.norm in MONTH_NAMES or right.is_number
    )
    return date_parts and (left.is_date_day or right.is_date_day)


def extract_units(output: str, ground_truth: str, question: str | None = None) -> dict[str, Any]:
    """Extract the semantic units of an output and of its ground truth.

    Args:
        output: The text to judge.
        ground_truth: The expected answer.
        question: The question both answer, if any: words of the ground truth that only
            restate it are not units (see :func:`answer_part`).

    Returns:
        ``{"output_units": [str, ...], "ground_truth_units": [str, ...]}``.

    Raises:
        InputError: A text is longer than :data:`MAX_TEXT_CHARS` (``field`` names it:
            ``"output"``, ``"ground_truth"`` or ``"input"`` for the question).

    Example:
        >>> extract_units("It was Paris.", "The capital is Paris", "What is the capital?")
        {'output_units': ['It was Paris'], 'ground_truth_units': ['Paris']}
    """
    _check_size(len(output), "output")
    _check_size(len(ground_truth), "ground_truth")
    _check_size(len(question or ""), "input")
    return {
        "output_units": split_units(output),
        "ground_truth_units": split_units(answer_part(ground_truth, question)),
    }


def _stem_text(stems: list[str]) -> str:
    return f" {' '.join(stems)} "


def _contains_sequence(haystack: str, needle: str) -> bool:
    """Whether the words of ``needle`` occur in order in ``haystack``, both as ``stem_text``."""
    return bool(needle.strip()) and needle in haystack


@lru_cache(maxsize=65536)
def _words_match(truth_stem: str, output_stem: str) -> bool:
    """Whether two word stems name the same thing: equal, or one of at least
    ``FUZZY_WORD_LENGTH`` letters begins the other ("revolution" / "revolutionary")."""
    if truth_stem == output_stem:
        return True
    shorter, longer = sorted((truth_stem, output_stem), key=len)
    return len(shorter) >= FUZZY_WORD_LENGTH and shorter.isalpha() and longer.startswith(shorter)


@dataclass(frozen=True)
class _Match:
    kind: MatchType
    output_index: int | None
    coverage: float
    fuzz_score: float

    @property
    def rank(self) -> tuple[int, float, float]:
        return (_RANK[self.kind], self.coverage, self.fuzz_score)


_RANK = {"exact": 3, "semantic": 2, "partial": 1, "missing": 0}
_MISSING = _Match("missing", None, 0.0, 0.0)


_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})


def _name_part(tokens: list[Token]) -> list[Token]:
    """The proper name that a ground truth consists of or ends with, without suffixes.

    "Shirley Mae Jones" is a name; "English author Rudyard Kipling" ends with one after a
    lower-case description; "Robert Adamson IV" loses its "IV".
    """
    words = [t for t in tokens if t.norm not in _NAME_SUFFIXES]
    run: list[Token] = []
    for token in reversed(words):
        if not token.capitalized or token.is_number:
            break
        run.insert(0, token)
    return run if len(run) >= 2 else []


@dataclass(frozen=True)
class _Truth:
    """A ground-truth unit (or a variant of it) prepared for matching."""

    unit: NormalisedUnit
    stem_text: str
    key: list[Token]
    name: list[Token]

    @staticmethod
    def of(text: str) -> _Truth:
        unit = NormalisedUnit.of(text)
        without_hedges = [t for t in unit.tokens if t.norm not in HEDGES]
        key = unit.key_tokens or without_hedges
        return _Truth(
            unit,
            _stem_text([t.stem for t in without_hedges]),
            key,
            _name_part(key),
        )


def _match_one(
    truth: _Truth,
    output: NormalisedUnit,
    index: int,
    spellings: list[Spelling],
    settings: AnswerSimilarityOfflineSettings,
) -> _Match:
    """Match a ground-truth unit with one output unit or passage.

    ``spellings`` holds how the output may mention each of ``truth.key``'s words, then the
    first and the last word of ``truth.name``.
    """
    if _contains_sequence(output.stem_text, truth.stem_text):
        return _Match("exact", index, 1.0, 100.0)
    key_spellings = spellings[: len(truth.key)]
    covered = sum(1 for spelling in key_spellings if spelling.in_unit(output))
    coverage = covered / len(key_spellings) if key_spellings else 0.0
    fuzz_score = 0.0
    flat = truth.unit.flat
    if len(flat) > CHARACTER_SIMILARITY_CHARS:
        fuzz_score = 100.0 * coverage
    elif flat and output.flat:
        fuzz_score = float(fuzz.partial_ratio(flat, output.flat))
    numbers_agree = truth.unit.number_set <= output.number_set
    # A name given without its middle names or description ("Shirley Jones" for
    # "Shirley Mae Jones", "Rudyard Kipling" for "English author Rudyard Kipling").
    short_name = False
    if truth.name:
        first, last = spellings[len(truth.key) :]
        short_name = first.in_unit(output) and not last.stems.isdisjoint(output.stem_set)
    if numbers_agree and (
        coverage >= settings.semantic_coverage or fuzz_score >= settings.semantic_fuzz or short_name
    ):
        return _Match("semantic", index, coverage, fuzz_score)
    if coverage >= settings.partial_coverage or (
        numbers_agree and fuzz_score >= settings.partial_fuzz
    ):
        return _Match("partial", index, coverage, fuzz_score)
    return _Match("missing", None, coverage, fuzz_score)


def _truth_variants(unit: str) -> list[_Truth]:
    """The ground truth, and the ground truth without parenthesised or quoted asides.

    "585 (HD)" is answered by "585"; 'Nicholas "Nick" Bakay' by "Nicholas Bakay".
    """
    variants = [unit]
    reduced = _clean(_OPTIONAL_PART_RE.sub(" ", _clean(unit)))
    if reduced and reduced != unit and text_tokens(reduced):
        variants.append(reduced)
    nickname = _NICKNAME_RE.search(unit)
    if nickname:
        variants.append(
            _clean(
                unit[: nickname.start()] + " " + nickname.group(1) + " " + unit[nickname.end() :]
            )
        )
    return [_Truth.of(variant) for variant in variants]


def _best_match(
    unit: str, outputs: OutputIndex, settings: AnswerSimilarityOfflineSettings
) -> _Match:
    best = _MISSING
    for truth in _truth_variants(unit):
        spellings = [outputs.spelling(token) for token in truth.key]
        if truth.name:
            spellings += [outputs.spelling(truth.name[0]), outputs.spelling(truth.name[-1])]
        candidates = outputs.candidates(truth.key)
        for index in candidates.indexes:
            match = _match_one(truth, outputs.units[index], index, spellings, settings)
            if match.rank > best.rank:
                best = match
            if best.kind == "exact":
                return best
        if best.kind != "exact" and len(outputs):
            # The answer may straddle two units ("... on July 25," / "2017").
            centre = best.output_index if best.output_index is not None else candidates.best
            first, passage = outputs.passage(centre)
            joined = _match_one(truth, passage, first, spellings, settings)
            if _RANK[joined.kind] > _RANK[best.kind]:
                index = best.output_index if best.output_index is not None else first
                best = _Match(joined.kind, index, joined.coverage, joined.fuzz_score)
    return best


_POLAR = {"yes": True, "no": False}


def _polar_match(unit: str, outputs: list[NormalisedUnit]) -> _Match | None:
    """Match a yes/no ground truth by the polarity of the output's first statement."""
    truth = [t.norm for t in text_tokens(unit)]
    if len(truth) != 1 or truth[0] not in _POLAR or not outputs:
        return None
    expected = _POLAR[truth[0]]
    first = outputs[0].tokens
    if first and first[0].norm in _POLAR:
        if _POLAR[first[0].norm] == expected:
            return _Match("exact", 0, 1.0, 100.0)
        return _Match("missing", None, 0.0, 0.0)
    negated = any(t.is_negation for t in first)
    if negated != expected:
        return _Match("semantic", 0, 1.0, 100.0)
    return None


def _is_year(value: str) -> bool:
    return value.isdigit() and len(value) == 4


class _Conflicts:
    """Where the output puts another value, or another name, in a ground truth's slot.

    The output's numbers are indexed once: for each kind of value (a year, an ordinal, another
    number), the first unit that has one the question does not already state.
    """

    def __init__(
        self,
        outputs: list[NormalisedUnit],
        asked: NormalisedUnit,
        short_output: bool,
        partial_fuzz: float,
    ) -> None:
        self._outputs = outputs
        self._partial_fuzz = partial_fuzz
        self._asked_stems = frozenset(asked.stems)
        self._short_output = short_output
        self._all_values: frozenset[str] = frozenset().union(*(o.number_set for o in outputs))
        self._first: dict[str, tuple[int, list[str]]] = {}
        for index, output in enumerate(outputs):
            values = output.number_set - asked.number_set
            kinds = {
                "year": [v for v in values if _is_year(v)],
                "ordinal": [v for v in values if not _is_year(v) and v.startswith("#")],
                "number": [v for v in values if not _is_year(v) and not v.startswith("#")],
            }
            for kind, found in kinds.items():
                if found and kind not in self._first:
                    self._first[kind] = (index, sorted(found))

    def find(self, truth: NormalisedUnit) -> tuple[int, list[str]] | None:
        """The output unit that contradicts a ground-truth unit and the values it gives."""
        truth_values = truth.number_set
        if truth_values and not truth_values & self._all_values:
            if any(_is_year(v) for v in truth_values):
                kind = "year"
            else:
                kind = "ordinal" if any(v.startswith("#") for v in truth_values) else "number"
            if kind in self._first:
                return self._first[kind]
        if self._short_output and not truth_values & self._all_values:
            for index, output in enumerate(self._outputs):
                names = _conflicting_name(truth, output, self._asked_stems, self._partial_fuzz)
                if names:
                    return index, names
        return None


def _conflicting_name(
    truth: NormalisedUnit, output: NormalisedUnit, asked_stems: frozenset[str], partial_fuzz: float
) -> list[str]:
    """For a short output answer: a different name where the ground truth is a name.

    Names the question itself mentions ("France" in "the capital of France") are not
    candidate answers.
    """
    truth_names = [t for t in truth.key_tokens if t.capitalized and not t.is_number]
    if not truth_names or len(truth_names) < len(truth.key_tokens) / 2:
        return []
    output_key = [t for t in output.key_tokens if t.stem not in asked_stems]
    output_names = [t for t in output_key if t.capitalized and not t.is_number]
    if not output_names or len(output_names) < len(output_key) / 2:
        return []
    truth_stems = {t.stem for t in truth.key_tokens}
    if any(t.stem in truth_stems for t in output_key):
        return []
    if fuzz.ratio(truth.flat, output.flat) >= partial_fuzz:
        return []
    return [" ".join(t.surface for t in output_names)]


def analyze_units(
    output_units: list[str],
    ground_truth_units: list[str],
    *,
    question: str | None = None,
    settings: AnswerSimilarityOfflineSettings | None = None,
) -> dict[str, Any]:
    """Match each ground-truth unit with the output; list contradictions and extra information.

    Args:
        output_units: The output's semantic units.
        ground_truth_units: The ground truth's semantic units.
        question: The question, if any: values and words it already states are neither
            contradictions nor extra information.
        settings: The matching thresholds (None: the defaults).

    Returns:
        ``{"matches": [...], "contradictions": [...], "extra_info": [...]}`` with one match
        per ground-truth unit, in order.

    Raises:
        InputError: The units of the output or of the ground truth, or the question, hold
            more than :data:`MAX_TEXT_CHARS` characters.

    Example:
        >>> analysis = analyze_units(["It was Paris"], ["Paris"])
        >>> analysis["matches"][0]["match_type"], analysis["contradictions"]
        ('exact', [])
    """
    _check_size(sum(len(unit) for unit in output_units), "output")
    _check_size(sum(len(unit) for unit in ground_truth_units), "ground_truth")
    _check_size(len(question or ""), "input")
    outputs = [NormalisedUnit.of(unit) for unit in output_units]
    index = OutputIndex(output_units, outputs, _words_match)
    asked = NormalisedUnit.of(question or "")
    settings = settings or AnswerSimilarityOfflineSettings()
    conflicts = _Conflicts(outputs, asked, _is_short(" ".join(output_units)), settings.partial_fuzz)
    matches: list[dict[str, Any]] = []
    contradictions: list[dict[str, Any]] = []
    used: set[int] = set()
    known = set(asked.stems)
    for unit in ground_truth_units:
        truth = NormalisedUnit.of(unit)
        known.update(truth.stems)
        identical = index.identical(truth)
        match = (
            _Match("exact", identical, 1.0, 100.0)
            if identical is not None
            else _polar_match(unit, outputs) or _best_match(unit, index, settings)
        )
        output_unit = output_units[match.output_index] if match.output_index is not None else None
        if match.output_index is not None:
            used.add(match.output_index)
        matches.append(
            {
                "ground_truth_unit": unit,
                "output_unit": output_unit,
                "match_type": match.kind,
                "explanation": _explain(match, unit, output_unit),
            }
        )
        if match.kind in ("exact", "semantic"):
            continue
        conflict = conflicts.find(truth)
        if conflict is not None:
            conflict_index, values = conflict
            contradictions.append(
                {
                    "output_unit": output_units[conflict_index],
                    "ground_truth_unit": unit,
                    "explanation": (
                        f"The output gives {', '.join(values)} where the ground truth says "
                        f'"{unit}".'
                    ),
                }
            )
            used.add(conflict_index)
    extra = [
        output_units[position]
        for position, output in enumerate(outputs)
        if position not in used and _adds_information(output, known, settings.restatement_share)
    ]
    return {"matches": matches, "contradictions": contradictions, "extra_info": extra}


def _adds_information(output: NormalisedUnit, known: set[str], restatement_share: float) -> bool:
    content = [t.stem for t in output.key_tokens]
    if not content:
        return False
    new = sum(stem not in known for stem in content)
    return new / len(content) > 1.0 - restatement_share


def _explain(match: _Match, truth: str, output_unit: str | None) -> str:
    if match.kind == "exact":
        return f'"{truth}" appears in the output: "{output_unit}".'
    if match.kind == "semantic":
        return (
            f'The output states "{truth}" in other words or spelling: "{output_unit}" '
            f"({match.coverage:.0%} of its content, similarity {match.fuzz_score:.0f})."
        )
    if match.kind == "partial":
        return (
            f'The output gives part of "{truth}": "{output_unit}" '
            f"({match.coverage:.0%} of its content, similarity {match.fuzz_score:.0f})."
        )
    return f'Nothing in the output states "{truth}".'

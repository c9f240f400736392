"""Offline answers to the answer-similarity steps: semantic units and their analysis.

Units: a short answer is one unit ("1960", "Johannes Gutenberg", "July 25, 2017"); a real list
("red, blue, and yellow": commas or semicolons with "and" / "or" before the last item) is one
unit per item; longer text is split into sentences and then clauses, one fact each. Words of
a ground truth that only restate the question are no units: "The capital of France is Paris"
answers "What is the capital of France?" with the one unit "Paris" (a name or a date is kept
whole: "United Kingdom" to "who did the United States fight?").

Analysis: both sides are normalised (case, punctuation, articles, hedges such as "about" or
"circa", number words and ordinals to digits, month abbreviations, light stemming). A
ground-truth unit is

- exact when its normalised words occur, in order, in an output unit (or in the output as a
  whole when the answer straddles two units);
- semantic when nearly all of its weighted content is there (numbers and names weigh more;
  words also match inflected or misspelt, and a name by its initial), when the strings are
  near-identical, or when a name is given without its middle names or its description
  ("Shirley Jones" for "Shirley Mae Jones");
- partial when about half of it is there;
- missing otherwise.

Parenthesised and quoted asides of a ground truth are optional ("585 (HD)" is answered by
"585"), and a yes/no ground truth is matched by the polarity of the output's first statement.
A ground-truth unit not matched at least semantically is contradicted when the output puts a
different value in its slot: another year where the ground truth has a year, another number
for a number (values the question itself mentions do not count), or, for a short output,
another name for a name (names the question mentions do not count: "Lyon is the capital of
France" puts Lyon, not France, where the ground truth has Paris). Output units that match
nothing and say more than the question and the ground truth already say are extra
information.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from rapidfuzz import fuzz

from ._text import HEDGES, MONTH_NAMES, Token, split_clauses, split_sentences, tokenize

MatchType = Literal["exact", "semantic", "partial", "missing"]

ARTICLES = frozenset({"a", "an", "the"})
# Shares of a ground-truth unit's content (weighted) found in an output unit.
SEMANTIC_COVERAGE = 0.8
PARTIAL_COVERAGE = 0.5
# rapidfuzz similarities (0-100) between normalised strings.
SEMANTIC_FUZZ = 88.0
PARTIAL_FUZZ = 72.0
# Two words of at least this many letters match when this similar (typos: "Bennet").
FUZZY_WORD_LENGTH = 5
FUZZY_WORD_RATIO = 85.0
# A text of at most this many words, without sentence punctuation inside, is a short answer.
SHORT_ANSWER_WORDS = 12
# An output unit is a restatement (not extra information) when this share of its content
# is already in the question or the ground truth.
RESTATEMENT_SHARE = 0.6

# A list: items separated by commas or semicolons, the last one introduced by "and" / "or".
_LIST_RE = re.compile(r"^(?:[^,;]+[,;]\s*)+(?:and|or)\s+[^,;]+$|;", re.IGNORECASE)
_LIST_SEPARATOR_RE = re.compile(r"\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
# A quoted nickname after a first name: 'Nicholas "Nick" Bakay' is also "Nick Bakay".
_NICKNAME_RE = re.compile(r"\b\w+\s+[\"\u201c](\w+)[\"\u201d]")
_OPTIONAL_PART_RE = re.compile(r"\s*(?:\([^)]*\)|\[[^\]]*\]|\"[^\"]*\"|\u201c[^\u201d]*\u201d)\s*")


@dataclass(frozen=True)
class _Normalised:
    """A unit in normalised form."""

    text: str
    tokens: tuple[Token, ...]

    @staticmethod
    def of(text: str) -> _Normalised:
        tokens = tuple(token for token in tokenize(text) if token.norm not in ARTICLES)
        return _Normalised(text, tokens)

    @property
    def stems(self) -> list[str]:
        return [token.stem for token in self.tokens]

    @property
    def key_tokens(self) -> list[Token]:
        """Content tokens without hedges: the words that say what the answer is."""
        return [t for t in self.tokens if t.is_content and t.norm not in HEDGES]

    @property
    def flat(self) -> str:
        return " ".join(token.stem for token in self.tokens if token.norm not in HEDGES)

    def numbers(self) -> set[str]:
        return {token.norm for token in self.tokens if token.is_number or token.is_ordinal}


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
        The units in order: list items for a short answer, clauses for longer text.
    """
    text = _clean(text)
    if not text:
        return []
    if _is_short(text):
        return [item for item in _split_list(text) if tokenize(item)]
    units: list[str] = []
    for sentence in split_sentences(text):
        pieces = split_clauses(sentence, min_content=3)
        units.extend(piece for piece in pieces if tokenize(piece))
    return units


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
    """
    if not question:
        return ground_truth
    asked = [token.stem for token in tokenize(question) if token.is_content]
    content = [token for token in tokenize(ground_truth) if token.is_content]
    new = [
        token
        for token in content
        if not any(_words_match(token.stem, stem) for stem in asked) and token.norm not in HEDGES
    ]
    if not new or len(new) == len(content):
        return ground_truth
    tokens = tokenize(ground_truth)
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
    """
    return {
        "output_units": split_units(output),
        "ground_truth_units": split_units(answer_part(ground_truth, question)),
    }


def _contains_sequence(haystack: list[str], needle: list[str]) -> bool:
    if not needle or len(needle) > len(haystack):
        return False
    first = needle[0]
    return any(
        haystack[i] == first and haystack[i : i + len(needle)] == needle
        for i in range(len(haystack) - len(needle) + 1)
    )


def _weight(token: Token) -> float:
    if token.is_number or token.is_ordinal:
        return 2.0
    return 1.5 if token.capitalized else 1.0


@lru_cache(maxsize=65536)
def _words_match(truth_stem: str, output_stem: str) -> bool:
    """Whether two word stems name the same thing: equal, inflected ("revolution" /
    "revolutionary") or misspelt ("Bennett" / "Bennet")."""
    if truth_stem == output_stem:
        return True
    if not (truth_stem.isalpha() and output_stem.isalpha()):
        return False
    shorter, longer = sorted((truth_stem, output_stem), key=len)
    if len(shorter) >= FUZZY_WORD_LENGTH and longer.startswith(shorter):
        return len(shorter) / len(longer) >= 0.7
    return (
        min(len(truth_stem), len(output_stem)) >= FUZZY_WORD_LENGTH
        and fuzz.ratio(truth_stem, output_stem) >= FUZZY_WORD_RATIO
    )


def _covered(token: Token, output: _Normalised) -> bool:
    """Whether an output mentions a ground-truth word (or, for a name, its initial)."""
    if any(_words_match(token.stem, other.stem) for other in output.tokens):
        return True
    if token.capitalized and not token.is_number and len(token.norm) > 1:
        return any(
            len(other.norm) == 1 and other.norm == token.norm[0] and other.capitalized
            for other in output.tokens
        )
    return False


@dataclass(frozen=True)
class _Match:
    kind: MatchType
    output_index: int | None
    coverage: float
    fuzz_score: float


_RANK = {"exact": 3, "semantic": 2, "partial": 1, "missing": 0}


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


def _match_one(truth: _Normalised, output: _Normalised, index: int) -> _Match:
    truth_key = [t for t in truth.tokens if t.norm not in HEDGES]
    truth_stems = [t.stem for t in truth_key]
    if truth_stems and _contains_sequence(output.stems, truth_stems):
        return _Match("exact", index, 1.0, 100.0)
    key = truth.key_tokens or truth_key
    total = sum(_weight(t) for t in key)
    hits = [_covered(t, output) for t in key]
    covered = sum(_weight(t) for t, hit in zip(key, hits, strict=True) if hit)
    coverage = covered / total if total else 0.0
    fuzz_score = 0.0
    if truth.flat and output.flat:
        fuzz_score = float(fuzz.partial_ratio(truth.flat, output.flat))
        if len(truth.flat) < 4:
            fuzz_score = min(fuzz_score, 100.0 * coverage)
    numbers_agree = truth.numbers() <= output.numbers()
    # A name given without its middle names or description ("Shirley Jones" for
    # "Shirley Mae Jones", "Rudyard Kipling" for "English author Rudyard Kipling").
    name = _name_part(key)
    short_name = (
        bool(name)
        and _covered(name[0], output)
        and any(_words_match(name[-1].stem, other.stem) for other in output.tokens)
    )
    if numbers_agree and (
        coverage >= SEMANTIC_COVERAGE or fuzz_score >= SEMANTIC_FUZZ or short_name
    ):
        return _Match("semantic", index, coverage, fuzz_score)
    if coverage >= PARTIAL_COVERAGE or (numbers_agree and fuzz_score >= PARTIAL_FUZZ):
        return _Match("partial", index, coverage, fuzz_score)
    return _Match("missing", None, coverage, fuzz_score)


def _truth_variants(unit: str) -> list[_Normalised]:
    """The ground truth, and the ground truth without parenthesised or quoted asides.

    "585 (HD)" is answered by "585"; 'Nicholas "Nick" Bakay' by "Nicholas Bakay".
    """
    variants = [unit]
    reduced = _clean(_OPTIONAL_PART_RE.sub(" ", unit))
    if reduced and reduced != unit and tokenize(reduced):
        variants.append(reduced)
    nickname = _NICKNAME_RE.search(unit)
    if nickname:
        variants.append(
            _clean(
                unit[: nickname.start()] + " " + nickname.group(1) + " " + unit[nickname.end() :]
            )
        )
    return [_Normalised.of(variant) for variant in variants]


def _best_match(unit: str, outputs: list[_Normalised], whole: _Normalised) -> _Match:
    best = _Match("missing", None, 0.0, 0.0)
    for truth in _truth_variants(unit):
        for index, output in enumerate(outputs):
            match = _match_one(truth, output, index)
            if (_RANK[match.kind], match.coverage, match.fuzz_score) > (
                _RANK[best.kind],
                best.coverage,
                best.fuzz_score,
            ):
                best = match
        if best.kind != "exact" and outputs:
            # The answer may straddle two units ("... on July 25," / "2017").
            joined = _match_one(truth, whole, 0)
            if _RANK[joined.kind] > _RANK[best.kind]:
                index = best.output_index if best.output_index is not None else 0
                best = _Match(joined.kind, index, joined.coverage, joined.fuzz_score)
    return best


_POLAR = {"yes": True, "no": False}


def _polar_match(unit: str, outputs: list[_Normalised]) -> _Match | None:
    """Match a yes/no ground truth by the polarity of the output's first statement."""
    truth = [t.norm for t in tokenize(unit)]
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
    return value.isdigit() and len(value) == 4 and 1000 <= int(value) <= 2100


def _conflicting_values(
    truth: _Normalised, output: _Normalised, question_values: set[str]
) -> list[str]:
    """Values in the output that take the ground truth's slot with a different value."""
    truth_values = truth.numbers()
    if not truth_values:
        return []
    output_values = output.numbers() - question_values
    if truth_values & output_values:
        return []
    truth_years = {v for v in truth_values if _is_year(v)}
    if truth_years:
        return sorted(v for v in output_values if _is_year(v))
    truth_ordinal = any(v.startswith("#") for v in truth_values)
    return sorted(
        v for v in output_values if not _is_year(v) and v.startswith("#") == truth_ordinal
    )


def _conflicting_name(
    truth: _Normalised, output: _Normalised, asked_stems: frozenset[str]
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
    if fuzz.ratio(truth.flat, output.flat) >= PARTIAL_FUZZ:
        return []
    return [" ".join(t.surface for t in output_names)]


def analyze_units(
    output_units: list[str],
    ground_truth_units: list[str],
    *,
    question: str | None = None,
) -> dict[str, Any]:
    """Match each ground-truth unit with the output; list contradictions and extra information.

    Args:
        output_units: The output's semantic units.
        ground_truth_units: The ground truth's semantic units.
        question: The question, if any: values and words it already states are neither
            contradictions nor extra information.

    Returns:
        ``{"matches": [...], "contradictions": [...], "extra_info": [...]}`` with one match
        per ground-truth unit, in order.
    """
    outputs = [_Normalised.of(unit) for unit in output_units]
    whole = _Normalised.of(" ".join(output_units))
    asked = _Normalised.of(question or "")
    short_output = _is_short(" ".join(output_units))
    matches: list[dict[str, Any]] = []
    contradictions: list[dict[str, Any]] = []
    used: set[int] = set()
    for unit in ground_truth_units:
        truth = _Normalised.of(unit)
        match = _polar_match(unit, outputs) or _best_match(unit, outputs, whole)
        output_unit = output_units[match.output_index] if match.output_index is not None else None
        if match.output_index is not None:
            used.add(match.output_index)
        explanation = _explain(match, unit, output_unit)
        matches.append(
            {
                "ground_truth_unit": unit,
                "output_unit": output_unit,
                "match_type": match.kind,
                "explanation": explanation,
            }
        )
        if match.kind in ("exact", "semantic"):
            continue
        conflict = _find_conflict(truth, outputs, asked, short_output)
        if conflict is not None:
            index, values = conflict
            contradictions.append(
                {
                    "output_unit": output_units[index],
                    "ground_truth_unit": unit,
                    "explanation": (
                        f"The output gives {', '.join(values)} where the ground truth says "
                        f'"{unit}".'
                    ),
                }
            )
            used.add(index)
    known = set(asked.stems) | {
        s for unit in ground_truth_units for s in _Normalised.of(unit).stems
    }
    extra = [
        output_units[index]
        for index, output in enumerate(outputs)
        if index not in used and _adds_information(output, known)
    ]
    return {"matches": matches, "contradictions": contradictions, "extra_info": extra}


def _find_conflict(
    truth: _Normalised,
    outputs: list[_Normalised],
    asked: _Normalised,
    short_output: bool,
) -> tuple[int, list[str]] | None:
    all_values = set().union(*(o.numbers() for o in outputs)) if outputs else set()
    if truth.numbers() & all_values:
        return None
    for index, output in enumerate(outputs):
        values = _conflicting_values(truth, output, asked.numbers())
        if values:
            return index, values
    if short_output:
        for index, output in enumerate(outputs):
            names = _conflicting_name(truth, output, frozenset(asked.stems))
            if names:
                return index, names
    return None


def _adds_information(output: _Normalised, known: set[str]) -> bool:
    content = [t.stem for t in output.key_tokens]
    if not content:
        return False
    new = sum(stem not in known for stem in content)
    return new / len(content) > 1.0 - RESTATEMENT_SHARE


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

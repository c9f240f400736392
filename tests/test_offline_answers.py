"""The offline answer-similarity judge on degenerate answers, long texts and its size limit."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltoolkit import create_answer_similarity_scorer
from evaltoolkit.errors import InputError
from evaltoolkit.scorers._language import _text as text_module
from evaltoolkit.scorers.answer_similarity import (
    AnswerSimilarityOfflineSettings,
    analyze_units,
    extract_units,
)
from evaltoolkit.scorers.answer_similarity import _offline as _answers

# The scorer's formula with its default options, as in test_offline_algorithms.py.
_CREDIT = {"exact": 1.2, "semantic": 0.8, "partial": 0.4, "missing": -0.15}


def _analysis(output: str, truth: str, question: str | None = None) -> dict[str, Any]:
    units: dict[str, list[str]] = extract_units(output, truth, question)
    analysis: dict[str, Any] = analyze_units(
        units["output_units"], units["ground_truth_units"], question=question
    )
    return {**units, **analysis}


def _similarity(output: str, truth: str, question: str | None = None) -> float:
    analysis = _analysis(output, truth, question)
    matches = analysis["matches"]
    if not matches:
        return 0.0
    total = sum(_CREDIT[m["match_type"]] for m in matches) / (len(matches) * 1.2)
    total -= len(analysis["contradictions"]) * 1.0
    total -= min(len(analysis["extra_info"]) * 0.05, 0.2)
    return min(max(total, 0.0), 1.0)


def _match_types(output: str, truth: str, question: str | None = None) -> list[str]:
    return [m["match_type"] for m in _analysis(output, truth, question)["matches"]]


# --- degenerate answers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "truth"), [("A", "A"), ("a", "A"), ("The", "the"), ("an", "An")]
)
def test_an_article_like_answer_matching_exactly_scores_one(output: str, truth: str) -> None:
    scorer = create_answer_similarity_scorer()
    result = scorer.run(input="Which option?", output=output, ground_truth=truth)
    assert result.score == 1.0, result.reason


@pytest.mark.parametrize(
    "answer", ["-", "?", "!!!", "...", "0", "No.", "42", "\U0001f600", "東京", "Москва", " A "]
)
def test_a_degenerate_answer_is_a_unit_and_matches_itself(answer: str) -> None:
    units = extract_units(answer, answer, "Which one?")
    assert units["output_units"] and units["ground_truth_units"]
    scorer = create_answer_similarity_scorer()
    result = scorer.run(input="Which one?", output=answer, ground_truth=answer.upper())
    assert result.score == 1.0, result.reason


def test_normalisation_never_empties_a_unit() -> None:
    from evaltoolkit.scorers.answer_similarity._answer_text import NormalisedUnit

    for unit in ["A", "the", "An", "-", "?!", "\U0001f600 \U0001f600", "A.", "(a)"]:
        assert NormalisedUnit.of(unit).tokens, unit
    assert [t.norm for t in NormalisedUnit.of("the cat").tokens] == ["cat"]


def test_a_different_degenerate_answer_does_not_match() -> None:
    assert _similarity("A", "B") == 0.0
    assert _similarity("-", "+") == 0.0
    assert _similarity("\U0001f600", "\U0001f622") == 0.0
    assert _similarity("東京", "大阪") == 0.0


def test_a_letter_given_as_a_label_matches_a_letter_answer() -> None:
    assert _match_types("The answer is A.", "A") == ["exact"]
    assert _match_types("A) Paris", "A") == ["exact"]
    assert _match_types("(A)", "a") == ["exact"]
    # An article before a noun is no letter answer.
    assert _match_types("It is a dog.", "A") == ["missing"]


_NON_BLANK = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80).filter(
    lambda text: bool(text.strip())
)


@settings(max_examples=200, deadline=None)
@given(_NON_BLANK)
def test_any_non_blank_answer_has_units_and_scores_one_against_itself(answer: str) -> None:
    analysis = _analysis(answer, answer)
    assert analysis["output_units"]
    assert analysis["ground_truth_units"]
    assert _similarity(answer, answer) == 1.0, analysis


# --- long texts -------------------------------------------------------------------------------

_FILLER = (
    "The committee met on a rainy morning",
    "several members asked about the budget",
    "the chair promised a report before the summer",
    "nobody mentioned the new library",
    "the meeting ended after two hours",
)


def _long_answer(fact: str, position: int, sentences: int = 400) -> str:
    parts = [f"{_FILLER[i % len(_FILLER)]}." for i in range(sentences)]
    parts.insert(position, fact)
    return " ".join(parts)


def test_a_fact_deep_in_a_long_answer_is_found() -> None:
    question = "who invented the printing press"
    answer = _long_answer("The press was invented by Johannes Gutenberg in Mainz.", 250)
    analysis = _analysis(answer, "Johannes Gutenberg", question)
    assert len(analysis["output_units"]) > 400
    assert [m["match_type"] for m in analysis["matches"]] == ["exact"]
    assert "Gutenberg" in analysis["matches"][0]["output_unit"]


def test_a_wrong_year_deep_in_a_long_answer_is_a_contradiction() -> None:
    question = "when was the 50th star added to the united states flag"
    answer = _long_answer("The 50th star was added in 1959.", 300)
    analysis = _analysis(answer, "1960", question)
    assert [m["match_type"] for m in analysis["matches"]] == ["missing"]
    assert len(analysis["contradictions"]) == 1
    assert "1959" in analysis["contradictions"][0]["explanation"]


def test_an_answer_straddling_two_units_of_a_long_answer_is_found() -> None:
    answer = _long_answer("It premiered on July 25, 2017, in London.", 200)
    assert _match_types(answer, "July 25, 2017", "when did it premiere") == ["exact"]


def test_a_run_on_clause_is_cut_into_units_of_bounded_length() -> None:
    words = [f"word{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}" for i in range(1000)]
    units = extract_units(" ".join(words), "x")["output_units"]
    assert len(units) == 25
    assert all(len(unit.split()) <= 40 for unit in units)
    assert " ".join(units) == " ".join(words)
    blob = extract_units("see " + "Q" * 4500, "x")["output_units"]
    assert [len(unit) for unit in blob] == [1000, 1000, 1000, 1000, 504]


def test_a_run_of_letters_longer_than_any_word_matches_only_itself() -> None:
    from evaltoolkit.scorers.answer_similarity._answer_words import WordIndex

    run = "ab" * 30
    index = WordIndex([run, run[:-1], "bennet"], _answers._words_match)
    assert index.matching(run) == {run}
    assert index.matching("bennett") == {"bennet"}


def test_typo_tolerance_still_finds_misspellings_inflections_and_glued_words() -> None:
    assert _match_types("Dr. Jesse Bennet", "Dr. Jesse Bennett") == ["semantic"]
    assert _match_types("sung byWaylon Jennings", "Waylon Jennings") == ["semantic"]
    assert _match_types("Harold Nicolson", "Harold Nicholson") == ["semantic"]
    assert _match_types("the reproduction organs", "reproductive organs") == ["semantic"]


# --- cost ---------------------------------------------------------------------------------------

_VOCABULARY = (
    "river",
    "Paris",
    "1969",
    "printing",
    "press",
    "Gutenberg",
    "invented",
    "Europe",
    "century",
    "42",
    "yellow",
    "committee",
    "library",
    "budget",
    "summer",
    "morning",
    "report",
    "members",
    "Mainz",
    "flag",
    "star",
    "Hawaii",
    "1960",
    "capital",
    "France",
    "mountain",
    "range",
    "Rocky",
    "Colorado",
    "miles",
    "extend",
    "southeast",
    "rugged",
    "Juan",
    "high",
    "known",
    "popular",
    "second",
    "third",
    "language",
    "government",
    "decisions",
    "autocracy",
    "person",
    "Cleveland",
    "Indians",
    "Chicago",
)


def _words(count: int, seed: int, *, distinct: bool) -> list[str]:
    generator = random.Random(seed)
    if distinct:
        letters = "abcdefghijklmnopqrstuvwxyz"
        return [
            "".join(generator.choice(letters) for _ in range(generator.randint(4, 9)))
            for _ in range(count)
        ]
    return [generator.choice(_VOCABULARY) for _ in range(count)]


def _pair(count: int, shape: str) -> tuple[str, str]:
    """An answer of ``count`` words and a ground truth of the same words shuffled."""
    words = _words(count, seed=count, distinct=shape == "distinct words")
    if shape == "sentences":
        words = [
            word + ("." if i % 13 == 12 else "," if i % 5 == 4 else "")
            for i, word in enumerate(words)
        ]
    shuffled = list(words)
    random.Random(count + 1).shuffle(shuffled)
    return " ".join(words), " ".join(shuffled)


def _comparisons(monkeypatch: pytest.MonkeyPatch, output: str, truth: str) -> dict[str, int]:
    """How many unit comparisons and word comparisons scoring one pair makes."""
    counts = {"units": 0, "words": 0}

    def counting(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return function(*args, **kwargs)

        return counted

    with monkeypatch.context() as patch:
        patch.setattr(_answers, "_match_one", counting("units", _answers._match_one))
        patch.setattr(_answers, "_words_match", counting("words", _answers._words_match))
        _analysis(output, truth, "What happened?")
    return counts


@pytest.mark.parametrize(
    ("shape", "words"), [("sentences", 200), ("run-on", 400), ("distinct words", 400)]
)
def test_comparisons_grow_near_linearly_with_the_text(
    monkeypatch: pytest.MonkeyPatch, shape: str, words: int
) -> None:
    small = _comparisons(monkeypatch, *_pair(words, shape))
    large = _comparisons(monkeypatch, *_pair(4 * words, shape))
    assert small["units"] > 0
    # Four times the text may cost at most about six times the comparisons.
    assert large["units"] <= 6 * small["units"], (small, large)
    assert sum(large.values()) <= 6 * sum(small.values()), (small, large)


# --- size limit ---------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["output", "ground_truth"])
def test_a_text_over_the_size_limit_is_refused_with_a_clear_error(field: str) -> None:
    limit = _answers.MAX_TEXT_CHARS
    long_text = "x" * (limit + 1)
    texts = {"output": "Paris", "ground_truth": "Paris", field: long_text}
    with pytest.raises(InputError) as raised:
        extract_units(texts["output"], texts["ground_truth"], "Which city?")
    assert raised.value.field == field
    message = str(raised.value)
    assert f"{limit:,}" in message and field in message
    assert "excerpt" in message
    units = {"output": ["Paris"], "ground_truth": ["Paris"], field: [long_text]}
    with pytest.raises(InputError) as raised:
        analyze_units(units["output"], units["ground_truth"])
    assert raised.value.field == field


def test_a_text_at_the_size_limit_is_analysed() -> None:
    limit = _answers.MAX_TEXT_CHARS
    units = extract_units("Paris " + "x" * (limit - 6), "Paris")
    assert units["ground_truth_units"] == ["Paris"]


# --- equivalence of the linear-time text helpers --------------------------------------------

_PROSE_PIECES = [
    *"abcDE .,;:!?\n'\"()-",
    "Dr.",
    " J. ",
    " and ",
    " U.S. ",
    "two",
    " 3rd ",
    " June 1 ",
]
_PROSE = st.lists(st.sampled_from(_PROSE_PIECES), max_size=60).map("".join)


def _reference_sentences(text: str) -> list[str]:
    """The sentence splitter as first written (quadratic): the oracle of the linear one."""
    sentences: list[str] = []
    start = 0
    for match in text_module._SENTENCE_END_RE.finditer(text):
        stop = match.start()
        before = text[start:stop].rstrip()
        last_word = before.split()[-1].lower() if before.split() else ""
        if text[stop : stop + 1] == "." and (
            last_word.rstrip(".") in text_module._ABBREVIATIONS
            or (len(last_word) == 1 and last_word.isalpha())
            or "." in last_word
        ):
            continue
        piece = text[start : match.end()].strip()
        if piece:
            sentences.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [sentence for sentence in sentences if any(ch.isalnum() for ch in sentence)]


@settings(max_examples=300, deadline=None)
@given(_PROSE)
def test_linear_sentence_and_clause_splitting_equals_the_shared_functions(text: str) -> None:
    from evaltoolkit.scorers.answer_similarity import _answer_text

    assert text_module.split_sentences(text) == _reference_sentences(text)
    for sentence in text_module.split_sentences(text):
        clauses = _answer_text.clauses_with_words(sentence)
        assert [c for c, _ in clauses] == text_module.split_clauses(sentence, min_content=0)
        assert [has for _, has in clauses] == [bool(text_module.tokenize(c)) for c, _ in clauses]


@settings(max_examples=200, deadline=None)
@given(_PROSE)
def test_token_kinds_equal_the_token_properties(text: str) -> None:
    from evaltoolkit.scorers.answer_similarity._answer_text import is_content, is_value

    for token in text_module.tokenize(text):
        assert is_content(token) == token.is_content
        assert is_value(token) == (token.is_number or token.is_ordinal)


# --- thresholds (AnswerSimilarityOfflineSettings): each one moves a verdict -----------------------


def _verdict(
    outputs: list[str], truth: str, question: str | None, **moved: float
) -> tuple[str, int]:
    settings = AnswerSimilarityOfflineSettings(**moved)
    analysis = analyze_units(outputs, [truth], question=question, settings=settings)
    return analysis["matches"][0]["match_type"], len(analysis["extra_info"])


@pytest.mark.parametrize(
    ("moved", "outputs", "truth", "question", "before", "after"),
    [
        # 62% of the weighted content, similarity 75: partial, semantic from 0.6.
        (
            {"semantic_coverage": 0.6},
            ["the Red Sox team"],
            "Boston Red Sox baseball team",
            None,
            ("partial", 0),
            ("semantic", 0),
        ),
        # "Jon" is too short to match "John" as a word; the strings are 86 similar.
        ({"semantic_fuzz": 80.0}, ["Jon Doe"], "John Doe", None, ("partial", 0), ("semantic", 0)),
        # One word of five (18% of the content); unmatched, it is extra information.
        (
            {"partial_coverage": 0.1},
            ["the summer games"],
            "1960 summer olympics in Rome",
            None,
            ("missing", 1),
            ("partial", 0),
        ),
        # No word in common, similarity 57.
        (
            {"partial_fuzz": 50.0},
            ["Mississipi"],
            "Missouri river",
            None,
            ("missing", 0),
            ("partial", 0),
        ),
        # "It is a large city in France": France is in the question, the rest is new.
        (
            {"restatement_share": 0.0},
            ["Paris", "It is a large city in France"],
            "Paris",
            "What is the capital of France?",
            ("exact", 1),
            ("exact", 0),
        ),
    ],
)
def test_each_threshold_moves_its_verdict(
    moved: dict[str, float],
    outputs: list[str],
    truth: str,
    question: str | None,
    before: tuple[str, int],
    after: tuple[str, int],
) -> None:
    assert _verdict(outputs, truth, question) == before
    assert _verdict(outputs, truth, question, **moved) == after

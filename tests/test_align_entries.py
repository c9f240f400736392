"""Pairing a judge's verdicts with the questions (or units) they answer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from evaltoolkit.scorers._judged import align_entries

QUESTIONS = ["Did it open in 2011?", "Is it on Mount Arlo?", "Was Vardi the director?"]


def verdict(question: str, answered: bool = True) -> dict[str, object]:
    return {"question": question, "answered": answered}


def test_exact_text_wins_over_position() -> None:
    entries = [verdict(QUESTIONS[2]), verdict(QUESTIONS[0]), verdict(QUESTIONS[1])]
    aligned = align_entries(QUESTIONS, entries, "question")
    assert [entry["question"] if entry else None for entry in aligned] == QUESTIONS


def test_slight_rewording_matches_by_position() -> None:
    entries = [verdict("did it open in 2011"), verdict("Is it located on Mount Arlo?")]
    aligned = align_entries(QUESTIONS, entries, "question")
    assert aligned[0] is entries[0]
    assert aligned[1] is entries[1]
    assert aligned[2] is None


def test_unrelated_entries_are_dropped_not_reused() -> None:
    entries = [verdict("What colour is the sky?"), verdict(QUESTIONS[1])]
    aligned = align_entries(QUESTIONS, entries, "question")
    assert aligned == [None, entries[1], None]


def test_empty_key_field_pairs_by_position() -> None:
    entries = [{"answered": True}, {"answered": False}]
    aligned = align_entries(QUESTIONS[:2], entries, "question")
    assert aligned == entries


@given(
    st.lists(st.sampled_from(["a b", "c d", "e f", "a b!", "g"]), max_size=6),
    st.lists(st.sampled_from(["a b", "c d", "x y", "", "g"]), max_size=6),
)
def test_every_entry_is_used_at_most_once(keys: list[str], texts: list[str]) -> None:
    entries = [{"question": text} for text in texts]
    aligned = align_entries(keys, entries, "question")
    assert len(aligned) == len(keys)
    chosen = [id(entry) for entry in aligned if entry is not None]
    assert len(chosen) == len(set(chosen))

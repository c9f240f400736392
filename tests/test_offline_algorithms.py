"""Behaviour of the offline judges' algorithms (scorers.summarization, .answer_similarity)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from _support import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltoolkit.errors import ConfigurationError, InputError
from evaltoolkit.scorers import ANSWER_THRESHOLD
from evaltoolkit.scorers._language._text import split_sentences, stem, tokenize
from evaltoolkit.scorers._offline_settings import (
    OfflineRule,
    RuleKind,
    rule_named,
    rules_of_kind,
)
from evaltoolkit.scorers.answer_similarity import analyze_units, extract_units
from evaltoolkit.scorers.summarization import (
    OFFLINE_RULES,
    SummarizationOfflineSettings,
    judge_coverage,
    judge_source,
)
from evaltoolkit.scorers.summarization._claims import CLAIM_RULES
from evaltoolkit.scorers.summarization._questions import QUESTION_RULES

QUESTION_FRAMES = ("Does the text say that ", "Does the text mention ")
CLAIM_RULE_NAMES = {rule.name for rule in OFFLINE_RULES if rule.verdicts == "claim"}
QUESTION_RULE_NAMES = {rule.name for rule in OFFLINE_RULES if rule.verdicts == "question"}

SOURCE = (
    "Acme Corporation was founded in 1995 by John Smith in Boston. "
    "The company makes industrial robots for car factories. "
    "Acme employs 4,000 people and sold 12,000 robots last year. "
    "Smith said the company will not move its headquarters. "
    "Analysts expect Acme to double its sales by 2030, according to a report by Jane Doe."
)


def _claims(summary: str, source: str = SOURCE) -> list[dict[str, Any]]:
    claims: list[dict[str, Any]] = judge_source(source, summary, 5)["claims"]
    return claims


def _similarity(output: str, truth: str, question: str | None = None) -> float:
    """The answer-similarity score with the scorer's default options."""
    units: dict[str, list[str]] = extract_units(output, truth, question)
    analysis: dict[str, Any] = analyze_units(
        units["output_units"], units["ground_truth_units"], question=question
    )
    credit = {"exact": 1.2, "semantic": 0.8, "partial": 0.4, "missing": -0.15}
    matches = analysis["matches"]
    total = sum(credit[m["match_type"]] for m in matches) / (len(matches) * 1.2)
    total -= len(analysis["contradictions"]) * 1.0
    total -= min(len(analysis["extra_info"]) * 0.05, 0.2)
    return min(max(total, 0.0), 1.0)


def _match_types(output: str, truth: str, question: str | None = None) -> list[str]:
    units: dict[str, list[str]] = extract_units(output, truth, question)
    analysis: dict[str, Any] = analyze_units(
        units["output_units"], units["ground_truth_units"], question=question
    )
    return [m["match_type"] for m in analysis["matches"]]


# --- claims -----------------------------------------------------------------------------------


def test_verbatim_sentence_is_supported_and_quotes_its_evidence() -> None:
    claims = _claims("The company makes industrial robots for car factories.")
    assert len(claims) == 1
    assert claims[0]["supported"] is True
    assert "industrial robots for car factories" in claims[0]["reason"]


def test_lower_cased_tokenized_summary_is_still_supported() -> None:
    claims = _claims("acme corporation was founded in 1995 by john smith in boston .")
    assert claims
    assert all(claim["supported"] for claim in claims)


def test_claim_with_a_number_not_in_the_source_is_unsupported() -> None:
    claims = _claims("Acme Corporation was founded in 1997 by John Smith in Boston.")
    assert [claim["supported"] for claim in claims] == [False]
    assert "1997" in claims[0]["reason"]


def test_claim_with_a_number_from_elsewhere_in_the_source_is_unsupported() -> None:
    # 12,000 is in the source, but as the robots sold, not the people employed.
    claims = _claims("Acme employs 12,000 people.")
    assert claims[0]["supported"] is False


def test_a_common_word_from_elsewhere_in_the_source_counts_in_part_a_name_not_at_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from evaltoolkit.scorers.summarization import _claims as claims_module

    source = (
        "Steve Bruce is adamant he can keep Hull City in the Premier League after a defeat by "
        "Southampton. Hull have won two of their last ten games. The club spent heavily in the "
        "summer. Bruce said the players were working hard in training. Hull face Swansea on "
        "Saturday. The season ends in May."
    )
    claim = "Bruce is adamant he can keep Hull City in the Premier League {}"

    def supported(ending: str) -> bool:
        verdict: bool = _claims(claim.format(ending), source)[0]["supported"]
        return verdict

    assert supported("this season")  # "season": stated in another sentence
    assert not supported("this winter")  # never in the source
    assert not _claims("Swansea is adamant he can keep Hull City in the Premier League", source)[0][
        "supported"
    ]  # another name from the source: a swapped entity
    monkeypatch.setattr(claims_module, "ELSEWHERE_CREDIT", 0.0)
    assert not supported("this season")  # without the credit, the one word sinks the claim


def test_a_claim_without_a_verb_keeps_the_subject_of_its_form_of_be() -> None:
    # Two adjacent sentences stand in for one only when the claim keeps who "was" on the bench.
    source = (
        "Jack Wilshere was on the bench for Arsenal's semi-final against Reading. "
        "Mesut Ozil returned to London after the international break."
    )
    swapped = _claims("Ozil was on the bench for Arsenal's semi-final against Reading", source)
    kept = _claims("Wilshere was on the bench for Arsenal's semi-final against Reading", source)
    # Neither sentence has a form of "be": the claim rephrases, with the team's nickname.
    rephrased = _claims(
        "Leicester are just three points from safety",
        "Boss Nigel Pearson has urged Leicester to ignore their relegation rivals. "
        "The Foxes host Swansea on Saturday just three points from safety.",
    )

    assert swapped[0]["supported"] is False
    assert kept[0]["supported"] is True
    assert rephrased[0]["supported"] is True


def test_an_age_the_source_gives_someone_else_is_unsupported() -> None:
    # An appositive number describes the word before it: 29 is the attacker's age.
    source = (
        "The victim, now 38, was one of two women attacked in hospital by Andrew Hutchinson, "
        "29, a nurse."
    )
    wrong = judge_source(source, "The victim, 29, was attacked in hospital.", 1)["claims"][0]
    right = judge_source(source, "The victim, 38, was attacked in hospital.", 1)["claims"][0]
    assert wrong["supported"] is False
    assert "gives 38 there, not 29" in wrong["reason"]
    assert right["supported"] is True


def test_claim_with_a_name_absent_from_the_source_is_unsupported() -> None:
    claims = _claims("Acme Corporation was founded in 1995 by Peter Jones in Boston.")
    assert claims[0]["supported"] is False
    assert "Peter" in claims[0]["reason"]


def test_negation_flip_is_unsupported_both_ways() -> None:
    negated = _claims("The company does not make industrial robots for car factories.")
    assert negated[0]["supported"] is False
    dropped = _claims("Smith said the company will move its headquarters.")
    assert dropped[0]["supported"] is False
    kept = _claims("Smith said the company will not move its headquarters.")
    assert kept[0]["supported"] is True


def test_words_from_the_source_recombined_into_another_fact_are_unsupported() -> None:
    claims = _claims("Jane Doe founded the car factories in Boston.")
    assert claims[0]["supported"] is False


def test_sentences_joining_several_facts_are_split_into_claims() -> None:
    claims = _claims("Acme was founded in 1995 by John Smith, and it sold 12,000 robots last year.")
    assert len(claims) == 2
    assert all(claim["supported"] for claim in claims)


def test_a_claim_split_keeps_the_unsupported_part_apart() -> None:
    claims = _claims("The company makes industrial robots for car factories, and it sells toys.")
    assert [claim["supported"] for claim in claims] == [True, False]


def test_evidence_spread_over_two_adjacent_sentences_is_combined() -> None:
    claims = _claims(
        "Acme, founded in 1995 by John Smith in Boston, makes robots for car factories."
    )
    assert claims and all(claim["supported"] for claim in claims)


def test_a_verb_paraphrase_keeps_a_claim_supported() -> None:
    claims = _claims("Acme Corporation was started in 1995 by John Smith in Boston.")
    assert [claim["supported"] for claim in claims] == [True]


def test_a_paraphrase_may_reorder_words_inside_a_phrase_but_not_swap_roles() -> None:
    source = "The Foxes beat Swansea on Saturday. The operator offered a pay rise of 4 percent."
    assert _claims("The operator offered a 4 percent pay rise.", source)[0]["supported"] is True
    swapped = _claims("Swansea beat the Foxes on Saturday.", source)[0]
    assert swapped["supported"] is False
    assert 'does not put "Swansea" and "beat" together' in swapped["reason"]
    assert _claims("Swansea beat Swansea on Saturday.", source)[0]["supported"] is False


def test_active_and_passive_voice_state_the_same_fact() -> None:
    source = "The company was founded in 1995 by John Smith in Seattle."
    active = _claims("John Smith founded the company in 1995.", source)[0]
    assert active["supported"] is True, active["reason"]
    passive = _claims("The company was founded by John Smith.", "John Smith founded the company.")
    assert passive[0]["supported"] is True, passive[0]["reason"]


def test_a_passive_that_swaps_who_does_what_is_unsupported() -> None:
    source = "The company was founded in 1995 by John Smith in Seattle."
    swapped = _claims("John Smith was founded by the company.", source)[0]
    assert swapped["supported"] is False
    assert 'swaps who does what in "founded"' in swapped["reason"]
    beaten = _claims("The Foxes were beaten by Swansea.", "The Foxes beat Swansea on Saturday.")
    assert beaten[0]["supported"] is False
    right = _claims("Swansea were beaten by the Foxes.", "The Foxes beat Swansea on Saturday.")
    assert right[0]["supported"] is True


def test_a_passive_without_its_doer_still_keeps_who_undergoes_it() -> None:
    source = "Her husband found the infant in a bathtub and rushed the child to the hospital."
    swapped = _claims("Her husband was found in a bathtub.", source)[0]
    assert swapped["supported"] is False
    assert 'swaps who does what in "found"' in swapped["reason"]
    assert _claims("The infant was found in a bathtub.", source)[0]["supported"] is True
    # A participle after a noun is not an active verb; "is carrying" is not a passive.
    colonies = "Colonies kept near meadows made more honey. A rocket carrying a capsule rose."
    assert _claims("The colonies were kept near meadows.", colonies)[0]["supported"] is True
    assert _claims("The rocket is carrying a capsule.", colonies)[0]["supported"] is True


def test_a_verb_used_twice_is_no_paraphrase() -> None:
    source = "Charles is said to have become increasingly perplexed about his role."
    doubled = _claims(
        "Charles has become increasingly increasingly perplexed about his role.", source
    )
    assert doubled[0]["supported"] is False
    kept = _claims("Charles has become increasingly perplexed about his role.", source)
    assert kept[0]["supported"] is True, kept[0]["reason"]


def test_a_pronoun_standing_for_someone_else_is_unsupported() -> None:
    source = "They claim customers are being driven away by the noises, which start at noon."
    wrong = _claims("They claim they are being driven away by the noises.", source)[0]
    assert wrong["supported"] is False
    assert 'says "customers driven", not "they driven"' in wrong["reason"]
    assert _claims("They claim customers are being driven away.", source)[0]["supported"]
    # A pronoun after the name may refer back to it.
    source = "Aubrey said she was told her son would be eligible for a wheelchair when he is five."
    referring_back = _claims("Aubrey said he would be eligible for a wheelchair.", source)[0]
    assert 'not "he eligible"' not in referring_back["reason"]
    wrong = _claims("Aubrey said she would be eligible for a wheelchair.", source)[0]
    assert 'not "she eligible"' in wrong["reason"]


def test_an_infinitive_that_drops_its_own_subject_is_unsupported() -> None:
    source = "Visitors to the island will be hoping the clouds stay away on Friday."
    wrong = _claims("Visitors to the island will be hoping to stay away on Friday.", source)[0]
    assert wrong["supported"] is False
    assert 'says "clouds stay", not "to stay"' in wrong["reason"]
    right = _claims("Visitors will be hoping the clouds stay away on Friday.", source)[0]
    assert right["supported"] is True, right["reason"]
    offer = "United have made a contract offer to 19-year-old Andreas Pereira."
    assert _claims("United have made a contract offer to Andreas Pereira.", offer)[0]["supported"]


def test_a_claim_opening_with_a_prepositional_object_or_an_owner_is_unsupported() -> None:
    source = "Foreigners from outside the EU will be forced to provide a criminal record."
    wrong = _claims("The EU will be forced to provide a criminal record.", source)[0]
    assert wrong["supported"] is False
    assert 'only after "outside"' in wrong["reason"]
    right = _claims("Foreigners will be forced to provide a criminal record.", source)[0]
    assert right["supported"] is True, right["reason"]
    source = "Chelsea's Izzy Brown has also been named in the side for the European qualifiers."
    owner = _claims("Chelsea has been named in the side for the European qualifiers.", source)[0]
    assert owner["supported"] is False
    assert 'only as the owner of "Izzy"' in owner["reason"]
    named = _claims("Izzy Brown has been named in the side for the qualifiers.", source)[0]
    assert named["supported"] is True, named["reason"]


def test_by_in_place_of_another_preposition_changes_the_doer() -> None:
    source = "Captured at 1,500 frames per second, the video shows a chameleon hunting."
    wrong = _claims("The video was captured by 1,500 frames per second.", source)[0]
    assert wrong["supported"] is False
    assert 'says "Captured at", not "captured by"' in wrong["reason"]
    right = _claims("The video was captured at 1,500 frames per second.", source)[0]
    assert right["supported"] is True, right["reason"]
    # "From" and a time name no other doer.
    source = "The raids resumed by Wednesday after a surprise performance from Madonna."
    assert _claims("The raids resumed on Wednesday.", source)[0]["supported"]
    assert _claims("There was a surprise performance by Madonna.", source)[0]["supported"]


def test_be_in_another_tense_is_unsupported_unless_reported() -> None:
    source = "Jean Bourdain was one of the founders of the town."
    wrong = _claims("Jean Bourdain is one of the founders.", source)[0]
    assert wrong["supported"] is False
    assert 'says "was", not "is"' in wrong["reason"]
    right = _claims("Jean Bourdain was one of the founders.", source)[0]
    assert right["supported"] is True, right["reason"]
    source = "An FBI spokesman said authorities were on scene investigating."
    reported = _claims("An FBI spokesman says authorities are on scene investigating.", source)
    assert reported[0]["supported"] is True, reported[0]["reason"]


def test_a_splice_across_another_verb_is_unsupported() -> None:
    source = "Seven games involving Nimes were investigated after Conrad was arrested last year."
    spliced = _claims("Seven games involving Nimes were arrested last year.", source)[0]
    assert spliced["supported"] is False
    assert 'does not put "Nimes" and "arrested" together' in spliced["reason"]
    kept = _claims("Seven games involving Nimes were investigated.", source)[0]
    assert kept["supported"] is True, kept["reason"]


def test_a_splice_that_drops_a_modifier_or_moves_an_aside_stays_supported() -> None:
    source = (
        "Usain Bolt will compete at the relay championship on May 2 as part of the team. "
        "The study, led by Dr. Tomas Lindqvist, followed 120 colonies over three summers."
    )
    dropped = _claims("Usain Bolt will compete on May 2 as part of the team.", source)[0]
    assert dropped["supported"] is True, dropped["reason"]
    moved = _claims("The study followed 120 colonies led by Dr. Tomas Lindqvist.", source)[0]
    assert moved["supported"] is True, moved["reason"]


def test_a_negation_bears_only_on_the_words_next_to_it() -> None:
    source = "Tina Fey's new show is getting a lot of attention, not all of it good."
    kept = _claims("Tina Fey's new show is getting a lot of attention.", source)[0]
    assert kept["supported"] is True, kept["reason"]
    source = "Migrants must prove they have not committed a crime in the previous ten years."
    flipped = _claims("Migrants must prove they have committed a crime.", source)[0]
    assert flipped["supported"] is False
    assert "the source negates it" in flipped["reason"]


def test_dates_in_different_forms_are_the_same_date() -> None:
    day_first = [t.norm for t in tokenize("from the first of June")]
    month_first = [t.norm for t in tokenize("from June 1")]
    assert "#1" in day_first and "#1" in month_first
    assert {"june", "#1"} <= set(day_first) & set(month_first)
    source = "From the first of June, the library will open on Sundays."
    assert _claims("The library will open on Sundays from June 1.", source)[0]["supported"]
    assert not _claims("The library will open on Sundays from June 2.", source)[0]["supported"]


def test_a_comparison_the_source_does_not_make_is_unsupported() -> None:
    source = "Colonies near meadows made more honey. The study found no difference in size."
    claims = _claims("Colonies near meadows were larger than colonies near farms.", source)
    assert claims[0]["supported"] is False


def test_a_negation_next_to_the_claims_verb_in_a_neighbouring_sentence_contradicts_it() -> None:
    source = (
        "The alert level for Mount Kessa was raised on Sunday. The volcano last erupted in "
        "1987. Scientists said an eruption is not certain."
    )
    claim = _claims("Mount Kessa has erupted.", source)[0]
    assert claim["supported"] is False
    assert "not certain" in claim["reason"]


# --- each rule on a small case: the direction of the verdict ------------------------------------

ELECTION = (
    "Maria Lopez won the mayoral election in Riverton on Sunday with 52 percent of the vote. "
    "Her rival, Tom Becker, conceded the race on Monday. "
    "Lopez will take office in January, and Becker said he would stay on the city council."
)


def _supported(claim: str, source: str = ELECTION) -> bool:
    (verdict,) = judge_source(source, claim, 0)["claims"]
    supported: bool = verdict["supported"]
    return supported


def test_a_faithful_paraphrase_is_supported() -> None:
    assert _supported("Maria Lopez won the mayoral election in Riverton on Sunday.")
    assert _supported("The Riverton mayoral election was won by Maria Lopez on Sunday.")
    assert _supported("Lopez will take office in January.")


def test_a_claim_naming_the_wrong_person_or_place_is_unsupported() -> None:
    assert _supported("Maria Lopez won the mayoral election in Riverton.")
    assert not _supported("Tom Becker won the mayoral election in Riverton.")
    assert not _supported("Maria Lopez won the mayoral election in Springfield.")
    assert not _supported("Maria Lopez conceded the race on Monday.")


def test_a_place_from_another_sentence_is_not_fused_into_a_claim() -> None:
    source = "The festival opened in Leeds on Friday. A second stage will open in York next week."
    assert _supported("The festival opened in Leeds on Friday.", source)
    assert not _supported("The festival opened in York on Friday.", source)


def test_a_changed_number_is_unsupported() -> None:
    assert _supported("Lopez won with 52 percent of the vote.")
    assert not _supported("Lopez won with 58 percent of the vote.")


def test_a_negation_is_unsupported() -> None:
    assert _supported("Maria Lopez won the election.")
    assert not _supported("Maria Lopez did not win the election.")
    assert not _supported("Becker said he would not stay on the city council.")


def test_an_omitted_key_fact_leaves_its_question_unanswered() -> None:
    questions = judge_source(ELECTION, "", 10)["questions"]
    rest = "Tom Becker conceded the race on Monday and will stay on the city council."
    with_fact = f"Maria Lopez won the Riverton mayoral election with 52 percent. {rest}"
    without = rest

    def coverage(summary: str) -> float:
        verdicts = judge_coverage(summary, questions)["verdicts"]
        return sum(v["answered"] for v in verdicts) / len(verdicts)

    lead_question = next(q for q in questions if "won the mayoral election" in q)
    (verdict,) = judge_coverage(without, [lead_question])["verdicts"]
    assert verdict["answered"] is False
    (answered,) = judge_coverage(with_fact, [lead_question])["verdicts"]
    assert answered["answered"] is True
    assert "Maria Lopez won the Riverton mayoral election" in answered["reason"]
    assert coverage(without) < coverage(with_fact)


# --- named rules: each decides a hand-written case, and switching it off changes the verdict ---

_HEADQUARTERS = (
    "Smith said the company will not move its headquarters from Boston to another city next year."
)
_STRIKE = (
    "Train drivers on the Northern Line will strike for 48 hours starting on Friday over a long "
    "pay dispute with the operator."
)

# Every switchable rule, claim and question alike: (rule, input, the verdict it decides, the
# verdict once it is switched off). A claim rule's input is (claim, source), a question rule's
# (summary, question); a verdict is (rule named, supported or answered).
RULE_CASES: list[tuple[str, tuple[str, str], tuple[str, bool], tuple[str, bool]]] = [
    (
        "paraphrase",
        ("Acme Corporation was started in 1995 by John Smith in Boston.", SOURCE),
        ("paraphrase", True),
        ("low_support", False),
    ),
    (
        "low_support",
        ("and it sells toys", SOURCE),
        ("low_support", False),
        ("supported", True),
    ),
    (
        "changed_number",
        ("Acme employs 12,000 people.", SOURCE),
        ("changed_number", False),
        ("supported", True),
    ),
    (
        "added_comparison",
        (
            "The study found that bees in colonies kept near wild meadows were healthier than "
            "bees near farms.",
            "The study found that bees in colonies kept near wild meadows made more honey than "
            "bees near farms.",
        ),
        ("added_comparison", False),
        ("supported", True),
    ),
    (
        "flipped_negation",
        ("The company does not make industrial robots for car factories.", SOURCE),
        ("flipped_negation", False),
        ("supported", True),
    ),
    (
        "joined_apart",
        (
            "Seven games involving Nimes were arrested last year.",
            "Seven games involving Nimes were investigated after Conrad was arrested last year.",
        ),
        ("joined_apart", False),
        ("supported", True),
    ),
    (
        "swapped_roles",
        (
            "John Smith was founded by the company.",
            "The company was founded in 1995 by John Smith in Seattle.",
        ),
        ("swapped_roles", False),
        ("supported", True),
    ),
    (
        "pronoun_for_another",
        (
            "They claim they are being driven away by the noises.",
            "They claim customers are being driven away by the noises, which start at noon.",
        ),
        ("pronoun_for_another", False),
        ("supported", True),
    ),
    (
        "changed_tense",
        (
            "Jean Bourdain is one of the founders.",
            "Jean Bourdain was one of the founders of the town.",
        ),
        ("changed_tense", False),
        ("supported", True),
    ),
    (
        "lost_subject",
        (
            "Visitors to the island will be hoping to stay away on Friday.",
            "Visitors to the island will be hoping the clouds stay away on Friday.",
        ),
        ("lost_subject", False),
        ("supported", True),
    ),
    (
        "object_as_subject",
        (
            "The EU will be forced to provide a criminal record.",
            "Foreigners from outside the EU will be forced to provide a criminal record.",
        ),
        ("object_as_subject", False),
        ("supported", True),
    ),
    (
        "changed_agent",
        (
            "The video was captured by 1,500 frames per second.",
            "Captured at 1,500 frames per second, the video shows a chameleon hunting.",
        ),
        ("changed_agent", False),
        ("supported", True),
    ),
    (
        "missing_words",
        ("Acme makes robots.", "Does the text say that Acme was founded in Boston by John Smith?"),
        ("missing_words", False),
        ("answered", True),
    ),
    (
        "missing_number",
        ("Acme was founded in 2001.", "Does the text say that Acme was founded in 1995?"),
        ("missing_number", False),
        ("answered", True),
    ),
]


def _last_claim(claim: str, source: str, off: frozenset[str] = frozenset()) -> dict[str, Any]:
    settings = SummarizationOfflineSettings(disabled_rules=off)
    verdict: dict[str, Any] = judge_source(source, claim, 0, settings=settings)["claims"][-1]
    return verdict


def _verdict(rule: str, given: tuple[str, str], off: frozenset[str]) -> tuple[str, bool]:
    """The verdict of the rule's kind of step on its input, with the rules ``off`` switched off."""
    settings = SummarizationOfflineSettings(disabled_rules=off)
    if rule_named(OFFLINE_RULES, rule).verdicts == "claim":
        claim, source = given
        decided = judge_source(source, claim, 0, settings=settings)["claims"][-1]
        return decided["rule"], decided["supported"]
    summary, question = given
    (answered,) = judge_coverage(summary, [question], settings=settings)["verdicts"]
    return answered["rule"], answered["answered"]


@pytest.mark.parametrize(
    ("rule", "given", "decided", "then"), RULE_CASES, ids=[case[0] for case in RULE_CASES]
)
def test_each_switchable_rule_decides_its_case_and_switching_it_off_changes_the_verdict(
    rule: str, given: tuple[str, str], decided: tuple[str, bool], then: tuple[str, bool]
) -> None:
    outcome = {entry.name: entry.outcome for entry in OFFLINE_RULES}
    assert decided == (rule, outcome[rule])
    assert then[1] == outcome[then[0]]
    assert _verdict(rule, given, frozenset()) == decided
    assert _verdict(rule, given, frozenset({rule})) == then


def test_the_default_claim_verdicts_name_their_rule_and_cannot_be_switched_off() -> None:
    assert (
        _last_claim("The company makes industrial robots for car factories.", SOURCE)["rule"]
        == "supported"
    )
    assert _last_claim("Penguins swim quickly.", SOURCE)["rule"] == "no_evidence"
    (answered,) = judge_coverage(
        "Acme was founded in 1995.", ["Does the text say that Acme was founded in 1995?"]
    )["verdicts"]
    assert (answered["rule"], answered["answered"]) == ("answered", True)
    for name in ("supported", "no_evidence", "answered"):
        with pytest.raises(ConfigurationError, match=f"'{name}' is the verdict given"):
            judge_source(
                SOURCE,
                "Acme makes robots.",
                1,
                settings=SummarizationOfflineSettings(disabled_rules={name}),
            )
    with pytest.raises(ConfigurationError, match="did you mean 'changed_number'"):
        judge_coverage(
            "Acme.", [], settings=SummarizationOfflineSettings(disabled_rules={"changd_number"})
        )


def test_the_first_rule_in_table_order_names_a_verdict_that_several_contradict() -> None:
    source = "The Foxes beat Swansea on Saturday."
    verdict = _last_claim("Swansea beat the Foxes on Saturday.", source)
    # Both find it: the words are apart in the source, and the verb's roles are swapped.
    assert 'does not put "Swansea" and "beat" together' in verdict["reason"]
    assert 'swaps who does what in "beat"' in verdict["reason"]
    assert verdict["rule"] == "joined_apart"
    assert (
        _last_claim("Swansea beat the Foxes on Saturday.", source, frozenset({"joined_apart"}))[
            "rule"
        ]
        == "swapped_roles"
    )


def test_every_rule_in_the_tables_has_a_unique_name_a_kind_and_a_check_named_after_it() -> None:
    kinds = set(get_args(RuleKind))
    for table in (CLAIM_RULES, QUESTION_RULES, OFFLINE_RULES):
        names = [rule.name for rule in table]
        assert len(names) == len(set(names))
        assert all(rule.kind in kinds and rule.purpose.strip() for rule in table)
    assert OFFLINE_RULES == CLAIM_RULES + QUESTION_RULES
    assert {rule.verdicts for rule in CLAIM_RULES} == {"claim"}
    assert {rule.verdicts for rule in QUESTION_RULES} == {"question"}
    for rule in OFFLINE_RULES:
        given_without_check = rule.kind in ("default", "precondition")
        assert (rule.check is None) is given_without_check, rule.name
        if rule.check is not None:
            assert rule.check.__name__ == f"_{rule.name}"
    # One default verdict per step, and every switchable rule has its hand-written case above.
    assert [rule.name for rule in rules_of_kind(OFFLINE_RULES, "default")] == [
        "supported",
        "answered",
    ]
    switchable = {rule.name for rule in OFFLINE_RULES if rule.check is not None}
    assert len(switchable) == 14
    assert switchable == {case[0] for case in RULE_CASES}


@pytest.mark.parametrize("table", [CLAIM_RULES, QUESTION_RULES], ids=["claim", "question"])
@pytest.mark.parametrize("kind", get_args(RuleKind))
def test_a_rule_added_at_the_front_changes_no_other_rule_selection(
    table: tuple[OfflineRule[Any], ...], kind: RuleKind
) -> None:
    added = OfflineRule("added", table[0].verdicts, False, "a new rule", len, kind)
    grown = (added, *table)
    for other in get_args(RuleKind):
        expected = rules_of_kind(table, other)
        assert rules_of_kind(grown, other) == ((added, *expected) if other == kind else expected)
    for rule in table:
        assert rule_named(grown, rule.name) is rule
    assert rule_named(grown, "added") is added
    with pytest.raises(KeyError, match="no offline rule named 'nothing'"):
        rule_named(table, "nothing")


# --- settings -------------------------------------------------------------------------------------


def test_settings_defaults_lie_in_their_documented_ranges() -> None:
    specs = SummarizationOfflineSettings.specs()
    defaults = SummarizationOfflineSettings()
    assert [spec.name for spec in specs] == [
        "claim_support",
        "phrase_gap",
        "verb_gap",
        "question_lead_bias",
        "mention_share",
        "answer_share",
    ]
    assert defaults.disabled_rules == frozenset()
    for spec in specs:
        assert spec.minimum <= spec.default <= spec.maximum
        assert getattr(defaults, spec.name) == spec.default
        assert isinstance(getattr(defaults, spec.name), spec.type)
        assert spec.description.strip()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("claim_support", 1.5),
        ("claim_support", 0.1),
        ("phrase_gap", -1),
        ("verb_gap", 11),
        ("mention_share", float("nan")),
        ("answer_share", 0.0),
    ],
)
def test_settings_out_of_range_name_the_setting_and_its_range(name: str, value: float) -> None:
    spec = next(s for s in SummarizationOfflineSettings.specs() if s.name == name)
    with pytest.raises(ConfigurationError, match=name) as raised:
        SummarizationOfflineSettings(**{name: value})
    assert f"from {spec.minimum:g} to {spec.maximum:g}" in str(raised.value)


@pytest.mark.parametrize(("name", "value"), [("phrase_gap", 1.5), ("claim_support", True)])
def test_settings_of_the_wrong_type_are_refused(name: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=name):
        SummarizationOfflineSettings(**{name: value})


def test_unknown_setting_names_suggest_the_closest_one() -> None:
    with pytest.raises(ConfigurationError, match="did you mean 'answer_share'"):
        SummarizationOfflineSettings.from_mapping({"answer_shares": 0.6})
    with pytest.raises(ConfigurationError, match="Known settings: claim_support"):
        SummarizationOfflineSettings.from_mapping({"zzz": 1})
    chosen = SummarizationOfflineSettings.from_mapping({"verb_gap": 3, "claim_support": 0.8})
    assert (chosen.verb_gap, chosen.claim_support) == (3, 0.8)
    assert SummarizationOfflineSettings.from_mapping(None) == SummarizationOfflineSettings()


def test_settings_change_the_verdicts_in_the_documented_direction() -> None:
    source = (
        "Seven games involving Nimes were investigated after Conrad was arrested last November."
    )
    # Not a splice of two copied runs (that is caught whatever the gaps): the gaps decide.
    claim = "Nimes games were arrested last November."
    tolerant = SummarizationOfflineSettings(phrase_gap=6, verb_gap=10)
    strict = SummarizationOfflineSettings(phrase_gap=0, verb_gap=0)
    assert judge_source(source, claim, 0, settings=tolerant)["claims"][0]["supported"] is True
    assert judge_source(source, claim, 0, settings=strict)["claims"][0]["supported"] is False

    loose = SummarizationOfflineSettings(claim_support=0.5)
    partial = "Maria Lopez won the city council election in Riverton."
    assert judge_source(ELECTION, partial, 0, settings=loose)["claims"][0]["supported"] is True
    assert judge_source(ELECTION, partial, 0)["claims"][0]["supported"] is False

    summary = "Maria Lopez won in Riverton."
    question = ["Does the text say that Maria Lopez won the mayoral election in Riverton?"]
    easy = SummarizationOfflineSettings(answer_share=0.5)
    hard = SummarizationOfflineSettings(answer_share=1.0)
    assert judge_coverage(summary, question, settings=easy)["verdicts"][0]["answered"] is True
    assert judge_coverage(summary, question, settings=hard)["verdicts"][0]["answered"] is False

    facts_only = SummarizationOfflineSettings(mention_share=0.0)
    mentions = SummarizationOfflineSettings(mention_share=1.0)
    asked = judge_source(SOURCE, "", 4, settings=facts_only)["questions"]
    assert asked and all(q.startswith("Does the text say that") for q in asked)
    asked = judge_source(SOURCE, "", 4, settings=mentions)["questions"]
    assert any(q.startswith("Does the text mention") for q in asked)


def test_settings_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        judge_source(SOURCE, "Acme makes robots.", 3, SummarizationOfflineSettings())  # type: ignore[misc]
    with pytest.raises(TypeError):
        judge_coverage("Acme makes robots.", [], SummarizationOfflineSettings())  # type: ignore[misc]


# --- cost -----------------------------------------------------------------------------------------


def _long_source(words: int) -> str:
    """Natural-looking text of about ``words`` words, no two sentences alike."""
    with (DATA / "demo_summaries.jsonl").open(encoding="utf-8") as handle:
        sources = list(dict.fromkeys(json.loads(line)["input"] for line in handle))
    sentences = [s for source in sources for s in split_sentences(source)]
    built: list[str] = []
    count = 0
    while count < words:
        sentence = sentences[len(built) % len(sentences)]
        numbered = f"In report {len(built)}, {sentence[0].lower()}{sentence[1:]}"
        built.append(numbered)
        count += len(numbered.split())
    return " ".join(built)


def _count_work(monkeypatch: pytest.MonkeyPatch, source: str, summary: str) -> int:
    """How many times the judge weighs a claim against source sentences or compares a
    question with summary sentences (its expensive inner steps)."""
    from evaltoolkit.scorers.summarization import _claims, _questions

    calls = {"count": 0}

    def counted(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls["count"] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(_claims, "_evidence", counted(_claims._evidence))
    monkeypatch.setattr(_claims, "words_apart", counted(_claims.words_apart))
    monkeypatch.setattr(_questions, "answer_question", counted(_questions.answer_question))
    _claims.analyse_source.cache_clear()
    step1 = judge_source(source, summary, 10)
    judge_coverage(summary, step1["questions"])
    windows = len(split_sentences(summary)) * 2
    return calls["count"] + len(step1["questions"]) * windows


@pytest.mark.parametrize("words", [2_000, 6_000])
def test_cost_grows_about_linearly_with_the_texts(
    monkeypatch: pytest.MonkeyPatch, words: int
) -> None:
    small, large = _long_source(words), _long_source(4 * words)
    every_twentieth = lambda text: " ".join(split_sentences(text)[::20])  # noqa: E731
    growing = _count_work(monkeypatch, large, every_twentieth(large)) / _count_work(
        monkeypatch, small, every_twentieth(small)
    )
    assert 2.0 < growing <= 6.0
    short = " ".join(split_sentences(small)[:3])
    same_summary = _count_work(monkeypatch, large, short) / _count_work(monkeypatch, small, short)
    assert same_summary <= 6.0


def test_a_text_over_the_size_limit_is_refused_with_an_item_error() -> None:
    from evaltoolkit.scorers.summarization._offline import MAX_SOURCE_CHARS, MAX_SUMMARY_CHARS

    with pytest.raises(InputError) as raised:
        judge_source("word " * (MAX_SOURCE_CHARS // 5 + 1), "A summary.", 10)
    assert raised.value.field == "source"
    assert f"{MAX_SOURCE_CHARS:,}" in str(raised.value)
    assert "model judge" in str(raised.value) and "split" in str(raised.value)

    long_summary = "word " * (MAX_SUMMARY_CHARS // 5 + 1)
    with pytest.raises(InputError) as raised:
        judge_source("A source.", long_summary, 10)
    assert raised.value.field == "output"
    assert f"{MAX_SUMMARY_CHARS:,}" in str(raised.value)
    with pytest.raises(InputError) as raised:
        judge_coverage(long_summary, ["Does the text mention a source?"])
    assert raised.value.field == "output"
    assert judge_source("word " * (MAX_SOURCE_CHARS // 5 - 1), "A word.", 1)["claims"]


# --- the demo summaries ---------------------------------------------------------------------------

# Words of the claim that carries each planted fault (an omission plants none).
FAULTY_CLAIMS = {
    "harbour-bridge-2": ["420 million"],
    "harbour-bridge-3": ["partly collapsed"],
    "honeybee-study-5": ["larger than"],
    "library-hours-8": ["Carver Foundation"],
    "rail-strike-11": ["for a week", "10 percent"],
    "rail-strike-12": ["ban future rail strikes"],
    "volcano-alert-14": ["has erupted"],
}


def _demo_summaries() -> list[dict[str, Any]]:
    with (DATA / "demo_summaries.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _axes(item: dict[str, Any]) -> tuple[list[dict[str, Any]], float, float]:
    step1: dict[str, Any] = judge_source(item["input"], item["output"], 10)
    verdicts = judge_coverage(item["output"], step1["questions"])["verdicts"]
    claims: list[dict[str, Any]] = step1["claims"]
    alignment = sum(c["supported"] for c in claims) / len(claims)
    coverage = sum(v["answered"] for v in verdicts) / len(verdicts)
    return claims, alignment, coverage


@pytest.mark.parametrize(
    "item", [i for i in _demo_summaries() if i["fault"] == "none"], ids=lambda i: i["id"]
)
def test_faithful_demo_summaries_are_aligned(item: dict[str, Any]) -> None:
    claims, alignment, _ = _axes(item)
    unsupported = [c["reason"] for c in claims if not c["supported"]]
    assert alignment >= 0.8, unsupported


@pytest.mark.parametrize(
    "item",
    [i for i in _demo_summaries() if i["fault"] not in ("none", "omission")],
    ids=lambda i: i["id"],
)
def test_the_claim_carrying_a_planted_fault_is_unsupported(item: dict[str, Any]) -> None:
    claims, _, _ = _axes(item)
    for words in FAULTY_CLAIMS[item["id"]]:
        carrying = [c for c in claims if words in c["claim"]]
        assert carrying, f"no claim says {words!r}: {[c['claim'] for c in claims]}"
        assert all(not c["supported"] for c in carrying), carrying


@pytest.mark.parametrize(
    "item", [i for i in _demo_summaries() if i["fault"] == "omission"], ids=lambda i: i["id"]
)
def test_omissions_keep_alignment_and_lose_coverage(item: dict[str, Any]) -> None:
    _, alignment, coverage = _axes(item)
    faithful = next(
        i for i in _demo_summaries() if i["doc_id"] == item["doc_id"] and i["fault"] == "none"
    )
    assert alignment == 1.0
    assert coverage <= 0.25
    assert coverage < _axes(faithful)[2]


# --- questions --------------------------------------------------------------------------------


@pytest.mark.parametrize("max_questions", [0, 1, 3, 50])
def test_questions_respect_max_questions(max_questions: int) -> None:
    questions = judge_source(SOURCE, "Acme makes robots.", max_questions)["questions"]
    assert isinstance(questions, list)
    assert len(questions) <= max_questions
    if max_questions:
        assert questions


def test_questions_are_closed_carry_the_fact_and_come_from_the_source() -> None:
    questions = judge_source(SOURCE, "irrelevant", 10)["questions"]
    assert isinstance(questions, list)
    source_stems = {token.stem for token in tokenize(SOURCE)}
    for question in questions:
        frame = next(frame for frame in QUESTION_FRAMES if question.startswith(frame))
        assert question.endswith("?")
        fact = question.removeprefix(frame).removesuffix("?")
        assert {token.stem for token in tokenize(fact)} <= source_stems
    assert len(set(questions)) == len(questions)


def test_questions_do_not_depend_on_the_summary() -> None:
    first = judge_source(SOURCE, "Acme makes robots.", 4)["questions"]
    second = judge_source(SOURCE, "Something else entirely, with 99 numbers.", 4)["questions"]
    assert first == second


def test_the_lead_fact_is_asked_first() -> None:
    questions = judge_source(SOURCE, "", 3)["questions"]
    assert isinstance(questions, list)
    assert "founded in 1995 by John Smith" in questions[0]


def test_questions_ask_atomic_facts_that_read_on_their_own() -> None:
    source = (
        "Council member Rita Okafor, who led the project, said the old bridge could no longer "
        "carry buses safely. The researchers, led by Dr. Tomas Lindqvist of Uppsala University, "
        "followed 120 colonies over three summers. Authorities raised the alert level to orange "
        "on Sunday after a series of small earthquakes beneath the volcano, officials said."
    )
    questions = judge_source(source, "", 10)["questions"]
    assert isinstance(questions, list)
    assert (
        "Does the text say that council member Rita Okafor said the old bridge could no longer "
        "carry buses safely?"
    ) in questions
    assert "Does the text say that the researchers followed 120 colonies over three summers?" in (
        questions
    )
    assert "Does the text mention a series of small earthquakes beneath the volcano?" in questions
    for question in questions:
        fact = question.split(" ", 4)[-1]
        assert not fact.startswith(("and ", "but ", "who ", "which ", "said ", "after "))
        assert "officials said" not in question


def test_a_negation_is_never_asked_about_as_a_key_phrase() -> None:
    source = (
        "The council will not reopen the bridge. Residents are not happy. The mayor said "
        "repairs are not funded. Traffic is not moving. The bridge closed in May."
    )
    questions = judge_source(source, "", 10)["questions"]
    assert "Does the text mention bridge?" in questions
    assert not any(question.endswith(" not?") for question in questions)


def test_a_verb_phrase_is_asked_with_the_subject_it_continues() -> None:
    source = (
        "The four-time Olympic champion will bid for the hour record in June, and will attempt "
        "to ride the furthest distance in 60 minutes at the London velodrome."
    )
    questions = judge_source(source, "", 10)["questions"]
    assert (
        "Does the text say that the four-time Olympic champion will attempt to ride the furthest "
        "distance in 60 minutes at the London velodrome?"
    ) in questions


# --- coverage ---------------------------------------------------------------------------------

QUESTIONS = [
    "Does the text say that Acme Corporation was founded in 1995 by John Smith in Boston?",
    "Does the text say that Acme employs 4,000 people and sold 12,000 robots last year?",
]


def _verdicts(summary: str, questions: list[str]) -> list[dict[str, Any]]:
    verdicts: list[dict[str, Any]] = judge_coverage(summary, questions)["verdicts"]
    return verdicts


def test_coverage_answered_when_the_summary_states_the_fact() -> None:
    verdicts = _verdicts("John Smith founded Acme Corporation in Boston in 1995.", QUESTIONS)
    assert [v["answered"] for v in verdicts] == [True, False]
    assert "John Smith founded Acme" in verdicts[0]["reason"]
    assert "4,000" in verdicts[1]["reason"] or "missing" in verdicts[1]["reason"]


def test_coverage_not_answered_when_a_number_differs() -> None:
    verdicts = _verdicts("Acme Corporation was founded in 2001 by John Smith in Boston.", QUESTIONS)
    assert verdicts[0]["answered"] is False
    assert verdicts[0]["rule"] == "missing_number"


def test_coverage_needs_only_the_summary_and_the_questions() -> None:
    # A fact that appears in no source at all is judged from the summary alone.
    question = "Does the text say that the bridge over the river Tamar opened in 1961?"
    assert _verdicts("The Tamar bridge opened in 1961.", [question])[0]["answered"] is True
    assert _verdicts("A bridge was built somewhere.", [question])[0]["answered"] is False


def test_coverage_needs_the_fact_stated_in_one_place() -> None:
    question = "Does the text say that Acme employs 4,000 people at its Boston factory?"
    stated = "Acme, a robot maker, employs 4,000 people at its Boston factory."
    scattered = (
        "Acme makes robots. It was founded long ago. Its 4,000 machines are famous. "
        "Many people like it. The company has a factory. Boston is a city."
    )
    assert _verdicts(stated, [question])[0]["answered"] is True
    assert _verdicts(scattered, [question])[0]["answered"] is False


def test_coverage_answers_a_mention_question() -> None:
    question = "Does the text mention a series of small earthquakes beneath the volcano?"
    assert _verdicts("Small earthquakes shook the ground beneath the volcano.", [question])[0][
        "answered"
    ]


def test_coverage_gives_one_verdict_per_question_in_order() -> None:
    questions = [*QUESTIONS, QUESTIONS[0], "Is the sky green?"]
    verdicts = _verdicts("Acme was founded in 1995 by John Smith in Boston.", questions)
    assert [v["question"] for v in verdicts] == questions
    assert _verdicts("anything", []) == []


# --- answer units -----------------------------------------------------------------------------


def test_short_answers_are_one_unit_and_lists_split_into_items() -> None:
    assert extract_units("1960", "Johannes Gutenberg") == {
        "output_units": ["1960"],
        "ground_truth_units": ["Johannes Gutenberg"],
    }
    units = extract_units("red, blue, and yellow", "July 25, 2017")
    assert units["output_units"] == ["red", "blue", "yellow"]
    assert units["ground_truth_units"] == ["July 25, 2017"]


def test_long_outputs_split_into_facts() -> None:
    units = extract_units(
        "The printing press was invented by Johannes Gutenberg in 1439. "
        "It spread across Europe, and it changed publishing forever.",
        "Johannes Gutenberg",
    )
    output_units = units["output_units"]
    assert isinstance(output_units, list)
    assert len(output_units) == 3


def test_number_words_match_digits_exactly() -> None:
    assert _match_types("four", "4") == ["exact"]
    assert _match_types("There are 4 of them.", "four") == ["exact"]
    assert _match_types("the third one", "3rd") == ["exact"]


def test_answer_inside_a_sentence_is_exact() -> None:
    assert _match_types("The capital of France is Paris.", "Paris") == ["exact"]
    assert (
        _similarity("The capital of France is Paris.", "Paris", "what is the capital of france")
        == 1.0
    )


def test_case_punctuation_articles_and_hedges_are_ignored() -> None:
    assert _match_types("the Cleveland Indians!", "cleveland indians") == ["exact"]
    assert _match_types("It was printed in 1439.", "circa 1439") == ["exact"]


def test_spelling_variants_and_short_names_are_semantic() -> None:
    assert _match_types("Dr. Jesse Bennet", "Dr. Jesse Bennett") == ["semantic"]
    assert _match_types("Shirley Jones played the mother.", "Shirley Mae Jones") == ["semantic"]


def test_half_an_answer_is_partial_and_an_unrelated_one_missing() -> None:
    assert _match_types("It is in Arizona.", "Tucson, Arizona") == ["partial"]
    assert _match_types("Karen Janszen", "Nicholas Sparks") == ["missing"]


def test_a_different_year_is_a_contradiction() -> None:
    question = "when was the 50th star added to the united states flag"
    analysis: dict[str, Any] = analyze_units(
        ["The star was added in 1959."], ["1960"], question=question
    )
    assert analysis["matches"][0]["match_type"] == "missing"
    assert len(analysis["contradictions"]) == 1
    assert "1959" in analysis["contradictions"][0]["explanation"]
    assert _similarity("The star was added in 1959.", "1960", question) == 0.0


def test_the_right_year_among_others_is_no_contradiction() -> None:
    analysis: dict[str, Any] = analyze_units(
        ["The 50th star was added on July 4, 1960", "the flag has flown since 1959"],
        ["1960"],
        question="when was the 50th star added to the united states flag",
    )
    assert analysis["matches"][0]["match_type"] == "exact"
    assert analysis["contradictions"] == []


def test_a_different_name_for_a_short_answer_is_a_contradiction() -> None:
    analysis: dict[str, Any] = analyze_units(["Karen Janszen"], ["Nicholas Sparks"])
    assert len(analysis["contradictions"]) == 1


def test_restating_the_question_is_not_extra_information() -> None:
    question = "who invented the printing press"
    output = "The printing press was invented by Johannes Gutenberg. He was born in Mainz."
    units: dict[str, list[str]] = extract_units(output, "Johannes Gutenberg", question)
    analysis: dict[str, Any] = analyze_units(
        units["output_units"], units["ground_truth_units"], question=question
    )
    assert analysis["matches"][0]["match_type"] == "exact"
    assert analysis["extra_info"] == ["He was born in Mainz"]


def test_yes_no_answers_follow_the_polarity_of_the_output() -> None:
    assert _match_types("No, it is not required.", "No") == ["exact"]
    assert _match_types("You do not need a permit in Florida.", "No") == ["semantic"]
    assert _match_types("Yes, you need one.", "No") == ["missing"]


def _units(output: str, truth: str, question: str) -> dict[str, Any]:
    units: dict[str, list[str]] = extract_units(output, truth, question)
    analysis: dict[str, Any] = analyze_units(
        units["output_units"], units["ground_truth_units"], question=question
    )
    return {**units, **analysis}


def test_ground_truth_units_do_not_restate_the_question() -> None:
    colors = "What are the primary colors?"
    truth = "The primary colors are red, blue, and yellow"
    assert _units("Red and blue.", truth, colors)["ground_truth_units"] == ["red", "blue", "yellow"]
    partial = _units("Red and blue.", truth, colors)
    assert [m["match_type"] for m in partial["matches"]] == ["exact", "exact", "missing"]
    assert partial["contradictions"] == []
    complete = _units("Red, blue and yellow.", truth, colors)
    assert [m["match_type"] for m in complete["matches"]] == ["exact", "exact", "exact"]
    capital = "What is the capital of France?"
    assert _units("Paris", "The capital of France is Paris", capital)["ground_truth_units"] == [
        "Paris"
    ]
    assert _match_types("Paris", "The capital of France is Paris", capital) == ["exact"]
    lyon = _units("Lyon is the capital of France.", "The capital of France is Paris", capital)
    assert [m["match_type"] for m in lyon["matches"]] == ["missing"]
    assert len(lyon["contradictions"]) == 1
    assert "Lyon" in lyon["contradictions"][0]["explanation"]
    assert "France" not in lyon["contradictions"][0]["explanation"].split("where")[0]
    boiling = "What is the boiling point of water at sea level?"
    water = "Water boils at 100 degrees Celsius at sea level"
    assert _match_types("100 degrees Celsius", water, boiling)[0] in ("exact", "semantic")
    unsure = _units("I am not sure.", "Mars", "Which planet is known as the Red Planet?")
    assert [m["match_type"] for m in unsure["matches"]] == ["missing"]
    assert unsure["contradictions"] == []


def test_names_and_dates_of_a_ground_truth_are_kept_whole() -> None:
    war = "who did the united states fight in the war of 1812"
    assert extract_units("x", "United Kingdom", war)["ground_truth_units"] == ["United Kingdom"]
    film = "when does planet of the apes come out 2017"
    assert extract_units("x", "July 14, 2017", film)["ground_truth_units"] == ["July 14, 2017"]
    assert _match_types("It came out on 14 July 2017.", "July 14, 2017", film)[0] != "missing"


def _demo_answers() -> list[dict[str, Any]]:
    with (DATA / "demo_answers.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# A partial list scores 0.625 with the scorer's default options (two exact units, one missing:
# (2 x 1.2 - 0.15) / 3.6), above every threshold that keeps semantic matches with a little
# extra information (0.47-0.62) accepted, so no single threshold puts it on the wrong side.
_PARTIAL_LIST = "qa-5"


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(item, id=item["id"])
        for item in _demo_answers()
        # A list answered in part with its other items exact scores 0.625 by the scorer's
        # formula, above the threshold; the next test checks it ranks below the complete one.
        if item["id"] != _PARTIAL_LIST
    ],
)
def test_demo_answers_land_on_the_right_side_of_the_threshold(item: dict[str, Any]) -> None:
    score = _similarity(item["output"], item["ground_truth"], item["input"])
    assert (score >= ANSWER_THRESHOLD) is item["human_correct"], score


def test_a_partial_demo_list_scores_below_the_complete_one() -> None:
    answers = {item["id"]: item for item in _demo_answers()}
    partial, complete = answers[_PARTIAL_LIST], answers["qa-4"]
    partial_score = _similarity(partial["output"], partial["ground_truth"], partial["input"])
    complete_score = _similarity(complete["output"], complete["ground_truth"], complete["input"])
    assert partial_score == pytest.approx(0.625)
    assert complete_score == 1.0


def test_accept_threshold_separates_right_from_wrong_answers() -> None:
    question = "who wrote the song city of new orleans"
    right = "The song City of New Orleans was written by Steve Goodman."
    assert _similarity(right, "Steve Goodman", question) >= ANSWER_THRESHOLD
    wrong = "The song City of New Orleans was written by Arlo Guthrie."
    assert _similarity(wrong, "Steve Goodman", question) < ANSWER_THRESHOLD


# --- contract ---------------------------------------------------------------------------------


def test_judge_source_returns_exactly_the_documented_shape() -> None:
    result = judge_source(SOURCE, "Acme was founded in 1995. It makes toys.", 3)
    assert set(result) == {"claims", "questions"}
    claims = result["claims"]
    assert isinstance(claims, list)
    for claim in claims:
        assert set(claim) == {"claim", "supported", "reason", "rule"}
        assert claim["rule"] in CLAIM_RULE_NAMES
        assert isinstance(claim["claim"], str)
        assert isinstance(claim["supported"], bool)
        assert isinstance(claim["reason"], str) and claim["reason"]
    questions = result["questions"]
    assert isinstance(questions, list)
    assert all(isinstance(q, str) for q in questions)


def test_judge_coverage_returns_exactly_the_documented_shape() -> None:
    result = judge_coverage("Acme was founded in 1995.", QUESTIONS)
    assert set(result) == {"verdicts"}
    verdicts = result["verdicts"]
    assert isinstance(verdicts, list)
    for verdict in verdicts:
        assert set(verdict) == {"question", "answered", "reason", "rule"}
        assert verdict["rule"] in QUESTION_RULE_NAMES
        assert isinstance(verdict["question"], str)
        assert isinstance(verdict["answered"], bool)
        assert isinstance(verdict["reason"], str) and verdict["reason"]


def test_answer_functions_return_exactly_the_documented_shape() -> None:
    units = extract_units("The 50th star was added in 1961, for Hawaii.", "1960", "when?")
    assert set(units) == {"output_units", "ground_truth_units"}
    assert all(isinstance(u, str) for key in units for u in units[key])
    analysis = analyze_units(["The 50th star was added in 1961", "for Hawaii"], ["1960", "Hawaii"])
    assert set(analysis) == {"matches", "contradictions", "extra_info"}
    matches = analysis["matches"]
    assert isinstance(matches, list) and len(matches) == 2
    for match in matches:
        assert set(match) == {"ground_truth_unit", "output_unit", "match_type", "explanation"}
        assert match["match_type"] in {"exact", "semantic", "partial", "missing"}
        assert match["output_unit"] is None or isinstance(match["output_unit"], str)
        assert isinstance(match["explanation"], str)
    assert [m["ground_truth_unit"] for m in matches] == ["1960", "Hawaii"]
    contradictions = analysis["contradictions"]
    assert isinstance(contradictions, list)
    for contradiction in contradictions:
        assert set(contradiction) == {"output_unit", "ground_truth_unit", "explanation"}
    extra = analysis["extra_info"]
    assert isinstance(extra, list) and all(isinstance(e, str) for e in extra)


def test_empty_inputs_are_handled() -> None:
    assert judge_source("", "", 3) == {"claims": [], "questions": []}
    assert judge_coverage("", QUESTIONS[:1])["verdicts"][0]["answered"] is False
    assert extract_units("", "") == {"output_units": [], "ground_truth_units": []}
    analysis = analyze_units([], ["Paris"])
    assert analysis["matches"][0]["match_type"] == "missing"


def test_same_input_gives_the_same_output() -> None:
    summary = "Acme was founded in 1995 by John Smith, and it does not make robots."
    assert judge_source(SOURCE, summary, 4) == judge_source(SOURCE, summary, 4)
    questions = judge_source(SOURCE, summary, 4)["questions"]
    assert judge_coverage(summary, questions) == judge_coverage(summary, questions)
    units = extract_units("Gutenberg, in 1439", "Johannes Gutenberg", "who?")
    assert units == extract_units("Gutenberg, in 1439", "Johannes Gutenberg", "who?")


_DETERMINISM_SCRIPT = """
import json, sys
from evaltoolkit.scorers.answer_similarity import analyze_units, extract_units
from evaltoolkit.scorers.summarization import judge_coverage, judge_source
source, summary = sys.argv[1], sys.argv[2]
step1 = judge_source(source, summary, 4)
units = extract_units(summary, "John Smith, Jane Doe, and Boston", "who?")
print(json.dumps([step1, judge_coverage(summary, step1["questions"]),
                  analyze_units(units["output_units"], units["ground_truth_units"])]))
"""


def test_output_does_not_depend_on_the_hash_seed() -> None:
    summary = "Acme, founded by John Smith, employs 4,000 people; Jane Doe expects growth."
    outputs = []
    for seed in ("1", "2", "31337"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _DETERMINISM_SCRIPT, SOURCE, summary],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=Path(__file__).resolve().parents[1],
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == outputs[2]


# --- text primitives ----------------------------------------------------------------------------


def test_tokenized_and_plain_text_agree() -> None:
    plain = [t.stem for t in tokenize("He didn't say it's 12,000.")]
    tokenized = [t.stem for t in tokenize("he did n't say it 's 12,000 .")]
    assert plain == tokenized
    assert [t.norm for t in tokenize("two hundred thousand")] == ["200000"]
    assert stem("caught") == stem("catches")


def test_short_words_keep_their_endings_so_unrelated_words_stay_apart() -> None:
    # MIN_STEM_LETTERS: an ending comes off only when three letters remain. Without it "bred"
    # and "bring" would share the stem "br", "red" and "ring" the stem "r".
    assert len({stem("bred"), stem("bring"), stem("breed")}) == 3
    assert len({stem("red"), stem("ring"), stem("rings")}) == 2
    assert (stem("raised"), stem("stopped"), stem("early")) == ("rais", "stop", "early")


def test_a_citation_marker_is_cut_from_a_year_only() -> None:
    # CITED_YEARS: "in 19801." is 1980 with a marker glued on; a count ending a sentence
    # ("50000.", "21005.") is no year and keeps every digit.
    assert [t.norm for t in tokenize("It opened in 19801.")][-1] == "1980"
    assert [t.norm for t in tokenize("The crowd was 50000.")][-1] == "50000"
    assert [t.norm for t in tokenize("It cost 21005.")][-1] == "21005"


def test_sentences_split_on_stops_but_not_on_abbreviations() -> None:
    text = "Dr. Smith met J. K. Rowling in the U.S. on Monday. they talked . then left!"
    assert split_sentences(text) == [
        "Dr. Smith met J. K. Rowling in the U.S. on Monday.",
        "they talked .",
        "then left!",
    ]


_ANY_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200
) | st.sampled_from(["1994⁶ was ²³ years", "١٢٣ and 12,000.5 people", "", "  ", "Mr. A. B. 3rd"])


@settings(max_examples=150, deadline=None)
@given(_ANY_TEXT, _ANY_TEXT, _ANY_TEXT)
def test_any_text_gets_a_well_formed_answer(source: str, summary: str, question: str) -> None:
    judgement = judge_source(source, summary, 5)
    assert len(judgement["questions"]) <= 5
    assert all(isinstance(claim["supported"], bool) for claim in judgement["claims"])
    coverage = judge_coverage(summary, judgement["questions"] or [question])
    assert len(coverage["verdicts"]) == len(judgement["questions"] or [question])
    units = extract_units(summary, source, question)
    analysis = analyze_units(units["output_units"], units["ground_truth_units"], question=question)
    assert len(analysis["matches"]) == len(units["ground_truth_units"])

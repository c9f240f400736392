"""Write the demo data sets (run from the repository root: python data/make_demo.py).

Every text here was written for evaltoolkit; the faults are planted on purpose and named in
each item's ``fault`` field, with a human judgement in ``human_score`` (1-5) or
``human_correct`` so that the notebooks can compare judges with labels.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_DATA = HERE.parent / "evaltoolkit" / "_demo_data"

DOCUMENTS = {
    "harbour-bridge": (
        "The city council of Port Alden voted on Tuesday to replace the 80-year-old Harbour "
        "Bridge. The new bridge will cost 240 million dollars and is expected to open in 2029. "
        "Council member Rita Okafor, who led the project, said the old bridge could no longer "
        "carry buses safely. Engineers found corrosion in 14 of the bridge's 22 steel supports "
        "during an inspection last spring. The new design adds a protected cycle lane and "
        "wider footpaths. Construction will begin next March, and a temporary ferry service "
        "will run while the crossing is closed. Local shop owners have asked the council to "
        "keep at least one lane open during the works, but the council said this would add "
        "two years to the schedule."
    ),
    "honeybee-study": (
        "A study published in the journal Apidology found that honeybee colonies kept near "
        "wildflower meadows produced 30 percent more honey than colonies kept near farmland. "
        "The researchers, led by Dr. Tomas Lindqvist of Uppsala University, followed 120 "
        "colonies over three summers. Colonies near meadows also lost fewer bees over winter. "
        "The team believes that a wider variety of pollen gives the bees a more balanced diet. "
        "The study did not find any difference in the size of the colonies. Lindqvist said "
        "that farmers could help bees by planting strips of wildflowers along the edges of "
        "their fields."
    ),
    "library-hours": (
        "From the first of June, the Westbrook public library will open on Sundays for the "
        "first time in its history. The library will be open from 10 am to 4 pm on Sundays, "
        "and weekday hours will not change. The change is paid for by a grant of 85,000 "
        "dollars from the Hale Foundation, which covers two years of extra staff. Library "
        "director Ana Ruiz said that a survey of 2,300 residents showed strong demand for "
        "weekend opening, especially among students and working parents. The children's "
        "reading room will also host a story hour every Sunday at 11 am."
    ),
    "rail-strike": (
        "Train drivers on the Northern Line will strike for 48 hours starting on Friday, "
        "after talks with the operator broke down on Monday. The drivers' union says the "
        "operator wants to cut the number of rest days, while the operator says its offer "
        "includes a pay rise of 4 percent. About 90,000 passengers use the line each day. "
        "The operator plans to run a reduced service of one train per hour on the busiest "
        "routes and has advised passengers to work from home if they can. The union has not "
        "ruled out further strikes next month."
    ),
    "volcano-alert": (
        "Authorities raised the alert level for Mount Kessa to orange on Sunday after a "
        "series of small earthquakes beneath the volcano. About 3,000 residents of two "
        "villages on the eastern slope were told to prepare to leave. The volcano last "
        "erupted in 1987, when ash closed the regional airport for a week. Scientists from "
        "the national geological survey said that magma appears to be rising but that an "
        "eruption is not certain. The airport remains open for now, and flights are running "
        "normally."
    ),
}

SUMMARIES = [
    (
        "harbour-bridge",
        "none",
        5,
        "Port Alden's council voted to replace the 80-year-old Harbour Bridge with a "
        "240 million dollar bridge due to open in 2029, after engineers found corrosion in 14 of "
        "its 22 steel supports. The new bridge adds a cycle lane and wider footpaths, and a "
        "temporary ferry will run during construction, which begins next March.",
    ),
    (
        "harbour-bridge",
        "omission",
        3,
        "The Port Alden council voted to replace the Harbour Bridge.",
    ),
    (
        "harbour-bridge",
        "wrong number",
        2,
        "Port Alden will replace its Harbour Bridge at a cost of 420 million dollars, and the "
        "new bridge is expected to open in 2029.",
    ),
    (
        "harbour-bridge",
        "invented claim",
        2,
        "The council voted to replace the Harbour Bridge after it partly collapsed, and the "
        "mayor said shops would receive compensation during the works.",
    ),
    (
        "honeybee-study",
        "none",
        5,
        "Honeybee colonies near wildflower meadows made 30 percent more honey than colonies "
        "near farmland and lost fewer bees over winter, according to a study of 120 colonies "
        "led by Dr. Tomas Lindqvist. He suggested farmers plant wildflower strips along fields.",
    ),
    (
        "honeybee-study",
        "negation",
        2,
        "A study found that colonies near meadows were larger than colonies near farmland and "
        "produced 30 percent more honey.",
    ),
    ("honeybee-study", "omission", 3, "A study looked at where honeybee colonies are kept."),
    (
        "library-hours",
        "none",
        5,
        "Westbrook library will open on Sundays from 10 am to 4 pm from June 1, funded by an "
        "85,000 dollar grant from the Hale Foundation, after a survey of 2,300 residents showed "
        "demand for weekend opening. A Sunday story hour will be held at 11 am.",
    ),
    (
        "library-hours",
        "wrong name",
        2,
        "Westbrook library will open on Sundays thanks to a grant from the Carver Foundation, "
        "director Ana Ruiz said.",
    ),
    ("library-hours", "omission", 3, "Westbrook library will start opening on Sundays in June."),
    (
        "rail-strike",
        "none",
        5,
        "Northern Line train drivers will strike for 48 hours from Friday after talks broke "
        "down over rest days; the operator, which offered a 4 percent pay rise, will run one "
        "train per hour on the busiest routes for the line's 90,000 daily passengers.",
    ),
    (
        "rail-strike",
        "wrong number",
        2,
        "Drivers on the Northern Line will strike for a week, and the operator has offered a "
        "pay rise of 10 percent.",
    ),
    (
        "rail-strike",
        "invented claim",
        2,
        "Northern Line drivers will strike for 48 hours from Friday, and the government has "
        "promised to ban future rail strikes.",
    ),
    (
        "volcano-alert",
        "none",
        5,
        "The alert level for Mount Kessa was raised to orange after small earthquakes, and "
        "about 3,000 residents of two villages were told to prepare to leave; scientists say "
        "magma is rising but an eruption is not certain, and the airport remains open.",
    ),
    (
        "volcano-alert",
        "negation",
        1,
        "Mount Kessa has erupted and the regional airport has been closed, authorities said.",
    ),
    (
        "volcano-alert",
        "omission",
        3,
        "The alert level for Mount Kessa was raised to orange on Sunday.",
    ),
]

ANSWERS = [
    ("What is 2+2?", "4", "4", "exact", True),
    ("What is 2+2?", "The answer is four.", "4", "number word", True),
    ("What is the capital of France?", "Paris", "The capital of France is Paris", "exact", True),
    (
        "What is the capital of France?",
        "Lyon is the capital of France.",
        "The capital of France is Paris",
        "contradiction",
        False,
    ),
    (
        "What are the primary colors?",
        "Red, blue and yellow.",
        "The primary colors are red, blue, and yellow",
        "exact",
        True,
    ),
    (
        "What are the primary colors?",
        "Red and blue.",
        "The primary colors are red, blue, and yellow",
        "partial",
        False,
    ),
    (
        "When did the Berlin Wall fall?",
        "The Berlin Wall fell in November 1989.",
        "1989",
        "extra detail",
        True,
    ),
    ("When did the Berlin Wall fall?", "It fell in 1991.", "1989", "wrong year", False),
    ("Who wrote Pride and Prejudice?", "Jane Austen wrote it.", "Jane Austen", "exact", True),
    (
        "Who wrote Pride and Prejudice?",
        "It was written by Charlotte Bronte.",
        "Jane Austen",
        "wrong name",
        False,
    ),
    ("How many legs does a spider have?", "Spiders have eight legs.", "8", "number word", True),
    ("How many legs does a spider have?", "Six.", "8", "wrong number", False),
    (
        "What gas do plants absorb from the air?",
        "Plants take in carbon dioxide, and they also release oxygen and grow towards light.",
        "carbon dioxide",
        "extra information",
        True,
    ),
    (
        "What is the boiling point of water at sea level?",
        "100 degrees Celsius",
        "Water boils at 100 degrees Celsius at sea level",
        "exact",
        True,
    ),
    ("Which planet is known as the Red Planet?", "Mars", "Mars", "exact", True),
    ("Which planet is known as the Red Planet?", "I am not sure.", "Mars", "missing", False),
]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    summaries = [
        {
            "id": f"{doc_id}-{position}",
            "doc_id": doc_id,
            "input": DOCUMENTS[doc_id],
            "output": summary,
            "fault": fault,
            "human_score": human_score,
        }
        for position, (doc_id, fault, human_score, summary) in enumerate(SUMMARIES)
    ]
    answers = [
        {
            "id": f"qa-{position}",
            "input": question,
            "output": answer,
            "ground_truth": truth,
            "fault": fault,
            "human_correct": correct,
        }
        for position, (question, answer, truth, fault, correct) in enumerate(ANSWERS)
    ]
    # data/ for the notebooks and tests; the package's copy for `evaltoolkit demo`, so that it
    # also works from an installed wheel (tests/test_packaging.py checks they are the same).
    for folder in (HERE, PACKAGE_DATA):
        write_jsonl(folder / "demo_summaries.jsonl", summaries)
        write_jsonl(folder / "demo_answers.jsonl", answers)


if __name__ == "__main__":
    main()

"""The answer-similarity scorer's prompt templates and reply schemas.

Override any template with ``create_answer_similarity_scorer(prompts={name: text})``; each
must keep its placeholders.
"""

from __future__ import annotations

from .._prompts import json_object

__all__ = [
    "ANALYZE",
    "ANALYZE_SCHEMA",
    "EXTRACT",
    "EXTRACT_SCHEMA",
    "MATCH_TYPES",
    "REASON",
    "REASON_SCHEMA",
    "SYSTEM",
]

MATCH_TYPES = ("exact", "semantic", "partial", "missing")

SYSTEM = """\
You are a careful, literal evaluator of answers. Compare the answer with the ground truth \
only, never with outside knowledge, and answer with one JSON object matching the requested \
schema."""

EXTRACT = """\
Break an ANSWER and the GROUND TRUTH for the same question into semantic units: the smallest \
self-contained pieces of information (one fact, entity, number, or one item of a list). A \
short answer such as a name or a number is one unit. Keep each unit's wording close to its \
text, and leave out words that only restate the question.

QUESTION: {{question}}

ANSWER:
{{output}}

GROUND TRUTH:
{{ground_truth}}

Reply with JSON: {"output_units": ["..."], "ground_truth_units": ["..."]}"""

ANALYZE = """\
Compare an answer with the ground truth, unit by unit.

For EACH ground-truth unit, in order, find the answer unit that best expresses it and \
classify the match:
- "exact": the same information, differing at most in case, punctuation, articles or a \
number written in words;
- "semantic": the same meaning in different words;
- "partial": part of the information, or a less precise version of it;
- "missing": the answer does not express it (output_unit null).
Then list the contradictions: answer units incompatible with a ground-truth unit (a \
different number, date or name in the same role, or a negation). Finally list the extra \
information: answer units that add facts the ground truth does not contain (restating the \
question is not extra information).

QUESTION: {{question}}

GROUND-TRUTH UNITS:
{{ground_truth_units}}

ANSWER UNITS:
{{output_units}}

Reply with JSON:
{"matches": [{"ground_truth_unit": "...", "output_unit": "... or null", \
"match_type": "exact | semantic | partial | missing", "explanation": "..."}],
 "contradictions": [{"output_unit": "...", "ground_truth_unit": "...", "explanation": "..."}],
 "extra_info": ["..."]}"""

REASON = """\
Explain an answer's similarity score to its ground truth in two or three sentences, with \
feedback a developer can act on: what matched, what is missing, what contradicts the ground \
truth, and what was added.

Score: {{score}} (1 is a complete match).

MATCHES:
{{matches}}

CONTRADICTIONS:
{{contradictions}}

EXTRA INFORMATION:
{{extra_info}}

Reply with JSON: {"reason": "..."}"""

_STRINGS = {"type": "array", "items": {"type": "string"}}

EXTRACT_SCHEMA = json_object({"output_units": _STRINGS, "ground_truth_units": _STRINGS})

ANALYZE_SCHEMA = json_object(
    {
        "matches": {
            "type": "array",
            "items": json_object(
                {
                    "ground_truth_unit": {"type": "string"},
                    "output_unit": {"type": ["string", "null"]},
                    "match_type": {"type": "string", "enum": list(MATCH_TYPES)},
                    "explanation": {"type": "string"},
                }
            ),
        },
        "contradictions": {
            "type": "array",
            "items": json_object(
                {
                    "output_unit": {"type": "string"},
                    "ground_truth_unit": {"type": "string"},
                    "explanation": {"type": "string"},
                }
            ),
        },
        "extra_info": _STRINGS,
    }
)

REASON_SCHEMA = json_object({"reason": {"type": "string"}})

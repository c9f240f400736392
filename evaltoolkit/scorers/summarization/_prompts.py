"""The summarization scorer's prompt templates and reply schemas.

Override any template with ``create_summarization_scorer(prompts={name: text})``; each must
keep its placeholders (``{{source}}``, ...). The coverage template has no ``{{source}}``
placeholder on purpose: the coverage call must never see the source.

Order: what the calls about one source share comes first (the system message, then the
instructions, then ``{{source}}``), and what differs between them (``{{summary}}``) last.
Providers that cache prompts (OpenAI, Anthropic, ...) reuse the longest shared beginning of
the requests they receive, billing it at a lower price; an edited template keeps that order.
With ``questions="per_source"`` the questions template sees the source alone, so its request
is the same for every summary of that source: one cache key, one call.
"""

from __future__ import annotations

from .._prompts import json_object

__all__ = [
    "CLAIMS",
    "CLAIMS_SCHEMA",
    "COVERAGE",
    "COVERAGE_SCHEMA",
    "REASON",
    "REASON_SCHEMA",
    "SOURCE_JUDGEMENT",
    "SOURCE_JUDGEMENT_SCHEMA",
    "SOURCE_QUESTIONS",
    "SOURCE_QUESTIONS_SCHEMA",
    "SYSTEM",
]

SYSTEM = """\
You are a careful, literal evaluator of summaries. Judge only from the texts you are given, \
never from outside knowledge, and answer with one JSON object matching the requested schema."""

SOURCE_JUDGEMENT = """\
Judge a SUMMARY against the SOURCE text it summarises.

1. Split the SUMMARY into atomic claims: short statements that each carry one fact. Cover \
every fact the summary states, and add no claim it does not make.
2. For each claim, decide whether the SOURCE supports it. A claim is supported only when the \
source states it or it follows directly from what the source states. A claim whose number, \
date, name or negation differs from the source, or that adds a detail the source does not \
give, is not supported. Give a one-sentence reason that quotes the source evidence, or says \
what is missing or different.
3. Write at most {{max_questions}} closed questions about the most important facts of the \
SOURCE (not of the summary), most important first. The source must answer each one "yes". \
Each question must name the fact it asks about, so that someone holding only the summary can \
tell whether the summary states it.

Reply with JSON of this shape:
{"claims": [{"claim": "...", "supported": true, "reason": "..."}], "questions": ["..."]}

SOURCE:
{{source}}

SUMMARY:
{{summary}}"""

SOURCE_QUESTIONS = """\
Write at most {{max_questions}} closed questions about the most important facts of the SOURCE \
below, most important first. The source must answer each one "yes". Each question must name \
the fact it asks about, so that someone holding only a summary of the source can tell whether \
the summary states it.

Reply with JSON of this shape:
{"questions": ["..."]}

SOURCE:
{{source}}"""

CLAIMS = """\
Judge a SUMMARY against the SOURCE text it summarises.

1. Split the SUMMARY into atomic claims: short statements that each carry one fact. Cover \
every fact the summary states, and add no claim it does not make.
2. For each claim, decide whether the SOURCE supports it. A claim is supported only when the \
source states it or it follows directly from what the source states. A claim whose number, \
date, name or negation differs from the source, or that adds a detail the source does not \
give, is not supported. Give a one-sentence reason that quotes the source evidence, or says \
what is missing or different.

Reply with JSON of this shape:
{"claims": [{"claim": "...", "supported": true, "reason": "..."}]}

SOURCE:
{{source}}

SUMMARY:
{{summary}}"""

COVERAGE = """\
Below are a SUMMARY and numbered yes/no QUESTIONS. Using ONLY the summary (you do not have \
any other text, and must not assume one), decide for each question whether the summary \
answers it "yes": the summary must state the fact the question asks about. When the summary \
does not mention it, or states something different, the question is not answered.

Reply with one verdict per question, in the same order, repeating each question exactly:
{"verdicts": [{"question": "...", "answered": true, "reason": "..."}]}

SUMMARY:
{{summary}}

QUESTIONS:
{{questions}}"""

REASON = """\
Explain a summary's score to a researcher in two to four sentences.

The score is the lower of two axes: alignment, the share of the summary's claims that the \
source supports, and coverage, the share of questions about the source that the summary \
answers. Score: {{score}}. Alignment: {{alignment_score}}. Coverage: {{coverage_score}}. \
Deciding axis: {{decided_by}}.

Name the axis that decided the score, cite the unsupported claims or unanswered questions \
behind it, and state both axis scores.

CLAIMS (supported or not):
{{claims}}

QUESTIONS (answered by the summary or not):
{{coverage}}

Reply with JSON: {"reason": "..."}"""

SOURCE_JUDGEMENT_SCHEMA = json_object(
    {
        "claims": {
            "type": "array",
            "items": json_object(
                {
                    "claim": {"type": "string"},
                    "supported": {"type": "boolean"},
                    "reason": {"type": "string"},
                }
            ),
        },
        "questions": {"type": "array", "items": {"type": "string"}},
    }
)

_CLAIM = json_object(
    {
        "claim": {"type": "string"},
        "supported": {"type": "boolean"},
        "reason": {"type": "string"},
    }
)
SOURCE_QUESTIONS_SCHEMA = json_object({"questions": {"type": "array", "items": {"type": "string"}}})
CLAIMS_SCHEMA = json_object({"claims": {"type": "array", "items": _CLAIM}})

COVERAGE_SCHEMA = json_object(
    {
        "verdicts": {
            "type": "array",
            "items": json_object(
                {
                    "question": {"type": "string"},
                    "answered": {"type": "boolean"},
                    "reason": {"type": "string"},
                }
            ),
        }
    }
)

REASON_SCHEMA = json_object({"reason": {"type": "string"}})

"""Baselines: scorers with no judgement at all, the floor a judge must beat.

Each is a registered scorer, so it runs under ``run_evals``, ``meta_evaluate`` (``task=`` its
id), ``compare_judges`` (beside the judges of its layout) and the ``PromptTuner`` (as the
reference figure of each part):

- ``naive-overlap`` (summaries): the content-word-overlap heuristic of the benchmarks' README.
  Alignment is the content-word precision of the summary's weakest sentence against the
  source; coverage is the recall of the source's first four sentences' content words by the
  summary (lower-cased words, stop words removed); the score is the lower of the two, as the
  summarization scorer's.
- ``summary-length`` (summaries): the summary's length in words. A judge that agrees with
  people no better than length does has learnt length.
- ``token-f1`` (answers): the token F1 of the answer against the ground truth (SQuAD's
  normalisation: lower case, punctuation and the articles a, an, the removed), the best
  over a list of ground truths.
- ``rouge`` (summaries): ROUGE-1, ROUGE-2 and ROUGE-L F-measures from Google's
  ``rouge-score`` package (Porter stemming on), against the ground truth when the item has
  one (the best over a list), else against the source; the score is ROUGE-L.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..errors import InputError
from ..records.messages import input_text, output_text
from ._base import Scorer, StepTrace, check_scale, merge_options
from ._language._text import STOPWORDS
from ._steps import Sample, Score

__all__ = [
    "NaiveOverlapScorer",
    "RougeScorer",
    "SummaryLengthScorer",
    "TokenF1Scorer",
    "create_naive_overlap_scorer",
    "create_rouge_scorer",
    "create_summary_length_scorer",
    "create_token_f1_scorer",
    "naive_alignment",
    "naive_coverage",
    "token_f1",
]

#: How many of the source's sentences the naive coverage reads (the lead of a news article).
LEAD_SENTENCES: Final = 4
ROUGE_TYPES: Final = ("rouge1", "rouge2", "rougeL")
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _content_words(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in STOPWORDS]


def _sentences(text: str) -> list[str]:
    return [piece for piece in _SENTENCE_END.split(text) if piece.strip()]


def naive_alignment(source: str, summary: str) -> float:
    """Content-word precision of the summary's weakest sentence against the source.

    Example:
        >>> naive_alignment("The bridge closed for repairs.", "The bridge closed. It fell.")
        0.0
    """
    vocabulary = set(_content_words(source))
    shares = [
        sum(word in vocabulary for word in words) / len(words)
        for words in map(_content_words, _sentences(summary))
        if words
    ]
    return min(shares) if shares else 0.0


def naive_coverage(source: str, summary: str) -> float:
    """Recall of the source's first four sentences' content words by the summary.

    Example:
        >>> naive_coverage("The bridge closed for repairs. It reopens in May.", "Bridge closed.")
        0.5
    """
    lead = {
        word
        for sentence in _sentences(source)[:LEAD_SENTENCES]
        for word in _content_words(sentence)
    }
    return len(lead & set(_content_words(summary))) / len(lead) if lead else 0.0


def _source_text(item: Sample) -> str:
    """The source as the summarization scorer reads it: a ``source`` field, else the input."""
    given = item.fields.get("source")
    if given is not None:
        if not isinstance(given, str):
            raise InputError(
                f"field 'source' is {type(given).__name__}, not a string",
                field="source",
                item_id=item.item_id,
            )
        return given
    return input_text(item.input, field="input", item_id=item.item_id)


def _ground_truths(item: Sample) -> list[str]:
    """The item's ground truths as texts: one, or each of a list of them."""
    truth = item.ground_truth
    values = truth if isinstance(truth, list | tuple) and not _is_messages(truth) else [truth]
    return [
        output_text(value, field="ground_truth", item_id=item.item_id)
        for value in values
        if value is not None
    ]


def _is_messages(value: Sequence[Any]) -> bool:
    return bool(value) and all(isinstance(entry, Mapping) for entry in value)


class NaiveOverlapScorer(Scorer):
    """The naive content-word-overlap baseline of summaries (see the module docstring)."""

    id = "naive-overlap"
    description = "content-word overlap: weakest summary sentence's precision, lead recall"

    def __init__(self, *, scale: float = 1.0) -> None:
        self.scale = check_scale(scale)

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        source = _source_text(item)
        summary = output_text(item.output, field="output", item_id=item.item_id)
        trace.step = "overlap"
        alignment = naive_alignment(source, summary)
        coverage = naive_coverage(source, summary)
        decided_by = "alignment" if alignment <= coverage else "coverage"
        details = {
            "alignment_score": alignment,
            "coverage_score": coverage,
            "decided_by": decided_by,
        }
        reason = (
            f"Naive overlap: the weakest summary sentence has {alignment:.0%} of its content "
            f"words in the source (alignment); the summary has {coverage:.0%} of the content "
            f"words of the source's first {LEAD_SENTENCES} sentences (coverage); {decided_by} "
            "decided."
        )
        return Score(min(alignment, coverage) * self.scale, reason=reason, details=details)


class SummaryLengthScorer(Scorer):
    """The summary's length in words: the baseline a judge must not merely echo."""

    id = "summary-length"
    description = "the summary's length in words"

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        summary = output_text(item.output, field="output", item_id=item.item_id)
        trace.step = "length"
        words = len(summary.split())
        details = {"words": words, "sentences": len(_sentences(summary))}
        return Score(float(words), reason=f"{words} words.", details=details)


def _answer_tokens(text: str) -> list[str]:
    lowered = text.lower().translate(_PUNCTUATION)
    return _ARTICLES.sub(" ", lowered).split()


def token_f1(answer: str, truth: str) -> float:
    """SQuAD's token F1 of an answer against one ground truth.

    Example:
        >>> round(token_f1("The Eiffel Tower", "Eiffel tower in Paris"), 3)
        0.667
    """
    predicted, expected = _answer_tokens(answer), _answer_tokens(truth)
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


class TokenF1Scorer(Scorer):
    """Token F1 of an answer against its ground truth (the best over a list)."""

    id = "token-f1"
    description = "SQuAD token F1 against the ground truth, the best over several"

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        answer = output_text(item.output, field="output", item_id=item.item_id)
        truths = _ground_truths(item)
        if not truths:
            raise InputError(
                "token F1 needs a ground truth; give the item one",
                field="ground_truth",
                item_id=item.item_id,
            )
        trace.step = "overlap"
        values = [token_f1(answer, truth) for truth in truths]
        best = max(range(len(values)), key=values.__getitem__)
        details = {"best_ground_truth": truths[best], "f1_per_ground_truth": values}
        reason = f"Token F1 {values[best]:.3f} against {truths[best]!r}."
        return Score(values[best], reason=reason, details=details)


class RougeScorer(Scorer):
    """ROUGE-1, ROUGE-2 and ROUGE-L from ``rouge-score`` (see the module docstring)."""

    id = "rouge"
    description = "ROUGE-1/2/L F-measures (rouge-score), against the ground truth or the source"

    def __init__(self, *, score: str = "rougeL", stemmer: bool = True) -> None:
        if score not in ROUGE_TYPES:
            from ..errors import ConfigurationError

            raise ConfigurationError(
                f"rouge: score must be one of {', '.join(ROUGE_TYPES)}, got {score!r}"
            )
        self.score_type = score
        self.stemmer = bool(stemmer)
        self._rouge: Any = None

    def _scorer(self) -> Any:
        if self._rouge is None:  # rouge-score imports nltk: only when first used
            from rouge_score import rouge_scorer

            self._rouge = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=self.stemmer)
        return self._rouge

    async def _score(self, item: Sample, trace: StepTrace) -> Score:
        summary = output_text(item.output, field="output", item_id=item.item_id)
        truths = _ground_truths(item)
        against = "ground_truth" if truths else "source"
        references = truths or [_source_text(item)]
        trace.step = "rouge"
        scores = self._scorer().score_multi(references, summary)
        details: dict[str, Any] = {
            f"{name}_score": float(scores[name].fmeasure) for name in ROUGE_TYPES
        }
        details |= {
            f"{name}_{part}": float(getattr(scores[name], part))
            for name in ROUGE_TYPES
            for part in ("precision", "recall")
        }
        details["reference"] = against
        value = details[f"{self.score_type}_score"]
        reason = (
            f"Against the {against.replace('_', ' ')}: ROUGE-1 {details['rouge1_score']:.3f}, "
            f"ROUGE-2 {details['rouge2_score']:.3f}, ROUGE-L {details['rougeL_score']:.3f} "
            "(F-measures)."
        )
        return Score(value, reason=reason, details=details)


def create_naive_overlap_scorer(
    *, scale: float = 1.0, options: Mapping[str, Any] | None = None
) -> NaiveOverlapScorer:
    """Create the naive content-word-overlap baseline (id ``"naive-overlap"``).

    Args:
        scale: Multiplier of the final score (default 1).
        options: Reference-style options dict; its entries win.

    Example:
        >>> scorer = create_naive_overlap_scorer()
        >>> result = scorer.run(input="The bridge closed for repairs.", output="The bridge closed.")
        >>> result.details["alignment_score"], result.details["coverage_score"]
        (1.0, 0.6666666666666666)
    """
    return NaiveOverlapScorer(**merge_options({"scale": scale}, options, scorer="naive-overlap"))


def create_summary_length_scorer() -> SummaryLengthScorer:
    """Create the summary-length baseline (id ``"summary-length"``): words in the summary.

    Example:
        >>> create_summary_length_scorer().run(input="source", output="Three short words.").score
        3.0
    """
    return SummaryLengthScorer()


def create_token_f1_scorer() -> TokenF1Scorer:
    """Create the token-F1 baseline of answers (id ``"token-f1"``).

    Example:
        >>> scorer = create_token_f1_scorer()
        >>> scorer.run(input="q", output="Paris", ground_truth=["Lyon", "paris"]).score
        1.0
    """
    return TokenF1Scorer()


def create_rouge_scorer(
    *, score: str = "rougeL", stemmer: bool = True, options: Mapping[str, Any] | None = None
) -> RougeScorer:
    """Create the ROUGE baseline (id ``"rouge"``), from the ``rouge-score`` package.

    Args:
        score: Which F-measure is the score: ``"rouge1"``, ``"rouge2"`` or ``"rougeL"``.
        stemmer: Porter stemming, as the ROUGE papers and rouge-score's default use.
        options: Reference-style options dict; its entries win.

    Example:
        >>> scorer = create_rouge_scorer()
        >>> result = scorer.run(input="q", output="the cat sat", ground_truth="the cat sat down")
        >>> round(result.details["rouge1_score"], 3), result.details["reference"]
        (0.857, 'ground_truth')
    """
    merged = merge_options({"score": score, "stemmer": stemmer}, options, scorer="rouge")
    return RougeScorer(**merged)

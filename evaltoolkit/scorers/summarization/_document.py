"""Texts analysed once for the summarization steps: pieces of text and source documents."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .._language import _text
from .._language._memo import memoized_property
from .._language._text import Token, is_light_word, split_clauses, split_sentences, tokenize

EXCERPT_CHARS = 160
_BE_FORMS = frozenset({"is", "are", "was", "were", "be", "been", "being"})
# Derivational endings that turn a verb into a noun ("erupt" -> "eruption").
_NOUN_ENDINGS = ("ation", "ition", "ment", "ion")
# Punctuation that sets off an aside inside a sentence: ", who led the project ,", "( file photo )".
ASIDE_BREAK_RE = re.compile(r",|\(|\)|\[|\]|--|\s-\s|;|:")


def detokenize(text: str) -> str:
    """Undo the spacing of pre-tokenized text so that quotes read naturally.

    Args:
        text: Text such as "he did n't say , yes ."

    Returns:
        The text without the spaces before punctuation and contractions.
    """
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r"\s+([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$])\s+", r"\1", text)
    text = re.sub(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """Shorten text to at most ``limit`` characters at a word boundary.

    Args:
        text: The text to quote.
        limit: The most characters to keep.

    Returns:
        The (possibly shortened) text, with "..." where it was cut.
    """
    text = detokenize(text)
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "..."


@dataclass(frozen=True)
class TextUnit:
    """A piece of text (a sentence, a clause, a window of sentences) with its tokens.

    Attributes:
        text: The text as written.
        tokens: Its tokens.
        stems: The stems of its content words.
    """

    text: str
    tokens: tuple[Token, ...]
    stems: frozenset[str]

    @staticmethod
    def of(text: str) -> TextUnit:
        """Analyse a text.

        Args:
            text: Any text.

        Returns:
            The text with its tokens and content stems.
        """
        tokens = tokenize(text)
        return TextUnit(text, tokens, frozenset(token.stem for token in tokens if token.is_content))

    @staticmethod
    def joined(units: tuple[TextUnit, ...] | list[TextUnit]) -> TextUnit:
        """One unit for several consecutive ones (a window of sentences).

        Args:
            units: The units, in order.

        Returns:
            A unit whose text and tokens are theirs, in order.
        """
        if len(units) == 1:
            return units[0]
        return TextUnit(
            " ".join(unit.text for unit in units),
            tuple(token for unit in units for token in unit.tokens),
            frozenset().union(*(unit.stems for unit in units)),
        )

    @memoized_property
    def content_counts(self) -> Counter[str]:
        """How many times each content stem occurs."""
        return Counter(token.stem for token in self.tokens if token.is_content)

    @memoized_property
    def clauses(self) -> tuple[TextUnit, ...]:
        """Its clauses, cut at every clause break (see :func:`split_clauses`)."""
        return tuple(TextUnit.of(clause) for clause in split_clauses(self.text, min_content=0))

    @memoized_property
    def values(self) -> frozenset[str]:
        """Its numbers and the days of its dates, in canonical form ("240000000", "#1")."""
        return frozenset(
            token.norm for token in self.tokens if token.is_number or token.is_date_day
        )

    @memoized_property
    def phrases(self) -> tuple[tuple[str, int], ...]:
        """Its content stems in order, each with the number of the comma-delimited part it is in.

        Two words in different parts may still belong together when only an aside lies between
        them ("Okafor , who led the project , said"): see :func:`words_apart`.
        """
        found: list[tuple[str, int]] = []
        part, previous_end = 0, 0
        for token in self.tokens:
            if ASIDE_BREAK_RE.search(self.text, previous_end, token.start):
                part += 1
            previous_end = token.end
            if token.is_content:
                found.append((token.stem, part))
        return tuple(found)

    @memoized_property
    def phrase_light(self) -> tuple[bool, ...]:
        """For each of its content words (as in :attr:`phrases`), whether it is a verb or adverb."""
        light = self.light_positions
        return tuple(i in light for i, token in enumerate(self.tokens) if token.is_content)

    @memoized_property
    def norm_text(self) -> str:
        """Its tokens' canonical forms, each between spaces: to find a run of its words."""
        return " " + " ".join(token.norm for token in self.tokens) + " "

    def has_run(self, tokens: tuple[Token, ...]) -> bool:
        """Whether the text has these words one after the other (in canonical form)."""
        return " " + " ".join(token.norm for token in tokens) + " " in self.norm_text

    @memoized_property
    def passive(self) -> tuple[bool, ...]:
        """For each of its content words (as in :attr:`phrases`), whether it may be a passive
        verb: after a form of "be" ("was raised") or before "by" ("led by")."""
        tokens = self.tokens
        return tuple(
            (index > 0 and tokens[index - 1].norm in _BE_FORMS)
            or (index + 1 < len(tokens) and tokens[index + 1].norm == "by")
            for index, token in enumerate(tokens)
            if token.is_content
        )

    @memoized_property
    def light_positions(self) -> frozenset[int]:
        """Positions of its verbs and adverbs (see :func:`is_light_word`)."""
        return frozenset(i for i in range(len(self.tokens)) if is_light_word(self.tokens, i))


def words_apart(phrases: tuple[tuple[str, int], ...], first: int, second: int) -> int:
    """How many words apart two content words of a sentence are, not counting an aside.

    Words in comma-delimited parts other than the two words' own parts ("Okafor , who led the
    project , said") are an aside between them and do not count.

    Args:
        phrases: A sentence's :attr:`TextUnit.phrases`.
        first: The position of the first word in ``phrases``.
        second: The position of the second word, after the first.

    Returns:
        1 for adjacent words, one more for each word between them outside an aside.

    Example:
        >>> phrases = TextUnit.of("Okafor, who led the project, said no.").phrases
        >>> words_apart(phrases, 0, 3)
        1
    """
    parts = {phrases[first][1], phrases[second][1]}
    return 1 + sum(1 for index in range(first + 1, second) if phrases[index][1] in parts)


def verbs_between(unit: TextUnit, first: int, second: int) -> int:
    """How many verbs or adverbs lie between two content words of a sentence, outside an aside.

    Args:
        unit: A sentence.
        first: The position of the first word in its :attr:`TextUnit.phrases`.
        second: The position of the second word, after the first.

    Returns:
        0 when no verb or adverb stands between them.

    Example:
        >>> unit = TextUnit.of("Games involving Nimes were investigated after Conrad was arrested.")
        >>> verbs_between(unit, 2, 5), verbs_between(unit, 4, 5)
        (1, 0)
    """
    phrases, light = unit.phrases, unit.phrase_light
    parts = {phrases[first][1], phrases[second][1]}
    return sum(
        1 for index in range(first + 1, second) if light[index] and phrases[index][1] in parts
    )


def is_negated(unit: TextUnit) -> bool:
    """Whether a piece of text contains a negation ("No 1" as a rank does not count).

    Args:
        unit: Any piece of text.

    Returns:
        Whether one of its words negates.

    Example:
        >>> is_negated(TextUnit.of("He did n't win.")), is_negated(TextUnit.of("He is No 1."))
        (True, False)
    """
    tokens = unit.tokens
    for index, token in enumerate(tokens):
        if not token.is_negation:
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.norm == "no" and following is not None and following.is_number:
            continue
        return True
    return False


def base_stem(stem: str) -> str:
    """The stem without a noun-forming ending, so that "eruption" meets "erupt".

    Args:
        stem: A stem.

    Returns:
        The stem less "-ation", "-ition", "-ment" or "-ion" when more than
        ``MIN_STEM_LETTERS`` letters remain.
    """
    for ending in _NOUN_ENDINGS:
        if stem.endswith(ending) and len(stem) - len(ending) > _text.MIN_STEM_LETTERS:
            return stem[: -len(ending)]
    return stem


@dataclass(frozen=True)
class SourceDocument:
    """A source document analysed once: its sentences, word weights and names.

    Attributes:
        sentences: Its sentences.
        names: Stems it always writes capitalised (inside a sentence): names.
        idf: Inverse sentence frequency of each stem, ``log(1 + sentences / frequency)``.
        all_stems: Every content stem it uses.
        sentence_frequency: How many sentences use each stem.
        context: For each sentence, what it may refer to without naming it: the names and
            nouns of the lead sentence, which sets the topic ("the researchers" of "a study").
            A sentence that names someone speaks of them, not of the lead's names.
        postings: For each content stem, the indices of the sentences that use it.
    """

    sentences: tuple[TextUnit, ...]
    all_stems: frozenset[str]
    names: frozenset[str]
    idf: dict[str, float]
    sentence_frequency: dict[str, int]
    context: tuple[frozenset[str], ...]
    postings: dict[str, tuple[int, ...]]

    @memoized_property
    def _negated_by_base(self) -> dict[str, tuple[int, ...]]:
        found: dict[str, list[int]] = {}
        for index, sentence in enumerate(self.sentences):
            if is_negated(sentence):
                for stem in sorted({base_stem(stem) for stem in sentence.stems}):
                    found.setdefault(stem, []).append(index)
        return {stem: tuple(indices) for stem, indices in found.items()}

    @memoized_property
    def _posting_sets(self) -> dict[str, frozenset[int]]:
        return {}

    def posting_set(self, stem: str) -> frozenset[int]:
        """The indices of the sentences that use a content stem, as a set (built on demand).

        Args:
            stem: A content stem.

        Returns:
            The indices.
        """
        found = self._posting_sets.get(stem)
        if found is None:
            found = self._posting_sets[stem] = frozenset(self.postings.get(stem, ()))
        return found

    def negated_postings(self, stem: str) -> tuple[int, ...]:
        """The sentences with a negation that use a word of this base stem ("erupt").

        Args:
            stem: A base stem (see :func:`base_stem`).

        Returns:
            Their indices, in order.
        """
        return self._negated_by_base.get(stem, ())

    def weight(self, stem: str) -> float:
        """How specific a word is to this document (a word it never uses: the most)."""
        return self.idf.get(stem, math.log(1.0 + len(self.sentences)))

    def centrality(self, unit: TextUnit) -> float:
        """Mean log number of the document's sentences that repeat each content word of a unit.

        Args:
            unit: A piece of the document.

        Returns:
            0 for a unit whose words occur once; more the more its words recur.
        """
        if not unit.stems:
            return 0.0
        logs = [math.log(self.sentence_frequency.get(stem, 1)) for stem in sorted(unit.stems)]
        return math.fsum(logs) / len(logs)


def _names(sentences: tuple[TextUnit, ...]) -> frozenset[str]:
    """Stems written capitalised inside a sentence and never in lower case: names."""
    capitalised: set[str] = set()
    lower: set[str] = set()
    for sentence in sentences:
        for position, token in enumerate(sentence.tokens):
            if not token.is_content or token.is_number or token.is_ordinal:
                continue
            if not token.capitalized:
                lower.add(token.stem)
            elif position > 0:
                capitalised.add(token.stem)
    return frozenset(capitalised - lower)


def _topic(lead: TextUnit) -> frozenset[str]:
    """The names and nouns of a lead sentence: what the rest of the document is about."""
    return frozenset(
        token.stem
        for index, token in enumerate(lead.tokens)
        if token.is_content
        and not (token.is_number or token.is_ordinal)
        and index not in lead.light_positions
    )


@lru_cache(maxsize=8)
def analyse_source(source: str) -> SourceDocument:
    """Analyse a source document (cached: every summary of a document shares it).

    Args:
        source: The source text.

    Returns:
        The analysed document.
    """
    sentences = tuple(TextUnit.of(sentence) for sentence in split_sentences(source))
    frequency: Counter[str] = Counter()
    postings: dict[str, list[int]] = {}
    for index, sentence in enumerate(sentences):
        frequency.update(sorted(sentence.stems))
        for stem in sentence.stems:
            postings.setdefault(stem, []).append(index)
    count = len(sentences)
    names = _names(sentences)
    topic = _topic(sentences[0]) if sentences else frozenset()
    # A sentence that names someone speaks of them, not of the lead's names.
    context = tuple(topic - names if sentence.stems & names else topic for sentence in sentences)
    return SourceDocument(
        sentences=sentences,
        all_stems=frozenset(frequency),
        names=names,
        idf={stem: math.log(1.0 + count / df) for stem, df in frequency.items()},
        sentence_frequency=dict(frequency),
        context=context,
        postings={stem: tuple(found) for stem, found in postings.items()},
    )

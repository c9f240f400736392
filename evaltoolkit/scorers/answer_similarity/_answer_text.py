"""Text helpers of the offline answer-similarity judge, each linear in the length of its text.

- :func:`clauses_with_words` gives the clauses ``_text.split_clauses`` gives, each with
  whether it holds a word, in time linear in the text (``split_clauses`` copies a clause again
  each time a short piece is glued onto it, quadratic on a page of one-word list items).
- :func:`text_tokens` tokenizes without keeping long texts alive in the shared token cache.
- :func:`cap_unit` cuts a run-on unit into pieces of at most :data:`MAX_UNIT_WORDS` words
  and :data:`MAX_UNIT_CHARS` characters.
- :class:`NormalisedUnit` is a unit in the form the analysis compares: its tokens without
  articles, unless the articles are all there is ("A", "The") or they are labels ("option A",
  "A) Paris"); a unit without any word ("-", "?", an emoji) keeps its symbols as tokens, so
  normalisation never empties a non-empty unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._language._memo import memoized_property
from .._language._text import (
    HEDGES,
    NUMBER_RE,
    STOPWORDS,
    Token,
    clause_pieces,
    clean_clause,
    tokenize,
)

ARTICLES = frozenset({"a", "an", "the"})

#: The most words a semantic unit holds. A clause is one fact, and ordinary sentences stay
#: well under this length; a run of text without sentence or clause punctuation (a transcript,
#: a list of words) is cut into units of this many words so that comparing two units costs a
#: bounded amount whatever the length of the text.
MAX_UNIT_WORDS = 40
#: The most characters a semantic unit holds: 40 long words. Only a run without spaces (a URL,
#: an encoded blob, a line of symbols) is longer, and it is cut into pieces of this length.
MAX_UNIT_CHARS = 1_000

# Texts up to this long go through the shared, size-bounded token cache (units, passages and
# short answers repeat across items); longer ones are tokenized without it, so that a long
# text's tokens are freed with it.
_CACHED_TEXT_CHARS = 2_000
# An article-like word directly followed by one of these (or by nothing) introduces no noun
# phrase: it is a label such as a multiple-choice letter ("A.", "A)", "option A").
_LABEL_FOLLOWERS = frozenset(".,;:!?)]}'\"\u2019\u201d")
_NEXT_CHARACTER_RE = re.compile(r"\s*(\S?)")


def text_tokens(text: str) -> tuple[Token, ...]:
    """Tokenize a text, through the shared token cache only when it is short.

    Args:
        text: Any text.

    Returns:
        The same tokens as ``_text.tokenize``.

    Example:
        >>> [token.norm for token in text_tokens("Two hundred people")]
        ['200', 'people']
    """
    if len(text) <= _CACHED_TEXT_CHARS:
        return tokenize(text)
    return tokenize.__wrapped__(text)


def is_content(token: Token) -> bool:
    """``token.is_content``, looked up by the token's canonical form.

    Computed from the canonical form, as ``Token`` does, without filling the token's cached
    properties: on a long text that bookkeeping costs more than the rest of the analysis.

    Args:
        token: A token.

    Returns:
        Whether it carries content (a number, an ordinal or a non-function word).

    Example:
        >>> [is_content(t) for t in text_tokens("the third cat")]
        [False, True, True]
    """
    norm = token.norm
    return norm not in STOPWORDS or norm.startswith("#") or NUMBER_RE.fullmatch(norm) is not None


def is_value(token: Token) -> bool:
    """Whether a token is a number or an ordinal (``token.is_number or token.is_ordinal``).

    Args:
        token: A token.

    Returns:
        Whether it states a value.

    Example:
        >>> [is_value(t) for t in text_tokens("the third of 12 cats")]
        [False, True, False, True, False]
    """
    norm = token.norm
    return norm.startswith("#") or NUMBER_RE.fullmatch(norm) is not None


def content_count(text: str) -> int:
    """The number of content words (numbers, ordinals, non-function words) of a text.

    Args:
        text: Any text.

    Returns:
        How many of its tokens carry content.

    Example:
        >>> content_count("the cat sat on the mat")
        3
    """
    return sum(map(is_content, text_tokens(text)))


def fold(text: str) -> str:
    """A text with case and whitespace folded: the form in which two answers are identical.

    Args:
        text: Any text.

    Returns:
        The case-folded text with runs of whitespace turned into one space.

    Example:
        >>> fold("  The   ANSWER ")
        'the answer'
    """
    return " ".join(text.casefold().split())


def clauses_with_words(sentence: str) -> list[tuple[str, bool]]:
    """The clauses of a sentence, cut at every clause break (see ``_text.clause_pieces``), each
    with whether it has any word token.

    Args:
        sentence: One sentence.

    Returns:
        ``(clause, has_words)`` pairs in order.

    Example:
        >>> clauses_with_words("Paris; *; and Rome")
        [('Paris', True), ('*', False), ('and Rome', True)]
    """
    cleaned = (clean_clause(piece) for piece in clause_pieces(sentence))
    return [(clause, bool(text_tokens(clause))) for clause in cleaned if clause]


def cap_unit(
    unit: str, max_words: int = MAX_UNIT_WORDS, max_chars: int = MAX_UNIT_CHARS
) -> list[str]:
    """Cut a unit into consecutive pieces of at most ``max_words`` words and ``max_chars``.

    Args:
        unit: A unit of text, its words separated by single spaces.
        max_words: The most words a piece may hold.
        max_chars: The most characters a piece may hold (a "word" longer than that, such as
            a URL or an encoded blob, is cut too).

    Returns:
        The unit itself when it is short enough, else its pieces in order.

    Example:
        >>> cap_unit("one two three four five", 2)
        ['one two', 'three four', 'five']
        >>> cap_unit("abcdefgh", max_chars=3)
        ['abc', 'def', 'gh']
    """
    words = unit.split()
    if len(words) <= max_words and len(unit) <= max_chars:
        return [unit]
    pieces = [" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words)]
    return [piece[i : i + max_chars] for piece in pieces for i in range(0, len(piece), max_chars)]


def _is_article(tokens: tuple[Token, ...], index: int, text: str) -> bool:
    """Whether a token is an article: "a", "an" or "the" followed by the words it introduces."""
    token = tokens[index]
    if token.norm not in ARTICLES:
        return False
    following = _NEXT_CHARACTER_RE.match(text, token.end)
    next_character = following.group(1) if following else ""
    return bool(next_character) and next_character not in _LABEL_FOLLOWERS


def _symbol_tokens(text: str) -> tuple[Token, ...]:
    """The whitespace-separated chunks of a text without words ("-", "?!", an emoji)."""
    tokens: list[Token] = []
    position = 0
    for chunk in text.split():
        start = text.index(chunk, position)
        position = start + len(chunk)
        folded = chunk.casefold()
        tokens.append(Token(chunk, folded, folded, start, position, False))
    return tuple(tokens)


@dataclass(frozen=True)
class NormalisedUnit:
    """A unit in normalised form: its tokens without articles, hedges kept.

    Attributes:
        text: The unit as written.
        tokens: Its tokens without articles; all its tokens when they are only articles ("A",
            "The"); its symbols when it has no word at all ("-", "?").
    """

    text: str
    tokens: tuple[Token, ...]

    @staticmethod
    def of(text: str) -> NormalisedUnit:
        """Normalise a unit of text.

        Args:
            text: A unit.

        Returns:
            The unit in normalised form, with tokens whenever the text is not blank.

        Example:
            >>> [t.norm for t in NormalisedUnit.of("The answer is A.").tokens]
            ['answer', 'is', 'a']
        """
        every = text_tokens(text)
        kept = tuple(
            token for index, token in enumerate(every) if not _is_article(every, index, text)
        )
        return NormalisedUnit(text, kept or every or _symbol_tokens(text))

    @memoized_property
    def stems(self) -> list[str]:
        """The stems of the tokens, in order."""
        return [token.stem for token in self.tokens]

    @memoized_property
    def stem_text(self) -> str:
        """The stems between single spaces, with a space at each end: a run of words
        occurs in the unit when its ``stem_text`` is a substring of this one."""
        return f" {' '.join(self.stems)} "

    @memoized_property
    def stem_set(self) -> frozenset[str]:
        """The distinct stems."""
        return frozenset(self.stems)

    @memoized_property
    def initials(self) -> frozenset[str]:
        """Single capital letters of the unit ("J" in "J. Smith"), lower-cased."""
        return frozenset(t.norm for t in self.tokens if len(t.norm) == 1 and t.capitalized)

    @memoized_property
    def key_tokens(self) -> list[Token]:
        """Content tokens without hedges: the words that say what the answer is."""
        return [t for t in self.tokens if is_content(t) and t.norm not in HEDGES]

    @memoized_property
    def flat(self) -> str:
        """The stems without hedges, joined by spaces: the form compared by characters."""
        return " ".join(token.stem for token in self.tokens if token.norm not in HEDGES)

    @memoized_property
    def folded(self) -> str:
        """The text with case and whitespace folded (see :func:`fold`)."""
        return fold(self.text)

    @memoized_property
    def number_set(self) -> frozenset[str]:
        """The numbers and ordinals of the unit, in canonical form."""
        return frozenset(t.norm for t in self.tokens if is_value(t))

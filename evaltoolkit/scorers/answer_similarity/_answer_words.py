"""Word lookup for the offline answer-similarity judge, without pairwise scans.

The analysis asks, for a word of the ground truth, which words of the output name the same
thing: the same stem, or a longer form that begins with it ("revolution" / "revolutionary",
"Bennet" / "Bennett"). Comparing the word with every word of the output costs the product of
the two vocabularies. Instead the distinct output words are sorted, so that the words a query
begins with, and those that begin with it, are a few look-ups (blocking, as in record
linkage). Words shorter than ``BLOCKING_LENGTH`` letters, and runs of more than
``LONGEST_BLOCKED_WORD``, match only when equal.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable

#: Words shorter than this are matched only when equal (the matcher's ``FUZZY_WORD_LENGTH``
#: is this length).
BLOCKING_LENGTH = 5
#: Words longer than this are matched only when equal: no dictionary word is this long, and a
#: run of letters that is (a hash, a squashed URL) would cost the square of its length.
LONGEST_BLOCKED_WORD = 40

# Sorts after every character of a word: the end of the range of words with a given start.
_AFTER_ALL = "\U0010ffff"


def _starting_with(ordered: list[str], start: str) -> list[str]:
    """The words of a sorted list that start with ``start``."""
    return ordered[bisect_left(ordered, start) : bisect_left(ordered, start + _AFTER_ALL)]


class WordIndex:
    """The distinct words of a text, indexed for typo-tolerant look-up (see the module docstring).

    Args:
        words: The words (stems) of the text, repeats allowed.
        same_word: Whether two stems name the same thing; it decides every match, the index
            only chooses which pairs to compare.

    Example:
        >>> index = WordIndex(["bennet", "smith", "1960"], lambda a, b: a[:4] == b[:4])
        >>> sorted(index.matching("bennett"))
        ['bennet']
        >>> sorted(index.matching("1960"))
        ['1960']
    """

    def __init__(self, words: Iterable[str], same_word: Callable[[str, str], bool]) -> None:
        self._vocabulary = frozenset(words)
        self._same_word = same_word
        self._sorted = sorted(word for word in self._vocabulary if self._blockable(word))
        self._matching: dict[str, frozenset[str]] = {}

    def __len__(self) -> int:
        return len(self._vocabulary)

    def __contains__(self, word: object) -> bool:
        return word in self._vocabulary

    @staticmethod
    def _blockable(word: str) -> bool:
        return BLOCKING_LENGTH <= len(word) <= LONGEST_BLOCKED_WORD and word.isalpha()

    def candidates(self, word: str) -> set[str]:
        """The words of the index that are compared with ``word`` (itself excluded).

        Args:
            word: A stem.

        Returns:
            The indexed stems that begin with it, and those of at least
            :data:`BLOCKING_LENGTH` letters it begins with.

        Example:
            >>> index = WordIndex(["waylon", "waylons", "wayl", "bywaylon"], str.__eq__)
            >>> sorted(index.candidates("waylon"))
            ['waylons']
        """
        if not self._blockable(word):
            return set()
        found = set(_starting_with(self._sorted, word))
        found.update(
            word[:size]
            for size in range(BLOCKING_LENGTH, len(word))
            if word[:size] in self._vocabulary
        )
        found.discard(word)
        return found

    def matching(self, word: str) -> frozenset[str]:
        """The words of the index that name the same thing as ``word``.

        Args:
            word: A stem.

        Returns:
            ``word`` itself when indexed, and every candidate that ``same_word`` accepts.

        Example:
            >>> index = WordIndex(["india", "indian", "indonesia"], lambda a, b: True)
            >>> sorted(index.matching("india"))
            ['india', 'indian']
        """
        known = self._matching.get(word)
        if known is None:
            found = {other for other in self.candidates(word) if self._same_word(word, other)}
            if word in self._vocabulary:
                found.add(word)
            known = self._matching[word] = frozenset(found)
        return known

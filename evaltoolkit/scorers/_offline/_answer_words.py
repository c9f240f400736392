"""Typo-tolerant word lookup for the offline answer-similarity judge, without pairwise scans.

The analysis asks, for a word of the ground truth, which words of the output name the same
thing: the same stem, an inflection ("revolution" / "revolutionary"), a misspelling
("Bennett" / "Bennet") or the word glued to another ("Waylon" / "byWaylon"). Comparing the
word with every word of the output costs the product of the two vocabularies. Instead the
distinct output words are indexed so that only plausible spellings are compared (blocking,
as in record linkage):

- words that share the query's letters but for its last three, or but for its first three
  (at least five letters either way), and words of five letters or more that begin or end
  the query: inflections ("reproduction" / "reproductive"), truncations and glued words
  ("Waylon" / "byWaylon"), found as ranges of the words sorted forwards and backwards;
- words one edit away on each side (a letter substituted, added or dropped, two letters
  swapped): every word is filed under itself and under each of its one-letter deletions, and
  two such spellings share a key.

A query costs a number of look-ups proportional to its length, plus the few candidates it
finds. Two spellings that differ by two edits or more in their middle are not compared;
words shorter than five letters match only when equal, as before, and so do runs of more than
forty letters.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator

#: Words shorter than this are matched only when equal (no typo tolerance).
BLOCKING_LENGTH = 5
#: Words longer than this are matched only when equal: no dictionary word is this long, and a
#: run of letters that is (a hash, a squashed URL) would cost the square of its length.
LONGEST_BLOCKED_WORD = 40
#: How many letters at the end (or the start) of a word may differ between two forms of it
#: that share the rest: "-ion" / "-ive" ("reproduction" / "reproductive"), "by" + a name.
ENDING_LETTERS = 3

# Sorts after every character of a word: the end of the range of words with a given start.
_AFTER_ALL = "\U0010ffff"


def _deletions(word: str) -> Iterator[str]:
    """The word itself and the word with each one of its letters deleted."""
    yield word
    for index in range(len(word)):
        yield word[:index] + word[index + 1 :]


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
        blockable = sorted(word for word in self._vocabulary if self._blockable(word))
        self._forwards = blockable
        self._backwards = sorted(word[::-1] for word in blockable)
        # Most keys belong to one word: a list only where several share a key saves memory.
        by_deletion: dict[str, str | list[str]] = {}
        for word in blockable:
            for key in _deletions(word):
                found = by_deletion.setdefault(key, word)
                if isinstance(found, list):
                    found.append(word)
                elif found != word:
                    by_deletion[key] = [found, word]
        self._by_deletion = by_deletion
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
            The indexed stems one edit away on each side, those that share all its letters
            but the last or the first :data:`ENDING_LETTERS`, and those it begins or ends
            with.

        Example:
            >>> index = WordIndex(["waylon", "bywaylon", "waylen", "wilson"], str.__eq__)
            >>> sorted(index.candidates("waylon"))
            ['bywaylon', 'waylen']
        """
        if not self._blockable(word):
            return set()
        shared = max(BLOCKING_LENGTH, len(word) - ENDING_LETTERS)
        found = set(_starting_with(self._forwards, word[:shared]))
        found.update(
            reverse[::-1] for reverse in _starting_with(self._backwards, word[::-1][:shared])
        )
        for size in range(BLOCKING_LENGTH, shared):
            for part in (word[:size], word[-size:]):
                if part in self._vocabulary:
                    found.add(part)
        for key in _deletions(word):
            filed = self._by_deletion.get(key)
            if isinstance(filed, str):
                found.add(filed)
            elif filed is not None:
                found.update(filed)
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

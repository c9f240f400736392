"""The output side of the offline answer analysis, indexed so that each ground-truth unit costs
a bounded amount of work however long the output is.

A ground-truth unit used to be compared with every output unit, and once more with the whole
output joined: units x units comparisons, each of them words x words. Here:

- an inverted index maps each output word to the units that contain it, and
  :meth:`OutputIndex.candidates` ranks units by how many of a ground-truth unit's content
  words they contain (retrieval, then the full comparison on the best few, as a search
  engine re-ranks its top hits). Every unit is a candidate when the output has at most
  :data:`MAX_CANDIDATES` units, so short answers are compared exactly as before;
- an answer that straddles units ("... on July 25," / "2017") is looked for in a passage: the
  best unit with its neighbours, up to :data:`PASSAGE_WORDS` words. An output that short is
  its own passage, as the whole output was before.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .._language._text import Token
from ._answer_text import NormalisedUnit
from ._answer_words import WordIndex

#: The most output units a ground-truth unit is compared with: those holding the most of its
#: content words. A fact is stated in a few places of an answer, not in dozens; an output
#: of at most this many units (nearly every short or one-paragraph answer) is compared whole.
MAX_CANDIDATES = 8

#: The most words of a passage: a unit with its neighbours, about a paragraph. An answer that
#: straddles units is looked for in the passage around its best unit.
PASSAGE_WORDS = 120

#: The most postings (unit numbers) read to rank the candidates of one ground-truth unit,
#: rarest words first. A word found in hundreds of units of the output says little about
#: which unit states the ground truth; the words that do are read before the budget runs out.
RETRIEVAL_POSTINGS = 256


@dataclass(frozen=True)
class Spelling:
    """The ways an output may mention a ground-truth word.

    Attributes:
        stems: The word's stem and the output's spellings of it (typo-tolerant).
        initial: For a name, its initial ("j" for "John"), which a capital letter of the
            output also mentions; "" for other words.
    """

    stems: frozenset[str]
    initial: str

    def in_unit(self, unit: NormalisedUnit) -> bool:
        """Whether a unit mentions the word.

        Args:
            unit: An output unit or passage.

        Returns:
            True when the unit has one of the stems, or the initial as a capital letter.

        Example:
            >>> unit = NormalisedUnit.of("J. Smith")
            >>> Spelling(frozenset({"john"}), "j").in_unit(unit)
            True
        """
        return not self.stems.isdisjoint(unit.stem_set) or (
            bool(self.initial) and self.initial in unit.initials
        )


@dataclass(frozen=True)
class Candidates:
    """The output units a ground-truth unit is compared with.

    Attributes:
        indexes: Unit numbers in output order.
        best: The unit holding the most of the ground truth's content (the first unit when
            none holds any).
    """

    indexes: list[int]
    best: int


class OutputIndex:
    """An output's units with the indexes the analysis needs (see the module docstring).

    Args:
        texts: The output units as written.
        units: The same units, normalised.
        same_word: Whether two stems name the same thing (typo tolerance).

    Example:
        >>> texts = ["It was printed in Mainz", "by Johannes Gutenberg", "around 1439"]
        >>> index = OutputIndex(texts, [NormalisedUnit.of(t) for t in texts], str.__eq__)
        >>> key = NormalisedUnit.of("Gutenberg").key_tokens
        >>> index.candidates(key).best
        1
    """

    def __init__(
        self,
        texts: Sequence[str],
        units: Sequence[NormalisedUnit],
        same_word: Callable[[str, str], bool],
    ) -> None:
        self.texts = list(texts)
        self.units = list(units)
        self.words = WordIndex((stem for unit in units for stem in unit.stem_set), same_word)
        self._units_by_stem: dict[str, list[int]] = {}
        self._units_by_initial: dict[str, list[int]] = {}
        self._first_by_folded: dict[str, int] = {}
        for index, unit in enumerate(self.units):
            for stem in unit.stem_set:
                self._units_by_stem.setdefault(stem, []).append(index)
            for initial in unit.initials:
                self._units_by_initial.setdefault(initial, []).append(index)
            self._first_by_folded.setdefault(unit.folded, index)
        self._word_counts = [len(text.split()) for text in self.texts]
        self._spellings: dict[tuple[str, str], Spelling] = {}
        self._covering: dict[tuple[str, str], list[int]] = {}
        self._passages: dict[tuple[int, int], NormalisedUnit] = {}

    def __len__(self) -> int:
        return len(self.units)

    def identical(self, unit: NormalisedUnit) -> int | None:
        """The first output unit equal to ``unit`` after case and whitespace folding."""
        return self._first_by_folded.get(unit.folded)

    def spelling(self, token: Token) -> Spelling:
        """How the output may mention a ground-truth word (see :class:`Spelling`).

        Args:
            token: A word of the ground truth.

        Returns:
            Its stem with the output's spellings of it, and its initial when it is a name.

        Example:
            >>> texts = ["Dr. Jesse Bennet"]
            >>> index = OutputIndex(texts, [NormalisedUnit.of(t) for t in texts], str.__eq__)
            >>> sorted(index.spelling(NormalisedUnit.of("Bennett").tokens[0]).stems)
            ['bennett']
        """
        initial = (
            token.norm[0]
            if token.capitalized and not token.is_number and len(token.norm) > 1
            else ""
        )
        key = (token.stem, initial)
        found = self._spellings.get(key)
        if found is None:
            found = Spelling(self.words.matching(token.stem) | {token.stem}, initial)
            self._spellings[key] = found
        return found

    def covering(self, token: Token) -> list[int]:
        """The output units that mention a ground-truth word (see :class:`Spelling`), in order.

        Args:
            token: A word of the ground truth.

        Returns:
            Unit numbers in ascending order.

        Example:
            >>> texts = ["Paris is big", "Lyon is not", "Paris again"]
            >>> index = OutputIndex(texts, [NormalisedUnit.of(t) for t in texts], str.__eq__)
            >>> index.covering(NormalisedUnit.of("Paris").tokens[0])
            [0, 2]
        """
        spelling = self.spelling(token)
        key = (token.stem, spelling.initial)
        found = self._covering.get(key)
        if found is None:
            lists = [self._units_by_stem.get(stem, []) for stem in spelling.stems]
            if spelling.initial:
                lists.append(self._units_by_initial.get(spelling.initial, []))
            found = lists[0] if len(lists) == 1 else sorted(set().union(*lists))
            self._covering[key] = found
        return found

    def candidates(self, key_tokens: Sequence[Token]) -> Candidates:
        """The output units a ground-truth unit is compared with (see the module docstring).

        Units are ranked by how many of the ground-truth words they mention, reading the
        postings of the rarest words first and at most :data:`RETRIEVAL_POSTINGS` of them;
        ties, and units that mention none of the words, go in output order.

        Args:
            key_tokens: The ground-truth unit's content words.

        Returns:
            At most :data:`MAX_CANDIDATES` units, and the best of them.

        Example:
            >>> texts = [f"Unit number {n}" for n in range(40)] + ["Gutenberg printed it"]
            >>> index = OutputIndex(texts, [NormalisedUnit.of(t) for t in texts], str.__eq__)
            >>> key = NormalisedUnit.of("Gutenberg").key_tokens
            >>> found = index.candidates(key)
            >>> found.best, len(found.indexes)
            (40, 8)
        """
        postings = sorted((self.covering(token) for token in key_tokens), key=len)
        scores: dict[int, int] = {}
        budget = RETRIEVAL_POSTINGS
        for units in postings:
            if budget <= 0:
                break
            for index in units[:budget]:
                scores[index] = scores.get(index, 0) + 1
            budget -= len(units)
        ranked = heapq.nsmallest(
            MAX_CANDIDATES, [(-score, index) for index, score in scores.items()]
        )
        best = ranked[0][1] if ranked else 0
        chosen = {index for _, index in ranked}
        index = 0
        while len(chosen) < MAX_CANDIDATES and index < len(self.units):
            chosen.add(index)
            index += 1
        return Candidates(sorted(chosen), best)

    def passage(self, centre: int) -> tuple[int, NormalisedUnit]:
        """The passage around a unit: it and its neighbours, up to :data:`PASSAGE_WORDS` words.

        Args:
            centre: A unit number.

        Returns:
            The number of the passage's first unit, and the passage: the units' texts joined
            by spaces, and their tokens. An output of at most :data:`PASSAGE_WORDS` words is
            one passage.

        Example:
            >>> texts = ["on July 25", "2017"]
            >>> index = OutputIndex(texts, [NormalisedUnit.of(t) for t in texts], str.__eq__)
            >>> index.passage(1)[1].text
            'on July 25 2017'
        """
        counts = self._word_counts
        first = last = centre
        total = counts[centre]
        grown = True
        while grown:
            grown = False
            if first > 0 and total + counts[first - 1] <= PASSAGE_WORDS:
                first -= 1
                total += counts[first]
                grown = True
            if last + 1 < len(counts) and total + counts[last + 1] <= PASSAGE_WORDS:
                last += 1
                total += counts[last]
                grown = True
        if first == last:
            return first, self.units[first]
        passage = self._passages.get((first, last))
        if passage is None:
            passage = NormalisedUnit(
                " ".join(self.texts[first : last + 1]),
                tuple(token for unit in self.units[first : last + 1] for token in unit.tokens),
            )
            self._passages[(first, last)] = passage
        return first, passage

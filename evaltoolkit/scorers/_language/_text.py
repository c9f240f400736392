"""Text primitives shared by the offline judge: tokens, stems, numbers, sentences, clauses.

Every function here is pure and deterministic. Tokens are compared in a canonical form: lower
case, light suffix stemming, number words turned into digits ("four" -> "4", "two million" ->
"2000000"), ordinals into a marked form ("3rd", "third" -> "#3"), the day of a date into the same
ordinal form whatever way the date is written ("June 1", "1 June", "the first of June" all give
"june" and "#1"), and contractions such as "n't" into "not", so that tokenized text ("did n't")
and plain text ("didn't") agree.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ._memo import memoized_property


def word_set(words: str) -> frozenset[str]:
    """The set of the whitespace-separated words of ``words`` (for readable word lists).

    Args:
        words: Words separated by whitespace.

    Returns:
        The words as a frozen set.
    """
    return frozenset(words.split())


STOPWORDS: frozenset[str] = word_set(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either else
    ever every few for from further had has have having he her here hers herself him himself his
    how i if in into is it its itself just let may me might more most must my myself neither
    nor now of off on once only or other ought our ours ourselves out over own per same shall
    she should so some such than that the their theirs them themselves then there these they
    this those though through thus to too under until up upon us very was we were what when
    where whether which while who whom whose why will with within without would yet you your
    yours yourself yourselves s t d ll m re ve o y many much onto via among amongst
    """
)

NEGATIONS: frozenset[str] = word_set("not no never none nobody nothing neither nor without cannot")

# Words that soften a value ("about 1500 BC") without changing which value is meant.
HEDGES: frozenset[str] = word_set(
    "about around approximately approx circa ca roughly nearly almost estimated some"
)

# Auxiliary and modal verbs: a clause that has one states something (it has a predicate).
AUXILIARIES: frozenset[str] = word_set(
    "is are was were am be been being has have had do does did will would shall should can could "
    "may might must"
)
# Words after which an "-ed" or "-ing" word is a noun or an adjective, not a verb: "the meeting".
_DETERMINERS = word_set("a an the this that these those his her its their our my your every each")

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_MULTIPLIERS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 10**9}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "hundredth": 100,
}  # fmt: skip
_MONTHS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december",
}  # fmt: skip
MONTH_NAMES = frozenset(_MONTHS.values()) | word_set("may march")
_LAST_DAY_OF_MONTH = 31
# The shortest stem an ending may leave: shorter words keep their ending ("bus", "was"), and
# are not read as a verb ("bed", "king") or an adverb ("only") by it.
MIN_STEM_LETTERS = 3
# The years a number ending a sentence may be, with a citation marker glued on ("in 19801.").
CITED_YEARS = range(1000, 2100)
# The endings the stemmer strips, longest first, each with what replaces it.
_SUFFIXES = (
    ("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"),
    ("ingly", ""), ("edly", ""), ("ing", ""), ("ed", ""), ("ly", ""), ("s", ""),
)  # fmt: skip
_VERB_SUFFIXES = frozenset({"ing", "ed", "ingly", "edly"})
# Irregular English verb forms mapped to their base form, so "caught" and "catches" agree.
_IRREGULAR_VERBS = {
    "ate": "eat", "eaten": "eat", "began": "begin", "begun": "begin", "bought": "buy",
    "brought": "bring", "built": "build", "caught": "catch", "chose": "choose",
    "chosen": "choose", "came": "come", "dealt": "deal", "drew": "draw", "drawn": "draw",
    "drove": "drive", "driven": "drive", "fell": "fall", "fallen": "fall", "felt": "feel",
    "fought": "fight", "found": "find", "flew": "fly", "flown": "fly", "forgot": "forget",
    "forgotten": "forget", "froze": "freeze", "frozen": "freeze", "gave": "give",
    "given": "give", "went": "go", "gone": "go", "grew": "grow", "grown": "grow",
    "heard": "hear", "held": "hold", "hid": "hide", "hidden": "hide", "kept": "keep",
    "knew": "know", "known": "know", "laid": "lay", "led": "lead", "left": "leave",
    "lent": "lend", "lost": "lose", "made": "make", "meant": "mean", "met": "meet",
    "paid": "pay", "ran": "run", "rang": "ring", "rose": "rise", "risen": "rise",
    "said": "say", "says": "say", "saw": "see", "seen": "see", "sold": "sell", "sent": "send",
    "shook": "shake", "shot": "shoot", "sang": "sing", "sung": "sing", "sank": "sink",
    "sat": "sit", "slept": "sleep", "spoke": "speak", "spoken": "speak", "spent": "spend",
    "stood": "stand", "stole": "steal", "stolen": "steal", "struck": "strike",
    "swam": "swim", "swum": "swim", "took": "take", "taken": "take", "taught": "teach",
    "told": "tell", "thought": "think", "threw": "throw", "thrown": "throw",
    "understood": "understand", "woke": "wake", "wore": "wear", "worn": "wear", "won": "win",
    "wrote": "write", "written": "write", "beat": "beat", "beaten": "beat", "became": "become",
    "broke": "break", "broken": "break", "died": "die", "dying": "die", "lying": "lie",
    "bitten": "bite", "bit": "bite", "hung": "hang", "sought": "seek", "spun": "spin",
    "stuck": "stick", "swore": "swear", "sworn": "swear", "tore": "tear", "torn": "tear",
}  # fmt: skip
_ABBREVIATIONS = word_set(
    "mr mrs ms dr prof sr jr st mt gen gov sen rep col lt sgt capt inc ltd co corp vs etc "
    "jan feb mar apr jun jul aug sep sept oct nov dec fig approx est dept univ"
)

_RAW_TOKEN_RE = re.compile(
    r"""
    '(?:s|re|ve|ll|d|m)\b                      # a detached clitic: "it 's"
    | n't                                       # the tokenized contraction: "did n't"
    | [0-9]+(?:[,.][0-9]+)*(?:st|nd|rd|th)?     # 12,000 / 1.5 / 3rd
    | [^\W\d_]+(?:'[^\W\d_]+)*                  # a word; hyphens separate words
    """,
    re.VERBOSE,
)
_ASCII_DIGITS = frozenset("0123456789")
NUMBER_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_ORDINAL_DIGITS_RE = re.compile(r"([0-9]+)(?:st|nd|rd|th)")


@dataclass(frozen=True)
class Token:
    """One word of a text in canonical form.

    Attributes:
        surface: The word as written (for quoting).
        norm: Lower-cased form with numbers canonicalised (for exact comparisons).
        stem: Stemmed form of ``norm`` (for content comparisons).
        start: Character offset of the word in the text.
        end: Character offset just past the word.
        capitalized: Whether the word is written with an upper-case first letter.
        is_date_day: Whether the word is the day of a date ("1" in "June 1"); its norm is then
            the ordinal form ("#1").
    """

    surface: str
    norm: str
    stem: str
    start: int
    end: int
    capitalized: bool
    is_date_day: bool = False

    @memoized_property
    def is_number(self) -> bool:
        """Whether the token is a cardinal number (digits, possibly from number words)."""
        return NUMBER_RE.fullmatch(self.norm) is not None

    @memoized_property
    def is_ordinal(self) -> bool:
        """Whether the token is an ordinal ("3rd", "third")."""
        return self.norm.startswith("#")

    @memoized_property
    def is_stopword(self) -> bool:
        """Whether the token is a function word (never a number)."""
        return self.norm in STOPWORDS

    @memoized_property
    def is_negation(self) -> bool:
        """Whether the token negates ("not", "n't", "never")."""
        return self.norm in NEGATIONS

    @memoized_property
    def is_content(self) -> bool:
        """Whether the token carries content: numbers, ordinals and non-function words."""
        return self.is_number or self.is_ordinal or not self.is_stopword


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Strip common English inflections from a lower-case word.

    A light, conservative stemmer: plural and verb endings and "-ly", so that "prescriptions"
    and "prescription", or "raised" and "raise", share a stem. An ending is stripped only when
    ``MIN_STEM_LETTERS`` letters remain. Digits are left alone.

    Args:
        word: A lower-case word.

    Returns:
        The stem.
    """
    word = _IRREGULAR_VERBS.get(word, word)
    if len(word) <= MIN_STEM_LETTERS or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        # "-ly" leaves one letter more, so that "early" and "apply" keep it.
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM_LETTERS + (suffix == "ly"):
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            base = word[: len(word) - len(suffix)] + replacement
            doubled = len(base) > MIN_STEM_LETTERS and base[-1] == base[-2] not in "aeiouls"
            if suffix in _VERB_SUFFIXES and doubled:
                base = base[:-1]  # "stopped" -> "stopp" -> "stop"
            return _drop_final_e(base)
        if suffix in ("ing", "ed") and word.endswith(suffix) and len(word) - len(suffix) == 2:
            # "using" / "used" -> "use": a two-letter base lost its final "e".
            base = word[:2]
            if base[0] in "aeiou" and base[1] not in "aeiouy":
                return base + "e"
    return _drop_final_e(word)


def _drop_final_e(word: str) -> str:
    """Drop a silent final "e" so that "make" and "making" share the stem "mak"."""
    if len(word) > MIN_STEM_LETTERS and word.endswith("e") and not word.endswith("ee"):
        return word[:-1]
    return word


def _canonical_word(lower: str) -> str:
    """Map one lower-cased raw token to its canonical (unstemmed) form."""
    if lower.isalpha():  # most words: no digits, no apostrophe
        position = _ORDINALS.get(lower)
        return _MONTHS.get(lower, lower) if position is None else "#" + str(position)
    if lower == "n't":
        return "not"
    if lower.endswith("n't"):
        lower = lower[:-3]
        return "can" if lower == "ca" else lower
    if "'" in lower:
        lower = lower.split("'")[0] if lower.endswith(("'s", "'ll", "'re", "'ve", "'d")) else lower
        lower = lower.replace("'", "")
    ordinal = _ORDINAL_DIGITS_RE.fullmatch(lower)
    if ordinal:
        return "#" + (ordinal.group(1).lstrip("0") or "0")
    if lower in _ORDINALS:
        return "#" + str(_ORDINALS[lower])
    if lower[:1] in _ASCII_DIGITS:
        if "," in lower and re.fullmatch(r"\d{1,3}(?:,\d{3})+", lower):
            return lower.replace(",", "")
        if "," in lower:
            return lower.split(",")[0]
        if "." in lower:
            whole, _, fraction = lower.partition(".")
            return whole if set(fraction) <= {"0"} else lower
        return lower.lstrip("0") or "0"
    return _MONTHS.get(lower, lower)


def _merge_number_words(tokens: list[Token]) -> list[Token]:
    """Fold runs like "two hundred thousand" or "1.5 million" into one number token."""
    merged: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.norm[:1] not in _ASCII_DIGITS and token.norm not in _UNITS:
            merged.append(token)  # most words: neither digits nor a number word
            index += 1
            continue
        value: float | None = None
        if token.norm in _UNITS:
            value = float(_UNITS[token.norm])
        elif token.is_number:
            value = float(token.norm)
        if value is None:
            merged.append(token)
            index += 1
            continue
        total = 0.0
        current = value
        end = index + 1
        while end < len(tokens):
            word = tokens[end].norm
            if word in _UNITS and token.norm in _UNITS:
                unit = _UNITS[word]
                tens_then_unit = current % 100 >= 20 and unit < 10 and current % 10 == 0
                hundreds_then_rest = current >= 100 and current % 100 == 0 and unit < 100
                if not (tens_then_unit or hundreds_then_rest):
                    break
                current += unit
            elif word in _MULTIPLIERS:
                multiplier = _MULTIPLIERS[word]
                if multiplier == 100:
                    current *= multiplier
                else:
                    total += current * multiplier
                    current = 0.0
            else:
                break
            end += 1
        if end == index + 1 and token.is_number:
            merged.append(token)
            index += 1
            continue
        number = total + current
        norm = str(int(number)) if math.isfinite(number) and number == int(number) else str(number)
        last = tokens[end - 1]
        merged.append(
            Token(
                surface=token.surface if end == index + 1 else f"{token.surface}…{last.surface}",
                norm=norm,
                stem=norm,
                start=token.start,
                end=last.end,
                capitalized=token.capitalized,
            )
        )
        index = end
    return merged


_DAY_FIRST_CHARACTERS = frozenset("#123456789")


def _day_of_month(token: Token) -> int | None:
    """The day a token can stand for in a date ("1", "1st", "first"), if it can."""
    digits = token.norm[1:] if token.is_ordinal else token.norm
    if not (digits.isascii() and digits.isdigit()) or token.norm.startswith("0") or len(digits) > 2:
        return None
    day = int(digits)
    return day if 1 <= day <= _LAST_DAY_OF_MONTH else None


def _mark_date_days(tokens: list[Token]) -> list[Token]:
    """Give the day of a date one form, the ordinal: "June 1" and "first of June" both "#1"."""
    marked = list(tokens)
    for index, token in enumerate(tokens):
        if token.norm[:1] not in _DAY_FIRST_CHARACTERS:
            continue  # most words: no digits, no ordinal mark
        day = _day_of_month(token)
        if day is None:
            continue
        before = tokens[index - 1] if index > 0 else None
        after = tokens[index + 1 : index + 3]
        # Next to a day number, "may" and "march" are months, not verbs.
        month_before = before is not None and before.norm in MONTH_NAMES
        month_after = bool(after) and after[0].norm in MONTH_NAMES
        month_after_of = len(after) == 2 and after[0].norm == "of" and after[1].norm in MONTH_NAMES
        if month_before or month_after or month_after_of:
            marked[index] = replace(token, norm=f"#{day}", stem=f"#{day}", is_date_day=True)
    return marked


def _is_cited_year(surface: str, text: str, end: int) -> bool:
    """Whether a number ending a sentence is a year with a citation marker of one or two digits
    glued on ("19801.")."""
    if not (surface.isdigit() and len(surface) - 4 in (1, 2) and int(surface[:4]) in CITED_YEARS):
        return False
    rest = text[end : end + 2]
    return rest == "" or (rest[0] in ".!?" and (len(rest) == 1 or rest[1].isspace()))


@lru_cache(maxsize=8192)
def tokenize(text: str) -> tuple[Token, ...]:
    """Split text into canonical tokens.

    Hyphenated words become separate words ("widely-prescribed" -> "widely", "prescribed"),
    so a tokenized copy ("widely - prescribed") tokenizes the same way.

    Args:
        text: Any text.

    Returns:
        The tokens, in order.
    """
    raw: list[Token] = []
    for match in _RAW_TOKEN_RE.finditer(text.replace("\u2019", "'")):
        surface = match.group(0)
        lower = surface.lower()
        if lower.startswith("'"):
            continue  # a detached clitic ("it 's"), as "it's" loses it too
        if lower.endswith("n't") and len(lower) > 3:
            # "didn't" -> "did", "not"; the tokenized "did n't" gives the same two tokens.
            norm = _canonical_word(lower)
            raw.append(Token(surface, norm, stem(norm), match.start(), match.end() - 3, False))
            raw.append(Token("n't", "not", "not", match.end() - 3, match.end(), False))
            continue
        norm = _canonical_word(lower)
        if not norm:
            continue
        if _is_cited_year(surface, text, match.end()):
            # Web-search answers glue citation markers to the last word: "in 19801." is 1980.
            norm = surface[:4]
        raw.append(
            Token(surface, norm, stem(norm), match.start(), match.end(), surface[:1].isupper())
        )
    return tuple(_mark_date_days(_merge_number_words(raw)))


def content_stems(text: str) -> list[str]:
    """The stems of a text's content tokens, in order.

    Args:
        text: Any text.

    Returns:
        Stems of the non-function words, numbers and ordinals.
    """
    return [token.stem for token in tokenize(text) if token.is_content]


_SENTENCE_END_RE = re.compile(r"[.!?]+['\")\]]*\s+|\n\s*\n+|\n(?=\s*[-*•\d])")


def _last_word_before(text: str, start: int, stop: int) -> str:
    """The last whitespace-separated word of ``text[start:stop]``, lower-cased ("" if none).

    Read backwards from ``stop``, so that a text of many skipped stops (initials, "u.s.")
    is still split in linear time.
    """
    end = stop
    while end > start and text[end - 1].isspace():
        end -= 1
    begin = end
    while begin > start and not text[begin - 1].isspace():
        begin -= 1
    return text[begin:end].lower()


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, in time linear in its length.

    Works on plain, tokenized (" . ") and lower-cased text: a sentence ends at ".", "!" or "?"
    followed by space, unless the word before the stop is a known abbreviation, a single
    letter (an initial) or itself contains a dot ("u.s.").

    Args:
        text: Any text.

    Returns:
        Non-empty, stripped sentences in order.
    """
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        stop = match.start()
        if text[stop : stop + 1] == ".":
            last_word = _last_word_before(text, start, stop)
            if (
                last_word.rstrip(".") in _ABBREVIATIONS
                or (len(last_word) == 1 and last_word.isalpha())
                or "." in last_word
            ):
                continue
        piece = text[start : match.end()].strip()
        if piece:
            sentences.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return [sentence for sentence in sentences if any(ch.isalnum() for ch in sentence)]


_CLAUSE_BREAK_RE = re.compile(
    r"\s*(?:;|:(?!\d)|,?\s+(?:and|but|while|whereas|although|though|because|after|before|"
    r"as well as|which|who|where|when)\s+|,\s+)\s*",
    re.IGNORECASE,
)


def clause_pieces(sentence: str) -> list[str]:
    """Cut a sentence before each clause break (a semicolon, a colon, a comma, a joining
    conjunction), each break staying at the start of the piece after it.

    Example:
        >>> clause_pieces("Paris; and Rome")
        ['Paris', '; and Rome']
    """
    pieces: list[str] = []
    start = 0
    for match in _CLAUSE_BREAK_RE.finditer(sentence):
        if match.start() > start:
            pieces.append(sentence[start : match.start()])
        start = match.start()
    pieces.append(sentence[start:])
    return pieces


def split_clauses(sentence: str, min_content: int) -> list[str]:
    """Split a sentence into clause-sized pieces that each state one fact.

    Breaks at semicolons, colons, commas and clause-joining conjunctions, then glues back any
    piece with fewer than ``min_content`` content words onto its neighbour, so lists of names
    or short modifiers stay with the clause they belong to.

    Args:
        sentence: One sentence.
        min_content: The fewest content words a piece may have to stand alone.

    Returns:
        The clauses, each a substring-based piece of the sentence, in order.
    """
    merged: list[str] = []
    for piece in clause_pieces(sentence):
        if not piece.strip():
            continue
        if merged and len(content_stems(piece)) < min_content:
            merged[-1] += piece
        else:
            merged.append(piece)
    if len(merged) > 1 and len(content_stems(merged[0])) < min_content:
        merged[1] = merged[0] + merged[1]
        merged.pop(0)
    return [clean_clause(piece) for piece in merged if clean_clause(piece)]


def clean_clause(piece: str) -> str:
    """Trim separators and stray punctuation from the ends of a clause.

    Args:
        piece: A fragment of a sentence.

    Returns:
        The fragment without leading conjunction punctuation or trailing stops.
    """
    cleaned = piece.strip().strip(",;:").strip()
    cleaned = re.sub(r"\s+([.!?])+$", "", cleaned)
    return cleaned.rstrip(" .!?;,:").strip()


def is_verb_form(tokens: tuple[Token, ...] | list[Token], index: int) -> bool:
    """Whether a word is written as a verb, told from its form and the word before it.

    A past or "-ing" form ("voted", "planting", "held"), or a base form right after an
    auxiliary, a modal or "to" ("will host", "to ban"). Names, numbers, months and function
    words never are, and a word right after a determiner is a noun or adjective ("the
    meeting"). Present-tense forms ("employs") look like plural nouns and are not recognised.

    Args:
        tokens: The tokens of a text.
        index: The position of the word.

    Returns:
        Whether the word looks like a verb.
    """
    token = tokens[index]
    if token.is_number or token.is_ordinal or token.is_stopword or token.norm in NEGATIONS:
        return False
    if index > 0 and token.capitalized:
        return False
    previous = [t.norm for t in tokens[max(0, index - 2) : index] if t.norm not in NEGATIONS]
    if previous and previous[-1] in _DETERMINERS:
        return False
    if previous and (previous[-1] in AUXILIARIES or previous[-1] == "to"):
        return True
    word = token.surface.lower()
    if word in _IRREGULAR_VERBS:
        return True
    if word in MONTH_NAMES:
        return False
    return any(
        word.endswith(ending) and len(word) - len(ending) >= MIN_STEM_LETTERS
        for ending in ("ed", "ing")
    )


def is_light_word(tokens: tuple[Token, ...] | list[Token], index: int) -> bool:
    """Whether a content word is a verb or an "-ly" adverb: words a paraphrase often changes.

    A summary says "paid for" where the source says "funded", "daily" for "each day"; names,
    numbers and nouns carry what a statement is about.

    Args:
        tokens: The tokens of a text.
        index: The position of the word.

    Returns:
        Whether the word is a verb form or an adverb.
    """
    if is_verb_form(tokens, index):
        return True
    token = tokens[index]
    word = token.surface.lower()
    return (
        word.endswith("ly")
        and len(word) - len("ly") >= MIN_STEM_LETTERS
        and not (token.is_stopword or token.is_number or (index > 0 and token.capitalized))
        and word not in MONTH_NAMES
    )

"""Text into terms: the primitives every component that splits text shares.

Stage: none; a library of pure functions used by search (``site.search.tokenize``), related
papers (``site.related``), classify (``classify.learned``) and the extractive drafter
(``intake.extractive``, ``intake.words``). In: text. Out: Chinese runs and their n-grams,
Latin words and hyphenated compounds, stems, stop words.

Each component composes these into its own terms — search indexes CJK bigrams and stemmed
words minus ``STOP_WORDS``; related papers count words and CJK 2- and 3-grams; classify feeds
words, word bigrams and CJK bigrams to a linear model; the drafter cuts keyphrases at
``FUNCTION_WORDS`` — but what a Chinese character, a Latin word, a stem or a stop word is, is
defined here once (``tests/test_text.py`` fails when a CJK range is written anywhere else).
The stop-word lists are data: ``papernotes/data/stopwords.toml``.
"""
from __future__ import annotations

import html
import re
import tomllib
import unicodedata
from importlib import resources

CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF))
"""CJK Unified Ideographs Extension A and the main block: the Chinese characters, as code point ranges."""
CJK_COMPAT = (0xF900, 0xFAFF)
"""CJK Compatibility Ideographs. ``fold`` maps all but twelve of them onto the main block; text that is
not folded counts them as Chinese characters too (``CJK_ANY``)."""
LATIN_RANGES = ((0x30, 0x39), (0x61, 0x7A), (0xDF, 0xF6), (0xF8, 0x24F))
"""Digits and lower-case Latin letters, accented ones included (Latin-1 and Latin Extended-A/B): what a
lower-cased Latin word is made of."""
FOLD_RANGES = ((0xFF10, 0xFF19), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A), (0xF900, 0xFB06))
"""What ``fold`` NFKC-normalises: full-width digits and letters, compatibility ideographs, Latin ligatures."""


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """The body of a regex character class of code point ranges."""
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in ranges)


CJK = _class(CJK_RANGES)
"""Character class body of the Chinese characters of folded text (``[{CJK}]``)."""
CJK_ANY = CJK + _class((CJK_COMPAT,))
"""Character class body of the Chinese characters of text as written (compatibility ideographs included)."""
LATIN = _class(LATIN_RANGES)
"""Character class body of a lower-cased Latin word's characters."""
ASCII = _class(LATIN_RANGES[:2])
"""The same without accented letters: the words related papers and classify were tuned on (``latin_words``)."""
HYPHENS = "-\u2010\u2011"
"""Hyphen-minus, hyphen and non-breaking hyphen: what joins the words of a compound."""
WIDE = "\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
"""Character class body of East Asian wide characters (Hangul, CJK symbols and ideographs, full-width
forms): about one token each to a language model's tokeniser."""

CJK_RUN = re.compile(f"[{CJK_ANY}]+")
"""A run of Chinese characters in text as written."""
FOLDED_CJK_RUN = re.compile(f"[{CJK}]+")
"""A run of Chinese characters in folded text."""
LATIN_WORD = re.compile(f"[{LATIN}]+")
COMPOUND = re.compile(f"[{LATIN}]+(?:[{HYPHENS}][{LATIN}]+)+")
_FOLD = re.compile(f"[{_class(FOLD_RANGES)}]+")
_UNHYPHEN = str.maketrans("", "", HYPHENS)
_MARKS = re.compile("[\u0300-\u036f]")

_STOP = tomllib.loads((resources.files("papernotes") / "data" / "stopwords.toml").read_text(encoding="utf-8"))
STOP_WORDS = frozenset(_STOP["common"].split())
"""English words too common to index or to count (search)."""
FUNCTION_WORDS = STOP_WORDS | frozenset(_STOP["function"].split())
"""Every English function word: none belongs to a keyphrase (the extractive drafter)."""
CHINESE_STOP_CHARACTERS = _STOP["chinese"]
"""Chinese particles and pronouns that end a keyphrase in a run of Chinese text."""


def is_cjk(char: str) -> bool:
    """Is ``char`` a Chinese character of folded text (``CJK_RANGES``)?"""
    return "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff"  # CJK_RANGES spelled out: runs per term


def fold(text: str) -> str:
    """``text`` with full-width digits and letters, compatibility ideographs and Latin ligatures
    NFKC-normalised; only those, since normalising the whole text costs more than tokenising it."""
    if _FOLD.search(text):
        return _FOLD.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    return text


def cjk_runs(text: str) -> list[str]:
    """The runs of Chinese characters of ``text`` as written."""
    return CJK_RUN.findall(text)


def ngrams(run: str, n: int) -> list[str]:
    """The overlapping ``n``-character grams of ``run`` (none when it is shorter)."""
    return [run[i:i + n] for i in range(len(run) - n + 1)]


def latin_words(text: str, joined: str = "", accents: bool = True) -> list[str]:
    """The Latin words of a lower-cased ``text``. ``joined``, a regular expression, is what may stand between
    two words of one (related papers: ``[-']``, so ``gpt-4`` and ``don't`` are one word; classify: ``[-+]+``).

    ``accents=False`` splits words at accented letters (``rényi`` → ``r``, ``nyi``), as related papers and
    classify always have: measured on the reference corpus, their accented words would change 2 of 3,248
    related lists and classify's probabilities by up to 0.04, which nothing here is meant to do.
    """
    if not joined and accents:
        return LATIN_WORD.findall(text)
    return _joined(joined, accents).findall(text)


_JOINED: dict[tuple[str, bool], re.Pattern[str]] = {}


def _joined(joined: str, accents: bool) -> re.Pattern[str]:
    pattern = _JOINED.get((joined, accents))
    if pattern is None:
        letters = LATIN if accents else ASCII
        tail = f"(?:{joined}[{letters}]+)*" if joined else ""
        pattern = _JOINED[joined, accents] = re.compile(f"[{letters}]+{tail}")
    return pattern


def compounds(text: str) -> list[str]:
    """Hyphenated compounds of a lower-cased text, hyphens dropped (``text-to-image`` → ``texttoimage``)."""
    return [c.translate(_UNHYPHEN) for c in COMPOUND.findall(text)]


def strip_accents(word: str) -> str:
    """``word`` without combining accents (``rényi`` → ``renyi``)."""
    return word if word.isascii() else _MARKS.sub("", unicodedata.normalize("NFD", word))


def stem(word: str) -> str:
    """Plural endings off (``models`` → ``model``, ``policies`` → ``policy``, ``classes`` → ``class``), of a
    lower-cased word; ``focus``, ``analysis`` and ``gas`` stay."""
    if len(word) > 3 and word[-1] == "s":
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word.endswith("sses"):
            return word[:-2]
        if not word.endswith(("ss", "us", "is")):
            return word[:-1]
    return word


def normalise_title(title: str) -> str:
    """A title reduced to what tells two papers apart: NFKC, case-folded, letters and digits only."""
    text = unicodedata.normalize("NFKC", title).casefold()
    return re.sub(r"[\W_]+", "", text)


TAG = re.compile(r"<[^>]+>")
"""An HTML tag, in our own rendered HTML (attribute values never hold a bare ``>`` there)."""


def plain_text(fragment: str) -> str:
    """The text of rendered HTML: tags dropped, entities decoded, outer white space stripped."""
    return html.unescape(TAG.sub("", fragment)).strip()

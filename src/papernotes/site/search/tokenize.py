"""Search stage, step 1: the terms of one note and how much each one says about it.

In: a note's fields (title, keywords, topic names, summary, authors) and its
Markdown body. Out: a ``Record`` — every term of the note as a 64-bit code with
its impact, the note's BM25-like score for the term quantised to one byte. A
record depends on nothing but the note, so it is cached by the note's digest
and a rebuild re-tokenises only changed notes.

The query side (``static/search-core.js``) applies the same rules, and
``tests/test_search.py`` runs both on the same text:

- text is lower-cased; full-width letters and digits, CJK compatibility
  ideographs and Latin ligatures are NFKC-folded first (only those: folding the
  whole text costs more than the rest of tokenising);
- Latin words are runs of ``[0-9a-z]`` and accented Latin letters (accents
  dropped), minus a few English stop words, with plural ``-s``/``-ies``/``-sses``
  removed, so ``models`` finds ``model`` and ``LoRA`` never matches inside
  ``exploration``;
- Chinese (any run of CJK ideographs) is indexed as overlapping character
  bigrams (``知识蒸馏`` → 知识 识蒸 蒸馏; in short fields a lone character stays a
  unigram). A query's bigrams must all match, which finds a compound with or
  without spaces, whatever word segmentation its writer had in mind;
- bodies leave out single letters, lone CJK characters, bare numbers,
  formulas, link targets and HTML tags; short fields keep letters and numbers
  (``GPT-4`` in a title).

Impacts add up a saturating term-frequency score per field, weighted title >
keywords/topics > summary ≈ authors > body; only the body is length-normalised,
against a fixed pivot so that a note's impacts never change when other notes do.

Term codes: a CJK bigram is ``2**62 | c1 << 21 | c2`` (a unigram has ``c2 = 0``),
so CJK codes sort like their strings; any other term is 62 bits of its BLAKE2b
hash, and its text is kept in the store's vocabulary.
"""
from __future__ import annotations

import bisect
import hashlib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Field weights (the ranking: title > keywords/topics > summary ≈ authors > body).
W_TITLE, W_KEYWORDS, W_SUMMARY, W_AUTHORS, W_BODY = 6.0, 4.0, 2.5, 2.5, 1.0
K1 = 1.2
B_BODY = 0.75
PIVOT = 1400.0
"""Body length (tokens) at which length normalisation is neutral: about the reference corpus' median."""
IMPACT_LO, IMPACT_HI = 0.05, 64.0
"""Impacts are quantised to 1..255, evenly on a log scale between these bounds (JS decodes the same)."""
TOPIC_PREFIX = "#"
"""Terms naming a topic (``#slug``) carry the topic facet; no token starts with it."""
CJK_FLAG = 1 << 62
_HASH_MASK = CJK_FLAG - 1

STOP_WORDS = frozenset(
    "a an and are as at be been but by can for from has have in into is it its of on or our than that the "
    "their these this those to was we were which with via".split())

_FOLD = re.compile("[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uf900-\ufaff\ufb00-\ufb06]+")
_LATIN = re.compile("[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]+")
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]+")
_MARKS = re.compile("[\u0300-\u036f]")
_NOISE = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|\\\(.*?\\\)|\\\[.*?\\\]|\]\([^)\s]*\)|<[^>\n]*>|https?://\S+", re.S)
_MD = re.compile(r"\*\*|__|`|\\\(|\\\)|\\\[|\\\]|\$")


@dataclass(frozen=True, slots=True)
class Record:
    """One note's postings: term codes and, at the same positions, their one-byte impacts."""

    codes: bytes
    """``int64`` term codes, native byte order."""
    impacts: bytes
    words: tuple[str, ...] = ()
    """Text of hashed terms this process had not reported before, for the vocabulary (not stored)."""


def plain(text: str) -> str:
    """Markdown emphasis, code ticks and math delimiters removed: the text results display."""
    return _MD.sub("", text).strip()


def normalise(text: str) -> str:
    if _FOLD.search(text):
        text = _FOLD.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)
    return text.lower()


def stem(word: str) -> str:
    """Plural endings off (``models`` → ``model``, ``policies`` → ``policy``, ``classes`` → ``class``)."""
    if len(word) > 3 and word[-1] == "s":
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word.endswith("sses"):
            return word[:-2]
        if not word.endswith(("ss", "us", "is")):
            return word[:-1]
    return word


_TERMS: dict[str, str | None] = {}
_CODES: dict[str, int] = {}
_WORD_CODES: dict[str, int] = {}
_FRESH: list[str] = []
_MEMO = 500_000


def new_session() -> None:
    """Start reporting hashed words afresh: every build reports each word it needs to its own store."""
    _CODES.clear()
    _WORD_CODES.clear()
    _FRESH.clear()


def latin_term(word: str) -> str | None:
    """The term of one lower-cased Latin word; ``None`` for a stop word."""
    term = _TERMS.get(word, "")
    if term != "":
        return term
    if word in STOP_WORDS:
        term = None
    else:
        folded = word if word.isascii() else _MARKS.sub("", unicodedata.normalize("NFD", word))
        term = stem(folded)
    if len(_TERMS) < _MEMO:
        _TERMS[word] = term
    return term


def is_cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff"


def code_of(term: str) -> int:
    """The code of a term (a hashed term met for the first time this session is reported as fresh)."""
    code = _CODES.get(term)
    if code is None:
        if len(term) <= 2 and is_cjk(term[0]):
            code = CJK_FLAG | ord(term[0]) << 21 | (ord(term[1]) if len(term) == 2 else 0)
        else:
            digest = hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()
            code = int.from_bytes(digest, "little") & _HASH_MASK
            _FRESH.append(term)
        if len(_CODES) < _MEMO:
            _CODES[term] = code
    return code


def cjk_term(code: int) -> str:
    """The text of a CJK code (``code >= CJK_FLAG``)."""
    second = code & 0x1FFFFF
    return chr(code >> 21 & 0x1FFFFF) + (chr(second) if second else "")


def field_terms(text: str) -> list[str]:
    """Every term of a short field (title, keyword, name), in order, repeats kept."""
    if "$" in text or "<" in text or "](" in text or "\\" in text or "http" in text:
        text = _NOISE.sub(" ", text)
    text = normalise(text)
    out = [t for t in map(latin_term, _LATIN.findall(text)) if t]
    for run in _CJK.findall(text):
        out.extend([run[i:i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run])
    return out


def _word_code(word: str) -> int:
    """Code of a body word; 0 for the words bodies leave out."""
    term = latin_term(word) if len(word) > 1 and not word.isdigit() else None
    code = code_of(term) if term else 0
    if len(_WORD_CODES) < _MEMO:
        _WORD_CODES[word] = code
    return code


def _tally(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct codes (ascending) and how many times each occurs."""
    ordered = np.sort(codes)
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return ordered[starts], np.diff(np.append(starts, len(ordered)))


def body_terms(body: str) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, term frequencies)`` of a body; codes distinct."""
    text = _NOISE.sub(" ", body).lower()
    chars = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    # unsigned wrap-around: (c - lo) <= span holds exactly for lo <= c <= lo + span
    if ((chars - 0xFF10 <= 0x4A) | (chars - 0xF900 <= 0x206)).any():  # full-width letters, compatibility forms
        text = normalise(text)
        chars = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    cjk = (chars - 0x4E00 <= 0x51FF) | (chars - 0x3400 <= 0x19BF)
    pair = cjk[:-1] & cjk[1:]
    bigrams = CJK_FLAG | chars[:-1][pair].astype(np.int64) << 21 | chars[1:][pair]
    words = _LATIN.findall(text)
    codes = list(map(_WORD_CODES.get, words))
    if None in codes:
        codes = [_word_code(w) if c is None else c for w, c in zip(words, codes)]
    latin = np.array(codes, np.int64)
    return _tally(np.concatenate([bigrams, latin[latin != 0]]))


def dequantise(q: int) -> float:
    """The impact a byte stands for (JS: ``impactOf``)."""
    return IMPACT_LO * math.exp((q - 1) * math.log(IMPACT_HI / IMPACT_LO) / 254)


#: Level boundaries: an impact gets the level nearest to it on the log scale.
_BOUND_LIST = [IMPACT_LO * math.exp((k + 0.5) * math.log(IMPACT_HI / IMPACT_LO) / 254) for k in range(254)]
_BOUNDS = np.array(_BOUND_LIST)


def quantise(impact: float) -> int:
    return 1 + bisect.bisect_left(_BOUND_LIST, impact)


def _saturate(tf: int, norm: float = 1.0) -> float:
    return tf * (K1 + 1) / (tf + K1 * norm)


_SATURATED = [_saturate(tf) for tf in range(64)]


def note_record(title: str, keywords: Sequence[str], topics: Sequence[tuple[str, str]], summary: str,
                authors: Sequence[str], body: str) -> Record:
    """Tokenise one note. ``topics`` are ``(slug, display name)`` pairs."""
    del _FRESH[:]
    meta: dict[str, float] = {}
    get = meta.get
    fields = ((W_TITLE, plain(title)), (W_KEYWORDS, "\n".join([*keywords, *(name for _, name in topics)])),
              (W_SUMMARY, plain(summary)), (W_AUTHORS, "\n".join(authors)))
    for weight, text in fields:
        for term, tf in Counter(field_terms(text)).items():
            meta[term] = get(term, 0.0) + weight * (_SATURATED[tf] if tf < 64 else _saturate(tf))
    codes, counts = body_terms(body)
    tf = counts.astype(np.float64)
    norm = 1 - B_BODY + B_BODY * float(counts.sum()) / PIVOT
    scores = W_BODY * tf * (K1 + 1) / (tf + K1 * norm)
    meta_codes = np.fromiter(map(code_of, meta), np.int64, len(meta))
    meta_scores = np.fromiter(meta.values(), np.float64, len(meta))
    if len(codes) and len(meta_codes):  # a term both in a short field and in the body: one posting, scores added
        at = np.minimum(np.searchsorted(codes, meta_codes), len(codes) - 1)
        hit = codes[at] == meta_codes
        scores[at[hit]] += meta_scores[hit]
        meta_codes, meta_scores = meta_codes[~hit], meta_scores[~hit]
    codes, scores = np.concatenate([codes, meta_codes]), np.concatenate([scores, meta_scores])
    facets = np.fromiter((code_of(TOPIC_PREFIX + slug) for slug, _ in topics), np.int64, len(topics))
    impacts = np.concatenate([np.searchsorted(_BOUNDS, scores) + 1, np.ones(len(facets), np.int64)])
    return Record(np.concatenate([codes, facets]).tobytes(), impacts.astype(np.uint8).tobytes(), tuple(_FRESH))

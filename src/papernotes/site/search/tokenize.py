"""Search stage, step 1: the terms of one note and how much each one says about it.

In: a note's fields (title, keywords, topic names, summary, authors) and its
Markdown body. Out: a ``Record`` — every term of the note as a 64-bit code with
its impact, the note's BM25-like score for the term quantised to one byte. A
record depends on nothing but the note, so it is cached by the note's digest
and a rebuild re-tokenises only changed notes. ``note_records`` tokenises many
notes at once (one numpy pass over each ~1 MB batch of their text); a record
is the same whatever batch its note was in.

The query side (``static/search-core.js``) applies the same rules, and
``tests/test_search.py`` runs both on the same text:

- text is lower-cased; full-width letters and digits, CJK compatibility
  ideographs and Latin ligatures are NFKC-folded first (only those: folding the
  whole text costs more than the rest of tokenising);
- Latin words are runs of ``[0-9a-z]`` and accented Latin letters (accents
  dropped), minus a few English stop words, with plural ``-s``/``-ies``/``-sses``
  removed, so ``models`` finds ``model`` and ``LoRA`` never matches inside
  ``exploration``;
- a hyphenated compound is also a term, hyphens dropped (``text-to-image`` →
  ``texttoimage``, ``in-context`` → ``incontext``): the query side requires the
  compound's words and ranks the notes that hold the compound first;
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
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from papernotes.text import (
    CJK_RANGES,
    FOLD_RANGES,
    FOLDED_CJK_RUN,
    HYPHENS,
    LATIN_RANGES,
    LATIN_WORD,
    STOP_WORDS,
    compounds,
    fold,
    is_cjk,
    stem,
    strip_accents,
)

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

# \( … \) and \[ … \] stop at the next opener: a lazy ".*?" would scan to the end of the body from every
# unclosed opener (100,000 "\[" took 190 s); display math does not nest, so nothing real is cut short
_NOISE = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|\\\((?:(?!\\[()]).)*\\\)|\\\[(?:(?!\\[\[\]]).)*\\\]|\]\([^)\s]*\)|<[^>\n]*>"
                    r"|https?://\S+", re.S)
_MD = re.compile(r"\*\*|__|`|\\\(|\\\)|\\\[|\\\]|\$")


@dataclass(frozen=True, slots=True)
class Record:
    """One note's postings: term codes and, at the same positions, their one-byte impacts."""

    codes: bytes
    """``int64`` term codes, native byte order."""
    impacts: bytes
    words: tuple[str, ...] = ()
    """Text of hashed terms this process had not reported before, for the vocabulary (not stored)."""
    word_codes: bytes = b""
    """``int64`` codes of ``words``, in the same order (the store need not hash them again)."""

    def vocabulary(self) -> Iterator[tuple[int, str]]:
        """``(code, text)`` of each of ``words``."""
        return zip(array("q", self.word_codes), self.words, strict=True)


def plain(text: str) -> str:
    """Markdown emphasis, code ticks and math delimiters removed: the text results display."""
    return _MD.sub("", text).strip()


def normalise(text: str) -> str:
    """Folded (``text.fold``) and lower-cased: what terms are read from."""
    return fold(text).lower()


_TERMS: dict[str, str | None] = {}
_MEMO = 500_000


def latin_term(word: str) -> str | None:
    """The term of one lower-cased Latin word; ``None`` for a stop word."""
    term = _TERMS.get(word, "")
    if term != "":
        return term
    term = None if word in STOP_WORDS else stem(strip_accents(word))
    if len(_TERMS) < _MEMO:
        _TERMS[word] = term
    return term


def _hash_code(term: str) -> int:
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little") & _HASH_MASK


def code_of(term: str) -> int:
    """The code of a term."""
    if len(term) <= 2 and is_cjk(term[0]):
        return CJK_FLAG | ord(term[0]) << 21 | (ord(term[1]) if len(term) == 2 else 0)
    at = _SESSION.terms.get(term)
    return int(_SESSION.codes.data[at]) if at is not None else _hash_code(term)


def field_terms(text: str) -> list[str]:
    """Every term of a short field (title, keyword, name), in order, repeats kept.

    The rules of one text, as the query side applies them; ``note_records`` applies the same
    rules to many notes at once (``tests/test_search.py`` checks that they agree).
    """
    text = normalise(_clean(text))
    out = [t for t in map(latin_term, LATIN_WORD.findall(text)) if t]
    out += [t for t in map(latin_term, compounds(text)) if t]
    for run in FOLDED_CJK_RUN.findall(text):
        out.extend([run[i:i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run])
    return out


def _clean(text: str) -> str:
    """Formulas, link targets, tags and URLs out (only these characters start one)."""
    if "$" in text or "<" in text or "](" in text or "\\" in text or "http" in text:
        return _NOISE.sub(" ", text)
    return text


def dequantise(q: int) -> float:
    """The impact a byte stands for (JS: ``impactOf``)."""
    return IMPACT_LO * math.exp((q - 1) * math.log(IMPACT_HI / IMPACT_LO) / 254)


#: Level boundaries: an impact gets the level nearest to it on the log scale.
_BOUND_LIST = [IMPACT_LO * math.exp((k + 0.5) * math.log(IMPACT_HI / IMPACT_LO) / 254) for k in range(254)]
_BOUNDS = np.array(_BOUND_LIST)


def quantise(impact: float) -> int:
    return 1 + bisect.bisect_left(_BOUND_LIST, impact)


# ------------------------------------------------------------------ many notes at once

@dataclass(frozen=True, slots=True)
class NoteText:
    """What a note's record is made from."""

    title: str
    keywords: Sequence[str]
    topics: Sequence[tuple[str, str]]
    """``(slug, display name)`` pairs."""
    summary: str
    authors: Sequence[str]
    body: str


BODY = 4
"""Segment kind of the body; kinds 0-3 are the short fields, in the order of ``_WEIGHTS``."""
_WEIGHTS = np.array([W_TITLE, W_KEYWORDS, W_SUMMARY, W_AUTHORS, W_BODY])
_KINDS = 5
BATCH_CHARS = 200_000
"""Text tokenised per numpy pass: its temporaries (~60 bytes a character) then stay in a core's cache
(0.78 s for the reference corpus in one process; 1,000,000 characters: 0.88 s)."""
_LATIN_BASE = 1 << 30
"""Term ids of a batch: a CJK term's compact id (< 2**30, ordered like its text), else this plus the
term's index in the session."""
CJK_BASE = CJK_RANGES[0][0]
CJK_SPAN = CJK_RANGES[-1][1] - CJK_BASE + 2
"""CJK compact ids, ordered like their text: ``(c1 - CJK_BASE) * CJK_SPAN + (c2 - CJK_BASE + 1, or 0 for a
lone character)`` (the encoder's too)."""
_FOLD_MIN = min(lo for lo, _ in FOLD_RANGES)
_HYPHEN_RANGES = tuple((ord(h), ord(h)) for h in HYPHENS)


def _within(chars: np.ndarray, ranges: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Which of ``chars`` (``uint32`` code points) lie in one of ``ranges``."""
    # unsigned wrap-around: (c - lo) <= span holds exactly for lo <= c <= lo + span
    (lo, hi), *rest = ranges
    inside = chars - lo <= hi - lo
    for lo, hi in rest:
        inside |= chars - lo <= hi - lo
    return inside


class _Column:
    """A growable numpy array."""

    def __init__(self, dtype: type = np.int64) -> None:
        self.data = np.zeros(1024, dtype)
        self.size = 0

    def extend(self, values: list[int]) -> None:
        end = self.size + len(values)
        if end > len(self.data):
            grown = np.zeros(max(end, 2 * len(self.data)), self.data.dtype)
            grown[:self.size] = self.data[:self.size]
            self.data = grown
        self.data[self.size:end] = values
        self.size = end


class _Session:
    """Words and terms met since ``new_session``: each word is looked up once, each hashed term
    hashed once and reported (``Record.words``) with the first record holding it."""

    def __init__(self) -> None:
        self.words: dict[str, int] = {}
        """Lower-cased word → its index in ``field_term`` and ``body_term``."""
        self.field_term = _Column()
        """Per word: the index of its term in a short field, -1 for none (a stop word)."""
        self.body_term = _Column()
        """Per word: the index of its term in a body, -1 for none (also single letters, bare numbers)."""
        self.terms: dict[str, int] = {}
        """Hashed term → its index in ``texts``, ``codes`` and ``reported``."""
        self.texts: list[str] = []
        self.codes = _Column()
        self.reported = _Column(np.bool_)

    def term(self, term: str) -> int:
        at = self.terms.get(term)
        return self.add_terms([term])[0] if at is None else at

    def add_terms(self, terms: list[str]) -> list[int]:
        """The indexes of ``terms`` (distinct, none known yet), added at the end."""
        base = len(self.texts)
        self.terms.update(zip(terms, range(base, base + len(terms)), strict=True))
        self.texts += terms
        self.codes.extend(list(map(_hash_code, terms)))
        self.reported.extend([False] * len(terms))
        return list(range(base, base + len(terms)))

    def report(self, terms: np.ndarray) -> tuple[tuple[str, ...], bytes]:
        """The text and ``int64`` codes of those of ``terms`` (indexes) not reported before."""
        fresh = np.unique(terms[~self.reported.data[terms]])
        self.reported.data[fresh] = True
        return tuple(map(self.texts.__getitem__, fresh.tolist())), self.codes.data[fresh].tobytes()

    def add_words(self, words: list[str]) -> None:
        """Learn ``words`` (distinct, none known yet): one pass per column, each new term hashed once."""
        base = len(self.words)
        self.words.update(zip(words, range(base, base + len(words)), strict=True))
        terms = list(map(latin_term, words))
        known = self.terms
        new = [t for t in dict.fromkeys(terms) if t is not None and t not in known]
        if new:
            self.add_terms(new)
        fields = [-1 if t is None else known[t] for t in terms]
        self.field_term.extend(fields)
        self.body_term.extend([at if len(w) > 1 and not w.isdigit() else -1
                               for w, at in zip(words, fields, strict=True)])


_SESSION = _Session()


def new_session() -> None:
    """Start reporting hashed words afresh: every build reports each word it needs to its own store."""
    global _SESSION
    _SESSION = _Session()


def note_record(title: str, keywords: Sequence[str], topics: Sequence[tuple[str, str]], summary: str,
                authors: Sequence[str], body: str) -> Record:
    """Tokenise one note. ``topics`` are ``(slug, display name)`` pairs."""
    return next(note_records([NoteText(title, keywords, topics, summary, authors, body)]))


def note_records(notes: Iterable[NoteText]) -> Iterator[Record]:
    """The record of each note, in order; notes are tokenised ``BATCH_CHARS`` of text at a time."""
    batch: list[NoteText] = []
    size = 0
    for note in notes:
        batch.append(note)
        size += len(note.body) + len(note.summary) + 200
        if size >= BATCH_CHARS:
            yield from _batch(batch)
            batch, size = [], 0
    if batch:
        yield from _batch(batch)


def _segments(notes: Sequence[NoteText]) -> list[str]:
    """Five texts per note, noise removed: title, keywords and topic names, summary, authors, body."""
    out = []
    for n in notes:
        out += (_clean(plain(n.title)), _clean("\n".join([*n.keywords, *(name for _, name in n.topics)])),
                _clean(plain(n.summary)), _clean("\n".join(n.authors)), _NOISE.sub(" ", n.body))
    return out


def _code_points(segments: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The normalised text of every segment as one array of code points, each segment followed by a
    newline (no term crosses one), and the segment of each code point."""
    chars, seg_of = _joined(segments)
    high = np.flatnonzero(chars >= _FOLD_MIN)
    fold = high[_within(chars[high], FOLD_RANGES)]
    if len(fold):  # full-width digits and letters, compatibility forms: NFKC, in the segments holding them
        segments = list(segments)
        for k in np.unique(seg_of[fold]).tolist():
            segments[k] = normalise(segments[k])
        chars, seg_of = _joined(segments)
    return chars, seg_of


def _joined(segments: list[str]) -> tuple[np.ndarray, np.ndarray]:
    text = "\n".join(segments) + "\n"
    lowered = text.lower()
    if len(lowered) != len(text):  # "İ" lower-cases to two characters: the segments' lengths change
        segments = [s.lower() for s in segments]
        lowered = "\n".join(segments) + "\n"
    lengths = np.fromiter(map(len, segments), np.int64, len(segments)) + 1
    return (np.frombuffer(lowered.encode("utf-32-le"), np.uint32),
            np.repeat(np.arange(len(segments), dtype=np.int32), lengths))


def _latin_words(chars: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Where each Latin word and each hyphenated compound starts, and the words, then the compounds
    (``compounds``)."""
    latin = _within(chars, LATIN_RANGES)
    edge = np.empty(len(chars), dtype=bool)
    edge[0] = latin[0]
    np.not_equal(latin[1:], latin[:-1], out=edge[1:])
    starts = np.flatnonzero(edge & latin)
    after = edge & ~latin  # the character after each word (the text ends with a newline): a space
    spaced = np.where(after, np.uint32(32), chars)[latin | after]
    words = spaced.tobytes().decode("utf-32-le").split()
    # word i and word i + 1 are one compound when a single hyphen stands between them
    ends = np.flatnonzero(after)
    hyphen = chars[ends[:-1]]
    linked = _within(hyphen, _HYPHEN_RANGES) & (starts[1:] == ends[:-1] + 1)
    if not linked.any():
        return starts, words
    step = np.diff(np.concatenate([[False], linked, [False]]).astype(np.int8))
    firsts, lasts = np.flatnonzero(step == 1).tolist(), np.flatnonzero(step == -1).tolist()
    words += ["".join(words[a:b + 1]) for a, b in zip(firsts, lasts, strict=True)]
    return np.concatenate([starts, starts[firsts]]), words


def _terms(chars: np.ndarray, seg_of: np.ndarray) -> np.ndarray:
    """One key per term occurrence: ``note << 34 | term id << 3 | segment kind``."""
    cjk = _within(chars, CJK_RANGES)
    pairs = np.flatnonzero(cjk[:-1] & cjk[1:])
    lone = cjk.copy()
    lone[1:] &= ~cjk[:-1]
    lone[:-1] &= ~cjk[1:]
    singles = np.flatnonzero(lone)
    singles = singles[seg_of[singles] % _KINDS != BODY]  # bodies leave lone characters out
    c1 = chars[pairs].astype(np.int64) - CJK_BASE
    cjk_ids = np.concatenate([c1 * CJK_SPAN + chars[pairs + 1] - (CJK_BASE - 1),
                              (chars[singles].astype(np.int64) - CJK_BASE) * CJK_SPAN])
    cjk_segs = np.concatenate([seg_of[pairs], seg_of[singles]])

    starts, words = _latin_words(chars)
    session = _SESSION
    known = session.words
    index = np.fromiter(map(known.get, words, repeat(-1)), np.int64, len(words))  # one pass once words are known
    missing = np.flatnonzero(index < 0).tolist()
    if missing:
        session.add_words(list(dict.fromkeys(map(words.__getitem__, missing))))
        index[missing] = [known[words[i]] for i in missing]
    segs = seg_of[starts]
    terms = np.where(segs % _KINDS == BODY, session.body_term.data[index], session.field_term.data[index])
    kept = terms >= 0

    ids = np.concatenate([cjk_ids, terms[kept] + _LATIN_BASE])
    segs = np.concatenate([cjk_segs, segs[kept]]).astype(np.int64)
    return (segs // _KINDS) << 34 | ids << 3 | segs % _KINDS


def _batch(notes: Sequence[NoteText]) -> list[Record]:
    session = _SESSION
    if len(session.words) > _MEMO:  # bound the session's memory (words are then reported again: harmless)
        new_session()
        session = _SESSION
    chars, seg_of = _code_points(_segments(notes))
    keys = _terms(chars, seg_of)
    del chars, seg_of
    keys.sort()
    head = np.empty(len(keys), dtype=bool)
    head[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=head[1:])
    at = np.flatnonzero(head)
    keys = keys[at]
    tf = np.diff(np.append(at, len(head))).astype(np.float64)
    kind = keys & 7
    note = keys >> 34
    body = kind == BODY
    # BM25-like saturation; only the body is length-normalised (the same float operations, in the same
    # order, as one note at a time: a record does not depend on how notes were batched)
    lengths = np.bincount(note[body], weights=tf[body], minlength=len(notes))
    norm = 1 - B_BODY + B_BODY * lengths / PIVOT
    score = np.empty(len(keys))
    score[body] = W_BODY * tf[body] * (K1 + 1) / (tf[body] + K1 * norm[note[body]])
    short = ~body
    score[short] = _WEIGHTS[kind[short]] * (tf[short] * (K1 + 1) / (tf[short] + K1 * 1.0))
    # one posting per (note, term): field scores added in field order, then to the body's
    pair = keys >> 3
    new_pair = np.empty(len(pair), dtype=bool)
    new_pair[:1] = True
    np.not_equal(pair[1:], pair[:-1], out=new_pair[1:])
    pair = pair[new_pair]
    # ((title + keywords) + summary) + authors, then body + that: keys are in kind order within a pair, a
    # missing field adds nothing (x + 0.0 == x), and fewer than 8 terms are summed one after another
    starts = np.flatnonzero(new_pair)
    total = np.add.reduceat(np.where(body, 0.0, score), starts) if len(starts) else score
    total += np.where(body, score, 0.0)[np.append(starts[1:], len(score)) - 1]
    impacts = (np.searchsorted(_BOUNDS, total) + 1).astype(np.uint8)

    ids = pair & ((1 << 31) - 1)
    cjk = ids < _LATIN_BASE
    c1, c2 = np.divmod(ids[cjk], CJK_SPAN)
    codes = np.empty(len(ids), np.int64)
    codes[cjk] = CJK_FLAG | (c1 + CJK_BASE) << 21 | np.where(c2 > 0, c2 + (CJK_BASE - 1), 0)
    hashed = ids[~cjk] - _LATIN_BASE
    facets = [[session.term(TOPIC_PREFIX + slug) for slug, _ in n.topics] for n in notes]
    codes[~cjk] = session.codes.data[hashed]
    fresh, fresh_codes = session.report(np.concatenate([hashed, np.array([t for f in facets for t in f], np.int64)]))
    bounds = np.searchsorted(pair >> 31, np.arange(len(notes) + 1)).tolist()
    out = []
    for i, topics in enumerate(facets):
        a, b = bounds[i], bounds[i + 1]
        out.append(Record(codes[a:b].tobytes() + session.codes.data[topics].tobytes(),
                          impacts[a:b].tobytes() + b"\x01" * len(topics), () if i else fresh,
                          b"" if i else fresh_codes))
    return out

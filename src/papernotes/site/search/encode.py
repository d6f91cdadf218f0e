"""Search stage, step 2: the records of many notes become the binary shard files the browser reads.

In: ``(doc id, Record)`` pairs in doc order and the text of hashed term codes.
Out: shard bytes, cut by size along the sorted term list, so that a term — or
every term with a given prefix — lives in one or a few neighbouring shards,
found from the first term of each shard (listed in the manifest).

Postings are gathered column-wise with numpy (one ``uint64`` per posting:
term rank << 32 | doc << 8 | impact, sorted in place), which keeps the 50,000-
note corpus' 35 million postings within a few hundred MB and a few seconds.

Shard format (read by ``static/search-core.js``); integers are unsigned LEB128
varints:

    version byte (= 1)
    term count, byte length of the term list
    the terms, UTF-8, separated by "\\n", sorted by code point
    per term: its document frequency
    per term: its doc ids as gaps, the first one absolute
    per term: one impact byte per document (``tokenize.dequantise``)

Postings are stored whole, frequent terms included (so every match is found):
a term in all of 50,000 notes is one ~50 KB shard after gzip.
"""
from __future__ import annotations

import bisect
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from papernotes.site.search.tokenize import CJK_BASE, CJK_FLAG, CJK_SPAN, Record
from papernotes.text import is_cjk

VERSION = 1
SHARD_BYTES = 24_000
"""Target size of a shard before compression (one term's postings may exceed it)."""
BATCH = 500
"""Records concatenated per numpy step (their temporaries cost ~60 bytes a posting)."""

ENCODE_POSTINGS = 1 << 19
"""Postings encoded per numpy pass (their temporaries cost ~50 bytes a posting)."""

RecordSource = Callable[[], Iterator[tuple[int, Record]]]
THREADS = min(2, os.cpu_count() or 1)
"""Threads that pack and encode postings: numpy lets go of the GIL for each whole-array step."""

_In = TypeVar("_In")
_Out = TypeVar("_Out")


def _threaded(work: Callable[[_In], _Out], items: Iterable[_In]) -> Iterator[_Out]:
    """``map(work, items)`` on ``THREADS`` threads, in order, at most ``THREADS`` results ahead (memory stays
    that of a few steps)."""
    if THREADS < 2:
        yield from map(work, items)
        return
    with ThreadPoolExecutor(THREADS, thread_name_prefix="search-encode") as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(work, item))
            if len(pending) > THREADS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()




@dataclass(frozen=True)
class Postings:
    """Every posting of an index, sorted by term then document.

    A term's *id* orders terms like their text: hashed terms first by their
    rank in the sorted word list, then CJK terms by ``(c1, c2)``.
    """

    packed: np.ndarray
    """``uint64``: term id << 32 | doc << 8 | impact, ascending."""
    ids: np.ndarray
    """The distinct term ids, ascending (a term's position here is its index)."""
    starts: np.ndarray
    """Offset in ``packed`` of each term's first posting; one more entry than terms."""
    words: list[str]
    """Text of the hashed terms in sorted order; their ids are their positions."""
    hashed: np.ndarray
    """Codes of the hashed terms that occur (for pruning the vocabulary)."""

    def __len__(self) -> int:
        return len(self.ids)

    def joined(self, first: int, end: int) -> str:
        """The text of terms ``[first, end)``, one per line (CJK terms decoded in one go)."""
        ids = self.ids[first:end]
        split = int(np.searchsorted(ids, len(self.words)))
        cjk = ids[split:] - len(self.words)
        c2 = cjk % CJK_SPAN
        chars = np.stack([cjk // CJK_SPAN + CJK_BASE, np.where(c2 > 0, c2 + (CJK_BASE - 1), 0),
                          np.full(len(cjk), 10)], axis=1).ravel()
        text = chars[chars > 0].astype("<u4").tobytes().decode("utf-32-le")[:-1]
        words = "\n".join([self.words[i] for i in ids[:split].tolist()])
        return f"{words}\n{text}" if words and text else words or text

    def term(self, index: int) -> str:
        return self.joined(index, index + 1)


def _cjk_ids(codes: np.ndarray) -> np.ndarray:
    """Order-preserving compact ids of CJK codes (``tokenize.CJK_SPAN``)."""
    c1 = (codes >> 21) & 0x1FFFFF
    c2 = codes & 0x1FFFFF
    return (c1 - CJK_BASE) * CJK_SPAN + np.where(c2 > 0, c2 - (CJK_BASE - 1), 0)


def _batches(source: RecordSource) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(codes, docs, impacts)`` columns of up to ``BATCH`` records at a time."""
    codes: list[bytes] = []
    docs: list[int] = []
    sizes: list[int] = []
    impacts: list[bytes] = []
    for doc, record in source():
        codes.append(record.codes)
        impacts.append(record.impacts)
        docs.append(doc)
        sizes.append(len(record.impacts))
        if len(docs) == BATCH:
            yield _columns(codes, docs, sizes, impacts)
            codes, docs, sizes, impacts = [], [], [], []
    if docs:
        yield _columns(codes, docs, sizes, impacts)


def _columns(codes: list[bytes], docs: list[int], sizes: list[int], impacts: list[bytes]) -> tuple[
        np.ndarray, np.ndarray, np.ndarray]:
    return (np.frombuffer(b"".join(codes), dtype=np.int64), np.repeat(np.array(docs, np.uint64), sizes),
            np.frombuffer(b"".join(impacts), dtype=np.uint8))


def gather(source: RecordSource, words_of: Callable[[np.ndarray], Mapping[int, str]],
           vocabulary: Mapping[int, str] | None = None) -> Postings:
    """Two passes over ``source`` (called twice): the hashed terms and their order, then the postings.
    ``vocabulary``: the text of exactly the hashed terms ``source`` holds, when known (one pass)."""
    total = 0
    if vocabulary is None:
        parts: list[np.ndarray] = []
        for codes, _, _ in _batches(source):
            parts.append(_distinct(codes[codes < CJK_FLAG]))
            total += len(codes)
        hashed = _distinct(np.concatenate(parts)) if parts else np.empty(0, np.int64)
        text = words_of(hashed)
    else:
        hashed = np.sort(np.fromiter(vocabulary, np.int64, len(vocabulary)))
        text = vocabulary
        total = -1
    strings = [text[c] for c in hashed.tolist()]
    order = sorted(range(len(strings)), key=strings.__getitem__)
    rank = np.empty(len(hashed), np.int64)
    rank[np.array(order, np.int64)] = np.arange(len(order), dtype=np.int64)

    def pack(batch: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        codes, docs, impacts = batch
        cjk = codes >= CJK_FLAG
        ids = np.empty(len(codes), np.int64)
        ids[cjk] = _cjk_ids(codes[cjk]) + len(hashed)
        ids[~cjk] = rank[np.searchsorted(hashed, codes[~cjk])]
        return ids.astype(np.uint64) << np.uint64(32) | docs << np.uint64(8) | impacts

    packed = np.empty(max(total, 0), np.uint64)
    batches: list[np.ndarray] = []  # with a vocabulary (records held in memory) joined at the end, else in place
    at = 0
    for batch in _threaded(pack, _batches(source)):
        if total < 0:
            batches.append(batch)
        else:
            packed[at:at + len(batch)] = batch
            at += len(batch)
    if batches:
        packed = np.concatenate(batches)
        del batches
    packed.sort()
    heads, ids = _term_heads(packed)
    return Postings(packed, ids, np.append(heads, len(packed)), [strings[i] for i in order], hashed)


def _term_heads(packed: np.ndarray, step: int = 1 << 20) -> tuple[np.ndarray, np.ndarray]:
    """Where each term's postings start, and its id; in slices, so that no full-size temporary is made."""
    heads: list[np.ndarray] = []
    ids: list[np.ndarray] = []
    previous = -1
    for start in range(0, len(packed), step):
        part = (packed[start:start + step] >> np.uint64(32)).astype(np.int64)
        at = np.flatnonzero(np.diff(part, prepend=previous))
        heads.append(at + start)
        ids.append(part[at])
        previous = int(part[-1])
    if not heads:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(heads), np.concatenate(ids)


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.unique`` hashes, and is slow on these codes)."""
    ordered = np.sort(values)
    keep = np.empty(len(ordered), dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def cut(postings: Postings, target: int | None = None) -> list[tuple[int, int]]:
    """Term ranges ``[start, end)`` of about ``target`` (default ``SHARD_BYTES``) bytes each.

    Cost estimate: 2.5 bytes a posting and 8 a term.
    """
    if not len(postings):
        return []
    target = target or SHARD_BYTES
    cost = np.diff(postings.starts) * 2.5 + 8
    shard = ((np.cumsum(cost) - cost) // target).astype(np.int64)
    edges = [0, *(np.flatnonzero(np.diff(shard)) + 1).tolist(), len(postings)]
    return list(zip(edges[:-1], edges[1:]))


PREFIX_MIN = 3
"""A Latin word is looked up as a prefix from this many letters on (``search-core.js``)."""
PREFIX_TERMS = 64
"""The page expands a prefix to at most this many terms, the most frequent of those in its shards."""
PREFIX_SHARDS = 3
"""And reads at most this many shards for it: its own and the ones that follow it."""
_TYPED_PREFIX = re.compile("[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]{%d,}" % PREFIX_MIN)


def wide_prefixes(postings: Postings, ranges: Sequence[tuple[int, int]], firsts: Sequence[str]) -> dict[str, list[int]]:
    """The shards the page reads for each prefix whose terms fill more shards than it reads.

    A prefix the page expands (a Chinese character, a Latin word of ``PREFIX_MIN`` letters or more)
    is read from its own shard and the ones that follow, ``PREFIX_SHARDS`` in all. When its terms run
    past them, those shards hold whichever of its terms sort first: at 50,000 notes "模" spans 31
    shards and its first three hold 模上, 模下 and 模不, not 模型. For such a prefix the manifest names
    its own shard and the ``PREFIX_SHARDS - 1`` others holding the most postings of its
    ``PREFIX_TERMS`` most frequent terms (ties: the earlier shard), when they are not the ones that follow it.
    """
    n = len(firsts)
    candidates: set[str] = set()
    for first in firsts:
        if first and is_cjk(first[0]):
            candidates.add(first[0])
        match = _TYPED_PREFIX.match(first)
        if match:  # a number is no prefix (parseQuery)
            candidates.update(word for k in range(PREFIX_MIN, len(match[0]) + 1) if not (word := match[0][:k]).isdigit())
    df = np.diff(postings.starts)
    out: dict[str, list[int]] = {}
    for prefix in sorted(candidates):
        own = bisect.bisect_right(firsts, prefix) - 1  # search-core.js shardFor
        if own < 0 or own + PREFIX_SHARDS >= n or not firsts[own + PREFIX_SHARDS].startswith(prefix):
            continue  # its terms are all in the shards the page reads anyway
        last = own + PREFIX_SHARDS
        while last + 1 < n and firsts[last + 1].startswith(prefix):
            last += 1
        terms: list[tuple[int, int, int]] = []  # (-df, order, shard), as the page sorts them
        for shard in range(own, last + 1):
            start, end = ranges[shard]
            for k, term in enumerate(postings.joined(start, end).split("\n")):
                if term.startswith(prefix):
                    terms.append((-int(df[start + k]), len(terms), shard))
        held: dict[int, int] = {}
        for minus_df, _, shard in sorted(terms)[:PREFIX_TERMS]:
            held[shard] = held.get(shard, 0) - minus_df
        held.pop(own, None)
        best = sorted(sorted(held, key=lambda shard: (-held[shard], shard))[:PREFIX_SHARDS - 1])
        if best != list(range(own + 1, own + PREFIX_SHARDS)):  # else the page's rule reads them anyway
            out[prefix] = [own, *best]
    return out


def _leb128(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unsigned LEB128 of every value, concatenated, and where each value's bytes start (one more entry).

    Every value's bytes are a row of a ``values × widest`` table (low 7 bits first, the high bit set on all but
    the last); the bytes a value needs are its row's first ones, so masking the table row by row gives the
    concatenation."""
    v = values.astype(np.uint64)
    top = int(v.max()) if len(v) else 0
    width = max(1, (top.bit_length() + 6) // 7)
    n = np.ones(len(v), np.int64)
    for k in range(1, width):
        n += v >= np.uint64(1 << 7 * k)
    offsets = np.zeros(len(v) + 1, np.int64)
    np.cumsum(n, out=offsets[1:])
    small = v.astype(np.uint32) if top < 1 << 32 else v
    table = np.empty((len(v), width), np.uint8)
    for k in range(width):
        table[:, k] = (small >> small.dtype.type(7 * k)).astype(np.uint8) & 0x7F | (n > k + 1).view(np.uint8) << 7
    out = table[np.arange(width) < n[:, None]] if width > 1 else table[:, 0]
    return out, offsets


def varints(values: np.ndarray) -> bytes:
    """Unsigned LEB128 of every value, concatenated."""
    return _leb128(values)[0].tobytes()


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_shard(postings: Postings, first: int, end: int) -> bytes:
    """The shard of terms ``[first, end)``."""
    return next(encode_shards(postings, [(first, end)]))


def encode_shards(postings: Postings, ranges: Sequence[tuple[int, int]]) -> Iterator[bytes]:
    """The shard of each of ``ranges`` (ascending, adjacent term ranges): the columns of up to
    ``ENCODE_POSTINGS`` postings' shards are encoded in one numpy pass each (on ``THREADS`` threads),
    then sliced."""
    def groups() -> Iterator[list[tuple[int, int]]]:
        group: list[tuple[int, int]] = []
        for a, b in ranges:
            if group and int(postings.starts[b] - postings.starts[group[0][0]]) > ENCODE_POSTINGS:
                yield group
                group = []
            group.append((a, b))
        if group:
            yield group

    for shards in _threaded(lambda group: list(_encode_group(postings, group)), groups()):
        yield from shards


def _encode_group(postings: Postings, ranges: list[tuple[int, int]]) -> Iterator[bytes]:
    t0, t1 = ranges[0][0], ranges[-1][1]
    lo = int(postings.starts[t0])
    part = postings.packed[lo:int(postings.starts[t1])]
    docs = ((part >> np.uint64(8)) & np.uint64(0xFFFFFF)).astype(np.int64)
    gaps = np.diff(docs, prepend=0)
    heads = postings.starts[t0:t1] - lo
    gaps[heads] = docs[heads]  # each term's first doc id is absolute
    gap_bytes, gap_at = _leb128(gaps)
    df_bytes, df_at = _leb128(np.diff(postings.starts[t0:t1 + 1]))
    impacts = (part & np.uint64(0xFF)).astype(np.uint8)
    text = (postings.joined(t0, t1) + "\n").encode("utf-8")
    ids = postings.ids[t0:t1]
    words = len(postings.words)
    hashed = int(np.searchsorted(ids, words))
    sizes = np.empty(len(ids), np.int64)  # UTF-8 bytes of each term and its newline
    sizes[:hashed] = [len(postings.words[i].encode("utf-8")) + 1 for i in ids[:hashed].tolist()]
    sizes[hashed:] = np.where((ids[hashed:] - words) % CJK_SPAN > 0, 7, 4)  # CJK: 3 bytes a character
    text_at = np.zeros(len(ids) + 1, np.int64)
    np.cumsum(sizes, out=text_at[1:])
    assert text_at[-1] == len(text)  # internal invariant (CJK terms are in the BMP), not input
    for a, b in ranges:
        a0, b0 = a - t0, b - t0
        pa, pb = int(postings.starts[a]) - lo, int(postings.starts[b]) - lo
        term_text = text[text_at[a0]:text_at[b0] - 1]
        yield b"".join((bytes([VERSION]), _varint(b - a), _varint(len(term_text)), term_text,
                        df_bytes[df_at[a0]:df_at[b0]].tobytes(), gap_bytes[gap_at[pa]:gap_at[pb]].tobytes(),
                        impacts[pa:pb].tobytes()))


def decode_shard(data: bytes) -> dict[str, list[tuple[int, int]]]:
    """The inverse of ``encode_shard``: term → ``[(doc, impact), …]`` (for tests and benchmarks)."""
    if not data or data[0] != VERSION:
        raise ValueError(f"not a version-{VERSION} shard")
    pos = 1

    def read() -> int:
        nonlocal pos
        value = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    count, length = read(), read()
    terms = data[pos:pos + length].decode("utf-8").split("\n") if count else []
    pos += length
    dfs = [read() for _ in range(count)]
    docs: list[list[int]] = []
    for df in dfs:
        doc, ids = 0, []
        for _ in range(df):
            doc += read()
            ids.append(doc)
        docs.append(ids)
    out = {}
    for term, ids in zip(terms, docs):
        out[term] = list(zip(ids, data[pos:pos + len(ids)]))
        pos += len(ids)
    return out

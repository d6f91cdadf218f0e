"""Plan stage, related papers: the TF-IDF model of a set of notes as numpy arrays.

In: ``terms.RelatedInput`` records. Out: ``Model`` — term ids, each note's distinct terms and
integer weights (count × idf rounded to ``1/IDF_STEPS``, scikit-learn's smoothed idf), norms,
papers — and ``Model.dots``, exact dot products of pairs of notes. ``exact`` and ``pruned``
score rows from it; ``update`` reads it to keep rows on a rebuild.

Every weight is an integer and every dot product an integer held exactly in a float64, so no
result depends on summation order or block size; and an edit leaves every other note's vector
bit for bit as it was unless one of its terms' idf crosses a step.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property
from itertools import chain, count

import numpy as np

from papernotes.site.related.terms import RelatedInput

NEIGHBOURS = 5
"""Notes in a related list."""
IDF_STEPS = 16
DOT_ROWS = 64
"""Rows per group of exact dot products (a dense table of about ``64 × 64 × 140`` weights)."""
EMPTY = np.zeros(0, np.int64)

Row = tuple[tuple[int, ...], tuple[int, ...]]
"""A scored row: its neighbours (indices, best first) and the candidates scored exactly (pruned; else empty)."""


def quantised_idf(df: int, n: int) -> int:
    return round(IDF_STEPS * (math.log((1 + n) / (1 + df)) + 1.0))


def idf_of(df: np.ndarray, n: int) -> np.ndarray:
    """``quantised_idf`` of every document frequency in ``df``."""
    values, where = np.unique(df, return_inverse=True)
    return np.array([quantised_idf(int(d), n) for d in values], np.int64)[where]


class Model:
    """Term counts, weights and norms of a set of notes.

    Notes are in path order (ties break by index); term ids follow the terms' first
    appearance in that order.
    ``row``/``col``/``weight`` hold one entry per (note, distinct term), by note then term.
    """

    def __init__(self, notes: Sequence[RelatedInput]) -> None:
        self.notes = notes = sorted(notes, key=lambda r: r.path)
        self.n = n = len(notes)
        first: dict[str, int] = {}  # term -> position of its first occurrence
        tokens = np.fromiter(map(first.setdefault, chain.from_iterable(r.terms for r in notes), count()), np.int64)
        self.vocab = vocab = list(first)  # by first occurrence: term id order
        flat = (np.cumsum(tokens == np.arange(len(tokens))) - 1)[tokens]  # a term's id: how many terms came first
        v = max(len(vocab), 1)
        lengths = np.fromiter(map(len, (r.terms for r in notes)), np.int64, n)
        keys, counts = np.unique(np.repeat(np.arange(n, dtype=np.int64), lengths) * v + flat, return_counts=True)
        self.row, self.col = keys // v, keys % v
        self.df = df = np.bincount(self.col, minlength=len(vocab))
        self.idf = idf_of(df, n)
        self.weight = weight = counts * self.idf[self.col]
        norms = np.sqrt(np.bincount(self.row, (weight * weight).astype(np.float64), minlength=n))
        norms[norms == 0] = 1.0
        self.norms = norms
        shared = np.flatnonzero(df[self.col] > 1)  # a term of one note never adds to a dot product with another
        self.s_col, self.s_weight = self.col[shared].astype(np.int32), weight[shared].astype(np.float64)
        self.s_indptr = indptr_of(self.row[shared], n)
        papers: dict[str, int] = {}
        self.paper = [papers.setdefault(r.paper, len(papers)) for r in notes]
        self._lookup = np.zeros(len(vocab), np.int64)  # scratch: term id -> column in a dense table, from its end

    @cached_property
    def term_id(self) -> dict[str, int]:
        return dict(zip(self.vocab, range(len(self.vocab))))

    def df_of(self, term: str) -> int:
        i = self.term_id.get(term)
        return 0 if i is None else int(self.df[i])

    def dots(self, rows: np.ndarray, pair_row: np.ndarray, pair_note: np.ndarray) -> np.ndarray:
        """Exact dot products (integers, as float64) of ``rows[pair_row]`` with ``pair_note``, over every term.

        ``pair_row`` is sorted. Rows go in groups of ``DOT_ROWS``: each group's weights are laid out
        densely over the terms its rows use (plus a column of zeros for every other term), and every
        candidate's terms are looked up in that table.
        """
        out = np.zeros(len(pair_row), np.float64)
        bounds = np.searchsorted(pair_row, np.arange(0, len(rows) + DOT_ROWS, DOT_ROWS)).tolist()
        lookup, indptr, col, weight = self._lookup, self.s_indptr, self.s_col, self.s_weight
        for g, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
            if lo == hi:
                continue
            group = rows[g * DOT_ROWS:(g + 1) * DOT_ROWS]
            own = spans(indptr, group)
            union, slot = np.unique(col[own], return_inverse=True)
            width = len(union) + 1
            table = np.zeros(len(group) * width, np.float64)
            table[np.repeat(np.arange(len(group)) * width, indptr[group + 1] - indptr[group]) + slot] = weight[own]
            lookup[union] = np.arange(-len(union), 0)  # offsets back from the zero column
            notes = pair_note[lo:hi]
            lengths = indptr[notes + 1] - indptr[notes]
            theirs = spans(indptr, notes)
            at = np.repeat((pair_row[lo:hi] - g * DOT_ROWS) * width + width - 1, lengths)
            at += lookup[col[theirs]]
            products = table[at] * weight[theirs]
            if len(products):
                sums = np.add.reduceat(products, np.cumsum(lengths) - lengths)
                out[lo:hi] = np.where(lengths > 0, sums, 0.0)
            lookup[union] = 0
        return out


def indptr_of(owners: np.ndarray, size: int) -> np.ndarray:
    """CSR offsets of sorted ``owners`` in ``range(size)``."""
    out = np.zeros(size + 1, np.int64)
    np.cumsum(np.bincount(owners, minlength=size), out=out[1:])
    return out


def ranks(groups: np.ndarray) -> np.ndarray:
    """Each element's position within its run of equal values (``groups`` sorted)."""
    if len(groups) == 0:
        return groups
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.arange(len(groups)) - np.repeat(starts, np.diff(np.r_[starts, len(groups)]))


def spans(indptr: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The positions ``indptr[w]:indptr[w + 1]`` of every ``w`` in ``which``, concatenated."""
    lo, lengths = indptr[which], indptr[which + 1] - indptr[which]
    total = int(lengths.sum())
    if total == 0:
        return EMPTY
    return np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)

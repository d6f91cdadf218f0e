"""Plan stage, related papers: the numpy model of a set of notes, and the pruned scoring of its rows.

In: ``related.RelatedInput`` records. Out: ``Model`` (term ids, integer weights, norms, papers,
and for the pruned path each note's query terms and every term's truncated postings) and, from
``Model.rows``, each row's neighbours and the candidates behind them. ``related`` chooses between
this pruned path and ``related_exact``; ``related_update`` reads the model to keep rows on updates.
Imported only when lists are computed (numpy stays out of a build that computes none).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from itertools import chain, count

import numpy as np

from papernotes.site import related

class Model:
    """Term counts, weights, norms, query lists and truncated postings of a set of notes, as numpy arrays.

    Term ids follow the terms' first appearance in path order; ``rank`` orders the terms of
    more than one note as strings (the only ones a query can hold). Every weight is an
    integer (count × quantised idf) and every partial or full dot product is an integer held
    exactly in a float64, so sums do not depend on their order.
    """

    def __init__(self, notes: Sequence[related.RelatedInput], pruned: bool = True) -> None:
        """``pruned``: also build the query lists and truncated postings (``rows``, ``related_update``)."""
        self.notes = notes = sorted(notes, key=lambda r: r.path)  # index order is path order: ties break by index
        self.n = n = len(notes)
        first: dict[str, int] = {}  # term -> position of its first occurrence
        tokens = np.fromiter(map(first.setdefault, chain.from_iterable(r.terms for r in notes), count()), np.int64)
        self.vocab = vocab = list(first)  # by first occurrence: term id order
        flat = (np.cumsum(tokens == np.arange(len(tokens))) - 1)[tokens]  # a term's id: how many terms came first
        v = max(len(vocab), 1)
        lengths = np.fromiter(map(len, (r.terms for r in notes)), np.int64, n)
        keys, counts = np.unique(np.repeat(np.arange(n, dtype=np.int64), lengths) * v + flat, return_counts=True)
        self.row, self.col = keys // v, keys % v  # one entry per (note, distinct term), by note then term
        self.indptr = _indptr(self.row, n)
        self.df = df = np.bincount(self.col, minlength=len(vocab))
        values, where = np.unique(df, return_inverse=True)
        self.idf = np.array([related.quantised_idf(int(d), n) for d in values], np.int64)[where]
        self.rank = rank = np.zeros(len(vocab), np.int64)
        common = np.flatnonzero(df > 1)
        rank[sorted(common.tolist(), key=vocab.__getitem__)] = np.arange(len(common))
        self.weight = weight = counts * self.idf[self.col]
        norms = np.sqrt(np.bincount(self.row, (weight * weight).astype(np.float64), minlength=n))
        norms[norms == 0] = 1.0
        self.norms = norms
        self.cap = cap = max(related.MAX_DF * n, related.MIN_DF_CAP)
        if pruned:
            eligible = np.flatnonzero((df[self.col] > 1) & (df[self.col] <= cap))
            # queries: a note's related.QUERY_TERMS heaviest eligible terms, ties by term
            by_note = eligible[np.lexsort((rank[self.col[eligible]], -weight[eligible], self.row[eligible]))]
            keep = by_note[_ranks(self.row[by_note]) < related.QUERY_TERMS]
            self.q_col, self.q_weight = self.col[keep], weight[keep]
            self.q_indptr = _indptr(self.row[keep], n)
            # postings: the related.POSTINGS notes a term weighs most in, ties by path (index)
            by_term = eligible[np.lexsort((self.row[eligible], -weight[eligible], self.col[eligible]))]
            keep = by_term[_ranks(self.col[by_term]) < related.POSTINGS]
            self.p_row, self.p_weight = self.row[keep], weight[keep]
            self.p_indptr = _indptr(self.col[keep], len(vocab))
        shared = np.flatnonzero(df[self.col] > 1)  # a term of one note never adds to a dot product with another
        self.s_col, self.s_weight = self.col[shared].astype(np.int32), weight[shared].astype(np.float64)
        self.s_indptr = _indptr(self.row[shared], n)
        papers: dict[str, int] = {}
        self.paper = [papers.setdefault(r.paper, len(papers)) for r in notes]
        self._lookup = np.zeros(len(vocab), np.int64)  # scratch: term id -> column in a dense table, from its end

    @cached_property
    def term_id(self) -> dict[str, int]:
        return dict(zip(self.vocab, range(len(self.vocab))))

    def df_of(self, term: str) -> int:
        i = self.term_id.get(term)
        return 0 if i is None else int(self.df[i])

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """The notes ``term``'s truncated postings hold (indices, best first) and their weights."""
        t = self.term_id.get(term)
        if t is None:
            return _EMPTY, _EMPTY
        lo, hi = self.p_indptr[t], self.p_indptr[t + 1]
        return self.p_row[lo:hi], self.p_weight[lo:hi]

    def rows(self, todo: Sequence[int]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """For each row in ``todo``: indices of its neighbours, best first, and of every candidate scored exactly."""
        out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        step = BLOCK_ROWS
        todo = np.asarray(todo, np.int64)
        for start in range(0, len(todo), step):
            out += self._block(todo[start:start + step])
        return out

    def _block(self, rows: np.ndarray) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        n, size = self.n, len(rows)
        # partial scores: every query term of each row against its postings, summed per (row, note)
        q = _spans(self.q_indptr, rows)
        terms = self.q_col[q]
        p = _spans(self.p_indptr, terms)
        fan = self.p_indptr[terms + 1] - self.p_indptr[terms]
        cells = np.repeat(np.repeat(np.arange(size, dtype=np.int64), self.q_indptr[rows + 1] - self.q_indptr[rows]) * n,
                          fan) + self.p_row[p]
        cells, score = _sum_by_key(cells, np.repeat(self.q_weight[q], fan) * self.p_weight[p])
        local, note = np.divmod(cells, n)
        other = note != rows[local]  # the note itself
        local, note, score = local[other], note[other], score[other]
        # related.CANDIDATES per row: highest partial score, ties by index
        local, note = _top_per_group(local, score, note, n, related.CANDIDATES)
        pair_row, pair_note = local, note
        dots = self._dots(rows, pair_row, pair_note)
        cosine = dots / (self.norms[rows][pair_row] * self.norms[pair_note])
        final = np.lexsort((pair_note, -cosine, pair_row))
        found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        bounds = np.searchsorted(pair_row[final], np.arange(size + 1)).tolist()
        notes_sorted, cos_sorted = pair_note[final].tolist(), cosine[final].tolist()
        paper = self.paper
        for k, row in enumerate(rows.tolist()):
            lo, hi = bounds[k], bounds[k + 1]
            seen = {paper[row]}
            out: list[int] = []
            for b, c in zip(notes_sorted[lo:hi], cos_sorted[lo:hi]):
                pb = paper[b]
                if c <= 0 or pb in seen:
                    continue
                seen.add(pb)
                out.append(b)
                if len(out) == related.NEIGHBOURS:
                    break
            found.append((tuple(out), tuple(sorted(notes_sorted[lo:hi]))))
        return found

    def _dots(self, rows: np.ndarray, pair_row: np.ndarray, pair_note: np.ndarray) -> np.ndarray:
        """Exact dot products (integers, as float64) of ``rows[pair_row]`` with ``pair_note``, over every term.

        ``pair_row`` is sorted. Rows go in small groups: each group's weights are laid out densely
        over the terms its rows use (plus a column of zeros for every other term), and every
        candidate's terms are looked up in that table.
        """
        out = np.zeros(len(pair_row), np.float64)
        bounds = np.searchsorted(pair_row, np.arange(0, len(rows) + DOT_ROWS, DOT_ROWS)).tolist()
        lookup, indptr, col, weight = self._lookup, self.s_indptr, self.s_col, self.s_weight
        for g, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
            if lo == hi:
                continue
            group = rows[g * DOT_ROWS:(g + 1) * DOT_ROWS]
            own = _spans(indptr, group)
            union, slot = np.unique(col[own], return_inverse=True)
            width = len(union) + 1
            table = np.zeros(len(group) * width, np.float64)
            table[np.repeat(np.arange(len(group)) * width, indptr[group + 1] - indptr[group]) + slot] = weight[own]
            lookup[union] = np.arange(-len(union), 0)  # offsets back from the zero column
            notes = pair_note[lo:hi]
            lengths = indptr[notes + 1] - indptr[notes]
            theirs = _spans(indptr, notes)
            at = np.repeat((pair_row[lo:hi] - g * DOT_ROWS) * width + width - 1, lengths)
            at += lookup[col[theirs]]
            products = table[at] * weight[theirs]
            if len(products):
                sums = np.add.reduceat(products, np.cumsum(lengths) - lengths)
                out[lo:hi] = np.where(lengths > 0, sums, 0.0)
            lookup[union] = 0
        return out


DOT_ROWS = 64
"""Rows per group of exact dot products (a dense table of about ``64 × 64 × 140`` weights)."""
BLOCK_ROWS = 1024
"""Rows scored together: at most ``QUERY_TERMS × POSTINGS`` partial products each (2.5 M, 20 MB, a block)."""
_EMPTY = np.zeros(0, np.int64)


def _indptr(owners: np.ndarray, size: int) -> np.ndarray:
    """CSR offsets of sorted ``owners`` in ``range(size)``."""
    out = np.zeros(size + 1, np.int64)
    np.cumsum(np.bincount(owners, minlength=size), out=out[1:])
    return out


def _ranks(groups: np.ndarray) -> np.ndarray:
    """Each element's position within its run of equal values (``groups`` sorted)."""
    if len(groups) == 0:
        return groups
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.arange(len(groups)) - np.repeat(starts, np.diff(np.r_[starts, len(groups)]))


def _sum_by_key(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (sorted) and the sum of the non-negative integer ``values`` of each."""
    if len(keys) == 0:
        return keys, values
    shift = int(values.max()).bit_length()
    if int(keys.max()).bit_length() + shift <= 63:  # one packed sort instead of an argsort and two gathers
        packed = np.sort((keys << shift) | values)
        keys, values = packed >> shift, packed & ((1 << shift) - 1)
    else:
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.add.reduceat(values, starts)


def _top_per_group(group: np.ndarray, score: np.ndarray, item: np.ndarray, items: int,
                   k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` items of highest non-negative integer ``score`` in each group, ties by item:
    ``(group, item)`` sorted by group, best first. ``item`` is in ``range(items)``."""
    if len(group) == 0:
        return group, item
    top = int(score.max())
    item_bits, score_bits = max(items - 1, 1).bit_length(), top.bit_length()
    if int(group.max()).bit_length() + score_bits + item_bits <= 63:
        packed = np.sort((group << (score_bits + item_bits)) | ((top - score) << item_bits) | item)
        group, item = packed >> (score_bits + item_bits), packed & ((1 << item_bits) - 1)
    else:
        order = np.lexsort((item, -score, group))
        group, item = group[order], item[order]
    keep = _ranks(group) < k
    return group[keep], item[keep]


def _spans(indptr: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The positions ``indptr[w]:indptr[w + 1]`` of every ``w`` in ``which``, concatenated."""
    lo, lengths = indptr[which], indptr[which + 1] - indptr[which]
    total = int(lengths.sum())
    if total == 0:
        return _EMPTY
    return np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)

"""Plan stage, related papers beyond ``exact.EXACT_NOTES`` notes: candidates from truncated postings.

In: a ``model.Model``. Out: for each row asked for, its ``NEIGHBOURS`` nearest notes (best first)
and the candidates behind them (what ``update.stale_pruned`` needs to keep the row on a rebuild).
Exact cosine over every pair costs ``Σ df²`` (177 s at 50,000 notes); instead:

1. candidates: each note queries its ``QUERY_TERMS`` heaviest terms (terms in more than
   ``MAX_DF`` of the notes, or in one note only, never count) against postings that keep
   the ``POSTINGS`` notes each term weighs most in;
2. the best ``CANDIDATES`` by that partial score are scored exactly (``Model.dots``, full
   norms) and the top ``NEIGHBOURS`` kept, one note per paper.

Partial scores are summed with one packed sort per block of ``BLOCK_ROWS`` rows, and the best
candidates per row picked with a second. Ties break by path (index).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from papernotes.site.related.model import EMPTY, NEIGHBOURS, Model, Row, indptr_of, ranks, spans

QUERY_TERMS = 80
POSTINGS = 30
CANDIDATES = 25
MAX_DF = 0.1
MIN_DF_CAP = 50
"""A term in this many notes or fewer is never too common to count (small corpora)."""
BLOCK_ROWS = 1024
"""Rows scored together: at most ``QUERY_TERMS × POSTINGS`` partial products each (2.5 M, 20 MB, a block)."""

def cap_of(n: int) -> float:
    """Terms in more notes than this are too common to query or post."""
    return max(MAX_DF * n, MIN_DF_CAP)


class Pruned:
    """Each note's query terms and every term's truncated postings."""

    def __init__(self, model: Model) -> None:
        self.model = m = model
        self.cap = cap_of(m.n)
        rank = np.zeros(len(m.vocab), np.int64)  # the terms of more than one note, ordered as strings
        common = np.flatnonzero(m.df > 1)
        rank[sorted(common.tolist(), key=m.vocab.__getitem__)] = np.arange(len(common))
        eligible = np.flatnonzero((m.df[m.col] > 1) & (m.df[m.col] <= self.cap))
        # queries: a note's QUERY_TERMS heaviest eligible terms, ties by term
        by_note = eligible[np.lexsort((rank[m.col[eligible]], -m.weight[eligible], m.row[eligible]))]
        keep = by_note[ranks(m.row[by_note]) < QUERY_TERMS]
        self.q_col, self.q_weight = m.col[keep], m.weight[keep]
        self.q_indptr = indptr_of(m.row[keep], m.n)
        # postings: the POSTINGS notes a term weighs most in, ties by path (index)
        by_term = eligible[np.lexsort((m.row[eligible], -m.weight[eligible], m.col[eligible]))]
        keep = by_term[ranks(m.col[by_term]) < POSTINGS]
        self.p_row, self.p_weight = m.row[keep], m.weight[keep]
        self.p_indptr = indptr_of(m.col[keep], len(m.vocab))

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """The notes ``term``'s truncated postings hold (indices, best first) and their weights."""
        t = self.model.term_id.get(term)
        if t is None:
            return EMPTY, EMPTY
        lo, hi = self.p_indptr[t], self.p_indptr[t + 1]
        return self.p_row[lo:hi], self.p_weight[lo:hi]

    def rows(self, todo: Sequence[int]) -> list[Row]:
        out: list[Row] = []
        todo = np.asarray(todo, np.int64)
        for start in range(0, len(todo), BLOCK_ROWS):
            out += self._block(todo[start:start + BLOCK_ROWS])
        return out

    def _block(self, rows: np.ndarray) -> list[Row]:
        m = self.model
        n, size = m.n, len(rows)
        # partial scores: every query term of each row against its postings, summed per (row, note)
        q = spans(self.q_indptr, rows)
        terms = self.q_col[q]
        p = spans(self.p_indptr, terms)
        fan = self.p_indptr[terms + 1] - self.p_indptr[terms]
        cells = np.repeat(np.repeat(np.arange(size, dtype=np.int64), self.q_indptr[rows + 1] - self.q_indptr[rows]) * n,
                          fan) + self.p_row[p]
        cells, score = _sum_by_key(cells, np.repeat(self.q_weight[q], fan) * self.p_weight[p])
        local, note = np.divmod(cells, n)
        other = note != rows[local]  # the note itself
        pair_row, pair_note = _top_per_group(local[other], score[other], note[other], n, CANDIDATES)
        cosine = m.dots(rows, pair_row, pair_note) / (m.norms[rows][pair_row] * m.norms[pair_note])
        final = np.lexsort((pair_note, -cosine, pair_row))
        bounds = np.searchsorted(pair_row[final], np.arange(size + 1)).tolist()
        notes_sorted, cos_sorted = pair_note[final].tolist(), cosine[final].tolist()
        paper = m.paper
        found: list[Row] = []
        for k, row in enumerate(rows.tolist()):
            lo, hi = bounds[k], bounds[k + 1]
            seen = {paper[row]}
            out: list[int] = []
            for b, c in zip(notes_sorted[lo:hi], cos_sorted[lo:hi]):
                if c <= 0 or paper[b] in seen:
                    continue
                seen.add(paper[b])
                out.append(b)
                if len(out) == NEIGHBOURS:
                    break
            found.append((tuple(out), tuple(sorted(notes_sorted[lo:hi]))))
        return found


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
    keep = ranks(group) < k
    return group[keep], item[keep]

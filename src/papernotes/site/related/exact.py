"""Plan stage, related papers up to ``EXACT_NOTES`` notes: exact cosine over every pair.

In: a ``model.Model``. Out: for each row asked for, its ``NEIGHBOURS`` nearest notes by exact
cosine of the quantised TF-IDF vectors (best first, ties by index, one note per paper) and no
candidates; ``Exact.cosines`` also serves ``update.stale_exact``.

A block of rows is scored against every note at once: the terms in more than
``1/DENSE_SHARE`` of the notes as a dense matrix product, the others through their full
postings, summed into one dense block. Products and sums are integers held exactly in
float64, so the scores do not depend on the order of either.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from papernotes.site.related.model import NEIGHBOURS, Model, Row, indptr_of, spans

EXACT_NOTES = 5000
"""Up to this many notes every pair is scored (cost grows with the square of the count)."""
DENSE_SHARE = 16
"""Terms in more than ``n / DENSE_SHARE`` notes are multiplied as a dense matrix."""
BLOCK_CELLS = 1 << 21
"""Scores held at once: rows per block × notes (16 MB of float64)."""
SPARE = 11
"""Neighbours looked at beyond ``NEIGHBOURS`` before a row is sorted whole (duplicates of one paper)."""

class Exact:
    """The model split for exact scoring: dense common terms, full postings of the others."""

    def __init__(self, model: Model) -> None:
        self.model = m = model
        common = np.flatnonzero(m.df > max(m.n // DENSE_SHARE, 1))
        slot = np.full(len(m.vocab), -1, np.int64)
        slot[common] = np.arange(len(common))
        at = slot[m.col]
        dense = at >= 0
        self.dense = np.zeros((m.n, len(common)), np.float64)
        self.dense[m.row[dense], at[dense]] = m.weight[dense]
        rare = np.flatnonzero(~dense & (m.df[m.col] > 1))  # a term of one note scores against no other
        # weights as float64: bincount sums float64 (exactly, as integers), and would convert them per block
        self.r_indptr, self.r_col = indptr_of(m.row[rare], m.n), m.col[rare]
        self.r_weight = m.weight[rare].astype(np.float64)
        by_term = rare[np.argsort(m.col[rare], kind="stable")]  # by term, then note
        self.c_indptr = indptr_of(m.col[by_term], len(m.vocab))
        self.c_row, self.c_weight = m.row[by_term], m.weight[by_term].astype(np.float64)

    def cosines(self, rows: np.ndarray) -> np.ndarray:
        """``len(rows) × n`` cosines of ``rows`` with every note (0 with itself)."""
        m, size = self.model, len(rows)
        scores = self.dense[rows] @ self.dense.T
        own = spans(self.r_indptr, rows)
        terms = self.r_col[own]
        fan = self.c_indptr[terms + 1] - self.c_indptr[terms]
        theirs = spans(self.c_indptr, terms)
        cells = np.repeat(np.repeat(np.arange(0, size * m.n, m.n), self.r_indptr[rows + 1] - self.r_indptr[rows]), fan)
        cells += self.c_row[theirs]  # (row in the block, note) as one index
        products = np.repeat(self.r_weight[own], fan)
        products *= self.c_weight[theirs]
        scores += np.bincount(cells, products, minlength=size * m.n).reshape(size, m.n)
        scores[np.arange(size), rows] = 0.0
        scores /= m.norms[rows][:, None] * m.norms[None, :]
        return scores

    def rows(self, todo: Sequence[int]) -> list[Row]:
        out: list[Row] = []
        todo = np.asarray(todo, np.int64)
        step = max(1, BLOCK_CELLS // max(self.model.n, 1))
        for start in range(0, len(todo), step):
            rows = todo[start:start + step]
            out += _pick(self.model.paper, rows, self.cosines(rows))
        return out


def _pick(paper: list[int], rows: np.ndarray, cosine: np.ndarray) -> list[Row]:
    """Each row's neighbours from its cosines: best first, ties by index, one note per paper."""
    n = cosine.shape[1]
    k = min(NEIGHBOURS + SPARE, n)
    threshold = np.partition(cosine, n - k, axis=1)[:, n - k]
    r, c = np.nonzero((cosine >= threshold[:, None]) & (cosine > 0))
    score = cosine[r, c]
    order = np.lexsort((c, -score, r))
    r, c = r[order], c[order]
    bounds = np.searchsorted(r, np.arange(len(rows) + 1)).tolist()
    notes = c.tolist()
    found: list[Row] = []
    for i, row in enumerate(rows.tolist()):
        near = _walk(paper, row, notes[bounds[i]:bounds[i + 1]])
        if len(near) < NEIGHBOURS and bounds[i + 1] - bounds[i] >= k:  # duplicates used up the spares
            everyone = np.flatnonzero(cosine[i] > 0)
            near = _walk(paper, row, everyone[np.lexsort((everyone, -cosine[i][everyone]))].tolist())
        found.append((tuple(near), ()))
    return found


def _walk(paper: list[int], row: int, ranked: list[int]) -> list[int]:
    seen, out = {paper[row]}, []
    for b in ranked:
        if paper[b] not in seen:
            seen.add(paper[b])
            out.append(b)
            if len(out) == NEIGHBOURS:
                break
    return out

"""Plan stage, related papers up to ``EXACT_NOTES`` notes: exact cosine over every pair, and its updates.

In: a ``related.Model`` (integer weights, norms, papers). Out: each row's ``NEIGHBOURS``
nearest notes by exact cosine of the quantised TF-IDF vectors (no candidate pruning),
with the same exclusions and ties as the pruned path; ``stale_rows`` says which rows an
edit can change, and keeps the others exactly.

A block of rows is scored against every note at once: the terms in more than
``1/DENSE_SHARE`` of the notes as a dense matrix product, the others through their full
postings, summed into one dense block. Products and sums are integers held exactly in
float64, so the scores do not depend on the order of either.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from papernotes.site import related
from papernotes.site.related_model import Model, _indptr, _spans

if TYPE_CHECKING:
    from papernotes.site.related_update import Previous

EXACT_NOTES = 5000
"""Up to this many notes every pair is scored (cost grows with the square of the count)."""
DENSE_SHARE = 16
"""Terms in more than ``n / DENSE_SHARE`` notes are multiplied as a dense matrix."""
BLOCK_CELLS = 1 << 21
"""Scores held at once: rows per block × notes (16 MB of float64)."""
SPARE = 11
"""Neighbours looked at beyond ``NEIGHBOURS`` before a row is sorted whole (duplicates of one paper)."""

Row = tuple[tuple[int, ...], tuple[int, ...]]


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
        self.r_indptr, self.r_col, self.r_weight = _indptr(m.row[rare], m.n), m.col[rare], m.weight[rare]
        by_term = rare[np.argsort(m.col[rare], kind="stable")]  # by term, then note
        self.c_indptr = _indptr(m.col[by_term], len(m.vocab))
        self.c_row, self.c_weight = m.row[by_term], m.weight[by_term]

    def cosines(self, rows: np.ndarray) -> np.ndarray:
        """``len(rows) × n`` cosines of ``rows`` with every note (0 with itself)."""
        m, size = self.model, len(rows)
        scores = self.dense[rows] @ self.dense.T
        own = _spans(self.r_indptr, rows)
        terms = self.r_col[own]
        fan = self.c_indptr[terms + 1] - self.c_indptr[terms]
        theirs = _spans(self.c_indptr, terms)
        local = np.repeat(np.arange(size, dtype=np.int64), self.r_indptr[rows + 1] - self.r_indptr[rows])
        cells = np.repeat(local * m.n, fan) + self.c_row[theirs]
        scores += np.bincount(cells, np.repeat(self.r_weight[own], fan) * self.c_weight[theirs],
                              minlength=size * m.n).reshape(size, m.n)
        scores[np.arange(size), rows] = 0.0
        return scores / (m.norms[rows][:, None] * m.norms[None, :])

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
    k = min(related.NEIGHBOURS + SPARE, n)
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
        if len(near) < related.NEIGHBOURS and bounds[i + 1] - bounds[i] >= k:  # duplicates used up the spares
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
            if len(out) == related.NEIGHBOURS:
                break
    return out


def stale_rows(model: Model, exact: Exact, old: Previous) -> tuple[list[int], dict[int, Row]]:
    """``(rows to score, {index: (row, ())} kept)`` after an edit, for a previous exact computation.

    Only the *dirty* notes (edited, added, or holding a term whose idf crossed a step) have new
    scores against anyone. A clean row is kept when no note of its list is dirty or removed and
    no dirty note now ranks ahead of its last neighbour (or, with fewer than ``NEIGHBOURS``,
    scores above zero with it).
    """
    index = {r.path: i for i, r in enumerate(model.notes)}
    everything = list(range(model.n)), {}
    if len(old.paths) > EXACT_NOTES:  # the previous lists were not exact
        return everything
    old_index = {p: i for i, p in enumerate(old.paths)}
    delta: Counter[str] = Counter()  # df before − df now
    for path in old.changed:
        delta.subtract(set(model.notes[index[path]].terms))
        if path in old_index:
            delta.update(set(old.old_terms[path]))
    for path in old.paths:
        if path not in index:
            delta.update(set(old.old_terms[path]))
    df_old = model.df.copy()
    for term, d in delta.items():
        if d and term in model.term_id:
            df_old[model.term_id[term]] += d
    from papernotes.site.related_update import idf_of

    moved = idf_of(df_old, len(old.paths)) != model.idf
    dirty = {index[p] for p in old.changed}
    dirty.update(np.unique(model.row[moved[model.col]]).tolist())
    if len(dirty) * 8 > model.n:
        return everything
    remap = [index.get(p, -1) for p in old.paths]
    kept: dict[int, tuple[int, ...]] = {}
    for i, note in enumerate(model.notes):
        was = old_index.get(note.path)
        if i not in dirty and was is not None:
            row = tuple([remap[b] for b in old.rows[was]])
            if all(b >= 0 and b not in dirty for b in row):
                kept[i] = row
    if dirty and kept:
        columns = np.array(sorted(dirty), np.int64)
        against = exact.cosines(columns)  # dirty × every note: symmetric, so each kept row's new scores
        clean = np.array(sorted(kept), np.int64)
        full = np.array([len(kept[i]) == related.NEIGHBOURS for i in clean.tolist()], bool)
        last = np.array([kept[i][-1] if kept[i] else 0 for i in clean.tolist()], np.int64)
        last_score = np.zeros(len(clean))
        if full.any():
            pairs = np.flatnonzero(full)
            last_score[pairs] = model._dots(clean[pairs], np.arange(len(pairs)), last[pairs]) / (
                model.norms[clean[pairs]] * model.norms[last[pairs]])
        theirs = against[:, clean]  # dirty × clean rows
        ahead = (theirs > last_score) | ((theirs == last_score) & (columns[:, None] < last[None, :]))
        moved_rows = ((theirs > 0) & (ahead | ~full[None, :])).any(axis=0)
        for i in clean[moved_rows].tolist():
            del kept[i]
    todo = [i for i in range(model.n) if i not in kept]
    return todo, {i: (row, ()) for i, row in kept.items()}

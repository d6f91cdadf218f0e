"""Plan stage, related papers on a rebuild: which rows an edit can change (the rest are kept exactly).

In: the new ``related.Model`` and a ``Previous`` computation (its notes, norms, rows and
the candidates behind each row, the old terms of the notes that changed or left). Out:
the indices of the rows to score again, and the kept rows of all the others, translated
to the new indices. The result equals scoring every row afresh, bit for bit: a row is
kept only when nothing it was computed from can have changed.

A row reads: its note's weights and query terms, the postings of those terms, and the
weights, norms and papers of its candidates. Weights use idf rounded to 1/16, so an
edit changes another note's weights only when one of its terms crosses a step (or the
cap on common terms moves): those notes are *dirty*, with the edited and added ones.
A term's postings (its ``POSTINGS`` heaviest notes by raw weight) change only where an
edited or removed note's count of the term changed and its entry is, or was, among
them (its old entry is compared with the last entry of the new postings), or where the
term's idf moved. Rows to score again: dirty notes', rows querying a changed
posting, and rows whose candidates include a dirty or removed note.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from papernotes.site import related
from papernotes.site.related import quantised_idf
from papernotes.site.related_model import Model


@dataclass(frozen=True, slots=True)
class Previous:
    """The last computation, as the cache keeps it, and what changed since."""

    paths: tuple[str, ...]
    norms: tuple[float, ...]
    rows: tuple[tuple[int, ...], ...]
    cands: tuple[tuple[int, ...], ...]
    changed: frozenset[str]
    """Paths of notes whose inputs differ now, or that are new."""
    old_terms: Mapping[str, tuple[str, ...]]
    """The previous terms of every note in ``changed`` that existed, and of every removed note."""


def stale_rows(model: Model, old: Previous) -> tuple[list[int], dict[int, tuple[tuple[int, ...], tuple[int, ...]]]]:
    """``(rows to score, {index: (row, candidates)} kept)``, indices into ``model.notes``."""
    index = {r.path: i for i, r in enumerate(model.notes)}
    old_index = {p: i for i, p in enumerate(old.paths)}
    removed = [p for p in old.paths if p not in index]
    delta: Counter[str] = Counter()  # df before − df now, for the terms of changed and removed notes
    for path in old.changed:
        delta.subtract(set(model.notes[index[path]].terms))
        if path in old_index:
            delta.update(set(old.old_terms[path]))
    for path in removed:
        delta.update(set(old.old_terms[path]))
    n_old = len(old.paths)
    cap_old = max(related.MAX_DF * n_old, related.MIN_DF_CAP)
    df_old = model.df.copy()  # per term id, for the terms notes hold now
    term_id = model.term_id
    for term, d in delta.items():
        if d and term in term_id:
            df_old[term_id[term]] += d
    # a term moved when its idf or its eligibility changed: its weight changed in every note holding it
    idf_old, elig_old = idf_of(df_old, n_old), (df_old > 1) & (df_old <= cap_old)
    elig_now = (model.df > 1) & (model.df <= model.cap)
    moved = (idf_old != model.idf) | (elig_old != elig_now)
    if n_old == model.n and cap_old == model.cap:  # else every term is a suspect
        suspect = np.zeros(len(moved), bool)
        suspect[[term_id[t] for t, d in delta.items() if d and t in term_id]] = True
        moved &= suspect
    dirty = {index[p] for p in old.changed}
    dirty.update(np.unique(model.row[moved[model.col]]).tolist())

    def df_before(term: str) -> int:
        return model.df_of(term) + delta.get(term, 0)

    def before(term: str) -> tuple[int, bool]:
        d = df_before(term)
        return quantised_idf(d, n_old), 1 < d <= cap_old

    def now(term: str) -> tuple[int, bool]:
        d = model.df_of(term)
        return quantised_idf(d, model.n), 1 < d <= model.cap

    changed_postings = {model.vocab[t] for t in np.flatnonzero(moved).tolist()}
    for path in old.changed:  # entries move only where a count changed (idf moves are in ``moved``)
        i = index[path]
        now_counts = Counter(model.notes[i].terms)
        then_counts = Counter(old.old_terms[path]) if path in old_index else Counter()
        for term in (now_counts.keys() | then_counts.keys()) - changed_postings:
            if now_counts[term] == then_counts[term]:
                continue
            if now(term)[1] and i in model.postings(term)[0]:
                changed_postings.add(term)
            elif then_counts[term] and before(term)[1] and _held(model, path, then_counts[term], term, df_before):
                changed_postings.add(term)
    for path in removed:
        for term, k in Counter(old.old_terms[path]).items():
            if term not in changed_postings and before(term)[1] and _held(model, path, k, term, df_before):
                changed_postings.add(term)

    querying = np.zeros(len(model.vocab) + 1, bool)
    querying[[term_id[t] for t in changed_postings if t in term_id]] = True
    touched = set((np.searchsorted(model.q_indptr, np.flatnonzero(querying[model.q_col]), side="right") - 1).tolist())
    gone = {old_index[p] for p in removed} | {old_index[model.notes[i].path] for i in dirty
                                               if model.notes[i].path in old_index}
    remap = [index.get(p, -1) for p in old.paths]
    todo, kept = [], {}
    for i, note in enumerate(model.notes):
        was = old_index.get(note.path)
        if i in dirty or was is None or i in touched or not gone.isdisjoint(old.cands[was]):
            todo.append(i)
            continue
        kept[i] = (tuple([remap[b] for b in old.rows[was]]), tuple([remap[b] for b in old.cands[was]]))
    return todo, kept


def idf_of(df: np.ndarray, n: int) -> np.ndarray:
    """``quantised_idf`` of every document frequency in ``df``."""
    values, where = np.unique(df, return_inverse=True)
    return np.array([quantised_idf(int(d), n) for d in values], np.int64)[where]


def _held(model: Model, path: str, k: int, term: str, df_before: Callable[[str], int]) -> bool:
    """Whether ``term``'s postings held, or may have held, ``path``'s old entry (``k`` occurrences)."""
    ids, ys = model.postings(term)
    if df_before(term) <= related.POSTINGS or model.df_of(term) <= related.POSTINGS or not len(ids):
        return True  # an untruncated list held every note with the term
    idf = int(model.idf[model.term_id[term]])  # the idf did not move (else the term is in ``moved``)
    return (-float(k * idf), path) < (-float(ys[-1]), model.notes[int(ids[-1])].path)

"""Plan stage, related papers on a rebuild: which rows an edit can change (the rest are kept exactly).

In: the new ``model.Model``, its scorer (``exact.Exact`` or ``pruned.Pruned``) and a ``Previous``
computation made the same way (its notes, norms, rows and the candidates behind each row, the
old terms of the notes that changed or left). Out: the indices of the rows to score again, and
the kept rows of all the others, translated to the new indices. The result equals scoring every
row afresh, bit for bit: a row is kept only when nothing it was computed from can have changed.

Weights use idf rounded to 1/16, so an edit changes another note's weights only when one of
its terms crosses a step (or, pruned, the cap on common terms moves): those notes are *dirty*,
with the edited and added ones.

- Exact: only dirty notes have new scores against anyone. A clean row is kept when no note of
  its list is dirty or removed and no dirty note now ranks ahead of its last neighbour (or,
  with fewer than ``NEIGHBOURS``, scores above zero with it).
- Pruned: a row reads its note's weights and query terms, the postings of those terms, and
  the weights, norms and papers of its candidates. A term's postings (its ``POSTINGS``
  heaviest notes by raw weight) change only where an edited or removed note's count of the
  term changed and its entry is, or was, among them (its old entry is compared with the last
  entry of the new postings), or where the term's idf moved. Rows to score again: dirty
  notes', rows querying a changed posting, and rows whose candidates include a dirty or
  removed note.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from papernotes.site.related.exact import Exact
from papernotes.site.related.model import NEIGHBOURS, Model, Row, idf_of
import papernotes.site.related.pruned as pruned  # the module: tests set pruned.POSTINGS
from papernotes.site.related.pruned import Pruned, cap_of

Stale = tuple[list[int], dict[int, Row]]
"""``(rows to score, {index: row kept})``, indices into ``model.notes``."""


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


class _Edit:
    """What an edit did to the collection: indices both ways, removed notes, every term's df before."""

    def __init__(self, model: Model, old: Previous) -> None:
        self.model, self.old = model, old
        self.index = {r.path: i for i, r in enumerate(model.notes)}
        self.old_index = {p: i for i, p in enumerate(old.paths)}
        self.removed = [p for p in old.paths if p not in self.index]
        self.delta: Counter[str] = Counter()  # df before − df now, for the terms of changed and removed notes
        for path in old.changed:
            self.delta.subtract(set(model.notes[self.index[path]].terms))
            if path in self.old_index:
                self.delta.update(set(old.old_terms[path]))
        for path in self.removed:
            self.delta.update(set(old.old_terms[path]))
        self.df_old = model.df.copy()  # per term id, for the terms notes hold now
        changed = [(model.term_id[t], d) for t, d in self.delta.items() if d and t in model.term_id]
        self.suspects = np.array([t for t, _ in changed], np.int64)
        self.df_old[self.suspects] += np.array([d for _, d in changed], np.int64)
        self.remap = [self.index.get(p, -1) for p in old.paths]

    def dirty(self, moved: np.ndarray) -> set[int]:
        """The edited and added notes and those holding a ``moved`` term (its weight changed)."""
        out = {self.index[p] for p in self.old.changed}
        out.update(np.unique(self.model.row[moved[self.model.col]]).tolist())
        return out


def stale_exact(exact: Exact, old: Previous) -> Stale:
    model = exact.model
    edit = _Edit(model, old)
    dirty = edit.dirty(idf_of(edit.df_old, len(old.paths)) != model.idf)
    if len(dirty) * 8 > model.n:
        return list(range(model.n)), {}
    kept: dict[int, tuple[int, ...]] = {}
    for i, note in enumerate(model.notes):
        was = edit.old_index.get(note.path)
        if i not in dirty and was is not None:
            row = tuple([edit.remap[b] for b in old.rows[was]])
            if all(b >= 0 and b not in dirty for b in row):
                kept[i] = row
    if dirty and kept:
        columns = np.array(sorted(dirty), np.int64)
        against = exact.cosines(columns)  # dirty × every note: symmetric, so each kept row's new scores
        clean = np.array(sorted(kept), np.int64)
        full = np.array([len(kept[i]) == NEIGHBOURS for i in clean.tolist()], bool)
        last = np.array([kept[i][-1] if kept[i] else 0 for i in clean.tolist()], np.int64)
        last_score = np.zeros(len(clean))
        if full.any():
            pairs = np.flatnonzero(full)
            last_score[pairs] = model.dots(clean[pairs], np.arange(len(pairs)), last[pairs]) / (
                model.norms[clean[pairs]] * model.norms[last[pairs]])
        theirs = against[:, clean]  # dirty × clean rows
        ahead = (theirs > last_score) | ((theirs == last_score) & (columns[:, None] < last[None, :]))
        moved_rows = ((theirs > 0) & (ahead | ~full[None, :])).any(axis=0)
        for i in clean[moved_rows].tolist():
            del kept[i]
    return [i for i in range(model.n) if i not in kept], {i: (row, ()) for i, row in kept.items()}


def stale_pruned(scorer: Pruned, old: Previous) -> Stale:
    model = scorer.model
    edit = _Edit(model, old)
    n_old, cap_old, delta = len(old.paths), cap_of(len(old.paths)), edit.delta
    # a term moved when its idf or its eligibility changed: its weight changed in every note holding it
    idf_old, elig_old = idf_of(edit.df_old, n_old), (edit.df_old > 1) & (edit.df_old <= cap_old)
    moved = (idf_old != model.idf) | (elig_old != ((model.df > 1) & (model.df <= scorer.cap)))
    if n_old == model.n and cap_old == scorer.cap:  # else every term is a suspect
        suspect = np.zeros(len(moved), bool)
        suspect[edit.suspects] = True
        moved &= suspect
    dirty = edit.dirty(moved)

    def eligible_before(term: str) -> bool:
        return 1 < model.df_of(term) + delta.get(term, 0) <= cap_old

    def held(path: str, k: int, term: str) -> bool:
        """Whether ``term``'s postings held, or may have held, ``path``'s old entry (``k`` occurrences)."""
        ids, ys = scorer.postings(term)
        if model.df_of(term) + delta.get(term, 0) <= pruned.POSTINGS or model.df_of(term) <= pruned.POSTINGS \
                or not len(ids):
            return True  # an untruncated list held every note with the term
        idf = int(model.idf[model.term_id[term]])  # the idf did not move (else the term is in ``moved``)
        return (-float(k * idf), path) < (-float(ys[-1]), model.notes[int(ids[-1])].path)

    changed_postings = {model.vocab[t] for t in np.flatnonzero(moved).tolist()}
    for path in old.changed:  # entries move only where a count changed (idf moves are in ``moved``)
        i = edit.index[path]
        now_counts = Counter(model.notes[i].terms)
        then_counts = Counter(old.old_terms[path]) if path in edit.old_index else Counter()
        for term in (now_counts.keys() | then_counts.keys()) - changed_postings:
            if now_counts[term] == then_counts[term]:
                continue
            if 1 < model.df_of(term) <= scorer.cap and i in scorer.postings(term)[0]:
                changed_postings.add(term)
            elif then_counts[term] and eligible_before(term) and held(path, then_counts[term], term):
                changed_postings.add(term)
    for path in edit.removed:
        for term, k in Counter(old.old_terms[path]).items():
            if term not in changed_postings and eligible_before(term) and held(path, k, term):
                changed_postings.add(term)

    querying = np.zeros(len(model.vocab) + 1, bool)
    querying[[model.term_id[t] for t in changed_postings if t in model.term_id]] = True
    touched = set((np.searchsorted(scorer.q_indptr, np.flatnonzero(querying[scorer.q_col]), side="right") - 1).tolist())
    gone = {edit.old_index[p] for p in edit.removed} | {edit.old_index[model.notes[i].path] for i in dirty
                                                         if model.notes[i].path in edit.old_index}
    todo, kept = [], {}
    for i, note in enumerate(model.notes):
        was = edit.old_index.get(note.path)
        if i in dirty or was is None or i in touched or not gone.isdisjoint(old.cands[was]):
            todo.append(i)
            continue
        kept[i] = (tuple([edit.remap[b] for b in old.rows[was]]), tuple([edit.remap[b] for b in old.cands[was]]))
    return todo, kept

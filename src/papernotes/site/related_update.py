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
from collections.abc import Mapping
from dataclasses import dataclass

from papernotes.site import related
from papernotes.site.related import Model, quantised_idf


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
    n_old, df = len(old.paths), model.df
    cap_old = max(related.MAX_DF * n_old, related.MIN_DF_CAP)

    def df_old(term: str) -> int:
        return df.get(term, 0) + delta.get(term, 0)

    idf_old: dict[int, int] = {}
    idf_new: dict[int, int] = {}

    def before(term: str) -> tuple[int, bool]:
        d = df_old(term)
        found = idf_old.get(d)
        if found is None:
            found = idf_old[d] = quantised_idf(d, n_old)
        return found, 1 < d <= cap_old

    def now(term: str) -> tuple[int, bool]:
        d = df.get(term, 0)
        found = idf_new.get(d)
        if found is None:
            found = idf_new[d] = quantised_idf(d, model.n)
        return found, 1 < d <= model.cap

    suspects = set(df) if n_old != model.n or cap_old != model.cap else {t for t, d in delta.items() if d}
    moved = {t for t in suspects if before(t) != now(t)}  # weight or eligibility changed everywhere it occurs
    dirty = {index[p] for p in old.changed}
    if moved:
        dirty.update(i for i, r in enumerate(model.notes) if i not in dirty and not moved.isdisjoint(r.terms))
    changed_postings = set(moved)
    for path in old.changed:  # entries move only where a count changed (idf moves are in ``moved``)
        i = index[path]
        now_counts = Counter(model.notes[i].terms)
        then_counts = Counter(old.old_terms[path]) if path in old_index else Counter()
        for term in (now_counts.keys() | then_counts.keys()) - changed_postings:
            if now_counts[term] == then_counts[term]:
                continue
            if now(term)[1] and i in model.postings[term][0]:
                changed_postings.add(term)
            elif then_counts[term] and before(term)[1] and _held(model, path, then_counts[term], term, df_old):
                changed_postings.add(term)
    for path in removed:
        for term, k in Counter(old.old_terms[path]).items():
            if term not in changed_postings and before(term)[1] and _held(model, path, k, term, df_old):
                changed_postings.add(term)

    gone = {old_index[p] for p in removed} | {old_index[model.notes[i].path] for i in dirty
                                               if model.notes[i].path in old_index}
    todo, kept = [], {}
    for i, note in enumerate(model.notes):
        was = old_index.get(note.path)
        if i in dirty or was is None or not changed_postings.isdisjoint(model.queries[i][0]) \
                or not gone.isdisjoint(old.cands[was]):
            todo.append(i)
            continue
        kept[i] = (tuple(index[old.paths[b]] for b in old.rows[was]), tuple(index[old.paths[b]] for b in old.cands[was]))
    return todo, kept


def _held(model: Model, path: str, k: int, term: str, df_old) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``term``'s postings held, or may have held, ``path``'s old entry (``k`` occurrences)."""
    ids, ys = model.postings.get(term, ((), ()))
    if df_old(term) <= related.POSTINGS or model.df.get(term, 0) <= related.POSTINGS or not ids:
        return True  # an untruncated list held every note with the term
    return (-float(k * model.idf[term]), path) < (-ys[-1], model.notes[ids[-1]].path)  # the idf did not move

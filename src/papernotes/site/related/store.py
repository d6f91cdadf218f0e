"""Plan stage, related papers as a build keeps them: cached, recomputed only when an input changed.

In: ``(path, title, summary, keywords, arXiv id)`` of every note and the build cache (a
``BuildCache``). Out: ``Related`` (every note's list, best first, and the digest of the inputs
it was made from); ``published_related``, the lists a published site shows, decoded row by
row (``PackedRows``), which is what a body edit reads. A body edit changes no input, so
nothing is tokenised or scored; a title edit scores again only the rows it can change
(``update``).
"""
from __future__ import annotations

import hashlib
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from papernotes.cache import BuildCache
from papernotes.cache_records import RelatedRows, RelatedState
from papernotes.digests import stable_bytes
from papernotes.site.related.lists import Outcome, compute, related, rows_by_path
from papernotes.site.related.model import NEIGHBOURS
from papernotes.site.related.terms import RelatedInput, input_digest, paper_key, related_input, terms_of
from papernotes.site.related.update import Previous



@dataclass(frozen=True, slots=True)
class Related:
    """The related-papers lists of one build."""

    rows: dict[str, tuple[str, ...]]
    """Note path -> neighbour paths, best first."""
    digest: str
    """Digest of every note's inputs: equal digests, equal lists."""
    computed: bool
    """False when the lists came from the cache unchanged."""
    recomputed: int = 0
    """Rows scored by this computation (0 when the lists came from the cache)."""


class PackedRows(Mapping[str, tuple[str, ...]]):
    """``rows_by_path`` as the cache keeps it: every note's path (sorted) and ``NEIGHBOURS`` indices into them
    per note (-1 for none). Rows are decoded when asked for: a body edit reads the lists of the notes it
    changed, not 50,000 of them (unmarshalling those as tuples of paths took ~0.1 s)."""

    def __init__(self, paths: Sequence[str], flat: bytes) -> None:
        self._paths = paths
        self._flat = array("i")
        self._flat.frombytes(flat)
        self._len: int | None = None

    @staticmethod
    def pack(outcome: Outcome) -> tuple[tuple[str, ...], bytes]:
        flat = array("i", [-1]) * (NEIGHBOURS * len(outcome.paths))
        for i, row in enumerate(outcome.rows):
            if row:
                flat[i * NEIGHBOURS:i * NEIGHBOURS + len(row)] = array("i", row)
        return outcome.paths, flat.tobytes()

    def _row(self, i: int) -> tuple[str, ...]:
        paths = self._paths
        return tuple([paths[b] for b in self._flat[i * NEIGHBOURS:(i + 1) * NEIGHBOURS] if b >= 0])

    def __getitem__(self, path: str) -> tuple[str, ...]:
        i = bisect_left(self._paths, path)
        if i < len(self._paths) and self._paths[i] == path and self._flat[i * NEIGHBOURS] >= 0:
            return self._row(i)
        raise KeyError(path)

    def _kept(self) -> Iterator[int]:
        flat = self._flat
        return (i for i in range(len(self._paths)) if flat[i * NEIGHBOURS] >= 0)

    def __iter__(self) -> Iterator[str]:
        return map(self._paths.__getitem__, self._kept())

    def __len__(self) -> int:
        if self._len is None:
            self._len = sum(1 for _ in self._kept())
        return self._len

    def items(self) -> Iterator[tuple[str, tuple[str, ...]]]:  # type: ignore[override]
        return ((self._paths[i], self._row(i)) for i in self._kept())


def cached_related(notes: Iterable[tuple[str, str, str, Sequence[str], str]], cache: BuildCache) -> Related:
    """The lists for ``(path, title, summary, keywords, arxiv id)`` notes, recomputed only when an input changed.

    A body edit changes no input, so nothing is tokenised or scored; a title edit scores again
    only the rows it can change (``update``).
    """
    notes = list(notes)
    digests = {path: input_digest(title, summary, keywords, arxiv) for path, title, summary, keywords, arxiv in notes}
    digest = inputs_digest(digests)
    previous = cache.related_rows()
    if previous is not None and previous.digest == digest:  # a plan reads every row, some twice: unpacked once
        return Related(dict(PackedRows(previous.paths, previous.flat).items()), digest, False, 0)
    known = cache.related_terms()
    terms: dict[str, tuple[str, ...]] = {}
    inputs = []
    for path, title, summary, keywords, arxiv in notes:
        key = digests[path]
        found = terms.get(key) or known.get(key)
        if found is None:
            found = tuple(map(sys.intern, terms_of(title, summary, keywords)))
        terms[key] = found
        inputs.append(RelatedInput(path, paper_key(arxiv, title), found))
    last = None
    state = cache.related_state()
    if state is not None:
        before = dict(zip(state.paths, state.digests))
        changed = frozenset(p for p, d in digests.items() if before.get(p) != d)
        old_terms = {p: known.get(before[p]) for p in state.paths if p in changed or p not in digests}
        if all(t is not None for t in old_terms.values()):
            last = Previous(state.paths, state.norms, state.rows, state.cands, changed, old_terms)  # type: ignore[arg-type]
    outcome = compute(inputs, last)
    found_rows = rows_by_path(outcome)
    if terms.keys() != known.keys():
        cache.save_related_terms(terms)
    cache.save_related_state(RelatedState(outcome.paths, tuple(digests[p] for p in outcome.paths), outcome.norms,
                                          outcome.rows, outcome.cands))
    cache.save_related_rows(RelatedRows(digest, *PackedRows.pack(outcome)))
    return Related(found_rows, digest, True, outcome.recomputed)


def published_related(cache: BuildCache, site: str) -> Mapping[str, tuple[str, ...]] | None:
    """The lists the published ``site`` shows, or ``None`` when the cache cannot say for sure
    (a later computation was never published, or a publish was interrupted)."""
    rows = cache.related_rows()
    if rows is None or cache.related_shown(site) != rows.digest:
        return None
    return PackedRows(rows.paths, rows.flat)


def mark_published(cache: BuildCache, site: str, digest: str) -> None:
    """Record that ``site`` now shows the lists of ``digest`` (called once its publish is recorded)."""
    cache.save_related_shown(site, digest)


def note_inputs(entries: Iterable[Any]) -> list[tuple[str, str, str, tuple[str, ...], str]]:
    """``(path, title, summary, keywords, arxiv id)`` of resolved entries, what ``cached_related`` reads."""
    return [(e.note.path, e.note.title, e.note.summary, e.note.keywords, e.note.arxiv_id) for e in entries]


def related_of_entries(entries: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """The lists of resolved entries, computed without a cache."""
    return related(related_input(*inputs) for inputs in note_inputs(entries))


def inputs_digest(digests: Mapping[str, str]) -> str:
    """Digest of every note's related inputs (path -> ``input_digest``)."""
    return hashlib.blake2b(stable_bytes(sorted(digests.items())), digest_size=16).hexdigest()

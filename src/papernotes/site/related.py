"""Plan stage, related papers: each note's nearest notes by TF-IDF cosine (numpy, in this process).

In: one ``RelatedInput`` per note (its path, the paper it is about, the terms of its
title, summary and keywords). Out: path -> the paths of its ``NEIGHBOURS`` nearest
notes, best first; the note itself and other notes about the same paper (same arXiv
id or normalised title) are left out, and a paper appears once per list.

Terms are Latin words and CJK 2- and 3-grams. Weights are ``tf × idf`` with
scikit-learn's smoothed idf, rounded to ``1/IDF_STEPS`` so that one edit leaves
every other note's vector bit for bit as it was unless a term's idf crosses a step.
Up to ``related_exact.EXACT_NOTES`` notes every pair is scored and the lists are the
exact top ``NEIGHBOURS`` (``related_exact``). Beyond, exact cosine over every pair costs
``Σ df²`` (177 s at 50,000 notes); instead:

1. candidates: each note queries its ``QUERY_TERMS`` heaviest terms (terms in
   more than ``MAX_DF`` of the notes, or in one note only, never count) against
   postings that keep the ``POSTINGS`` notes each term weighs most in;
2. the best ``CANDIDATES`` by that partial score are scored exactly (integer dot
   products over every shared term, full norms) and the top ``NEIGHBOURS`` kept.

Both steps run on numpy arrays, a block of rows at a time (``related_model.Model.rows``). Weights
are integers, so every partial and full dot product is an exact integer and the
result does not depend on summation order or block size. BENCHMARKS.md has the
agreement with exact cosine and the cost. Ties break by path, so the result is a
pure function of the inputs, whatever their order.
"""
from __future__ import annotations

import hashlib
import math
import re
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from papernotes.digests import stable_bytes

NEIGHBOURS = 5
QUERY_TERMS = 80
POSTINGS = 30
CANDIDATES = 25
MAX_DF = 0.1
MIN_DF_CAP = 50
"""A term in this many notes or fewer is never too common to count (small corpora)."""
IDF_STEPS = 16
SPLIT_ROWS = 20_000
"""From this many rows to score, a forked process takes blocks of them too (``forks.share``): at 50,000
notes the related lists keep one core of two busy for ~7 s of scoring otherwise."""
SPLIT_BLOCK = 2_000
"""Rows a process scores per task."""

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TITLE_KEY = re.compile(r"\W+")


@dataclass(frozen=True, slots=True)
class RelatedInput:
    """What the related-papers stage reads of one note."""

    path: str
    """The note's file path (stable identity; ties break by it)."""
    paper: str
    """The paper the note is about: ``arxiv:ID`` or ``title:normalised title``; equal values are duplicates."""
    terms: tuple[str, ...]
    """The note's terms with repeats (``terms_of``)."""


def terms_of(title: str, summary: str, keywords: Sequence[str]) -> tuple[str, ...]:
    """Latin words (two characters or more) and CJK 2- and 3-grams of the text, case-folded, with repeats."""
    out: list[str] = []
    for word in _TOKEN.findall(" ".join((title, summary, *keywords)).casefold()):
        if word < "\u3400":
            if len(word) > 1:
                out.append(word)
        elif len(word) > 1:
            out += map(str.__add__, word, word[1:])
            out += [word[i:i + 3] for i in range(len(word) - 2)]
    return tuple(out)


def paper_key(arxiv_id: str, title: str) -> str:
    return f"arxiv:{arxiv_id.lower()}" if arxiv_id else "title:" + _TITLE_KEY.sub("", title.casefold())


def input_digest(title: str, summary: str, keywords: Sequence[str], arxiv_id: str) -> str:
    """Digest of everything a note's related list and its place in other lists depend on."""
    return hashlib.blake2b(stable_bytes((title, summary, tuple(keywords), arxiv_id)), digest_size=12).hexdigest()


def quantised_idf(df: int, n: int) -> int:
    return round(IDF_STEPS * (math.log((1 + n) / (1 + df)) + 1.0))


@dataclass(frozen=True, slots=True)
class Outcome:
    """One computation: every note's row, the candidates behind it, and what the next update needs."""

    paths: tuple[str, ...]
    """Every note's path, sorted: rows and candidates are indices into it."""
    rows: tuple[tuple[int, ...], ...]
    cands: tuple[tuple[int, ...], ...]
    norms: tuple[float, ...]
    recomputed: int
    """How many rows were scored (the others were kept from the previous computation)."""


def related(notes: Iterable[RelatedInput]) -> dict[str, tuple[str, ...]]:
    """Every note's neighbours (paths, best first); notes without any are left out."""
    return rows_by_path(compute(list(notes)))


def rows_by_path(outcome: Outcome) -> dict[str, tuple[str, ...]]:
    paths = outcome.paths
    return {paths[i]: tuple(paths[b] for b in row) for i, row in enumerate(outcome.rows) if row}


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


def compute(notes: list[RelatedInput], previous: Any = None) -> Outcome:
    """Score every row, or with ``previous`` (``related_update.Previous``) only the rows an edit can change.

    Up to ``related_exact.EXACT_NOTES`` notes the lists are exact; beyond, candidates are pruned.
    """
    from papernotes.site import related_exact, related_update
    from papernotes.site.related_model import Model

    exact = len(notes) <= related_exact.EXACT_NOTES
    model = Model(notes, pruned=not exact)
    if previous is not None and (len(previous.paths) <= related_exact.EXACT_NOTES) != exact:
        previous = None  # the last lists were made the other way
    if exact:
        scorer = related_exact.Exact(model)
        score = scorer.rows
        stale = (lambda: related_exact.stale_rows(model, scorer, previous))
    else:
        score = model.rows
        stale = (lambda: related_update.stale_rows(model, previous))
    todo, kept = (list(range(model.n)), {}) if previous is None else stale()
    if len(todo) >= SPLIT_ROWS:  # many rows: a forked process scores some of them (the model shared)
        from papernotes import forks

        blocks = [todo[i:i + SPLIT_BLOCK] for i in range(0, len(todo), SPLIT_BLOCK)]
        parts = forks.share(blocks, score, 2 if forks.can_fork() else 1)
        scored = dict(zip(todo, (row for part in parts for row in part), strict=True))
    else:
        scored = dict(zip(todo, score(todo), strict=True))
    results = [scored[i] if i in scored else kept[i] for i in range(model.n)]
    return Outcome(tuple(r.path for r in model.notes), tuple(r for r, _ in results), tuple(c for _, c in results),
                   tuple(model.norms.tolist()), len(todo))


def inputs_digest(digests: Mapping[str, str]) -> str:
    """Digest of every note's related inputs (path -> ``input_digest``)."""
    return hashlib.blake2b(stable_bytes(sorted(digests.items())), digest_size=16).hexdigest()


# ------------------------------------------------------------------ cached and published lists

TERMS_BLOB = "related-terms"
"""Cache blob: note input digest -> its terms (tokenising is most of the cost of a small corpus)."""
STATE_BLOB = "related-state"
"""Cache blob: what the next update needs of the last computation (paths, input digests, norms, rows, candidates)."""
ROWS_BLOB = "related-rows"
"""Cache blob: the digest of every note's inputs and the lists of the last computation (``PackedRows.pack``)."""
SITE_BLOB = "related-site:"
"""Cache blob per site: the inputs digest of the lists its published pages show."""


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


class BlobStore(Protocol):
    def load_blob(self, key: str) -> Any: ...
    def save_blob(self, key: str, value: Any) -> None: ...


def cached_related(notes: Iterable[tuple[str, str, str, Sequence[str], str]], cache: BlobStore) -> Related:
    """The lists for ``(path, title, summary, keywords, arxiv id)`` notes, recomputed only when an input changed.

    A body edit changes no input, so nothing is tokenised or scored; a title edit scores again
    only the rows it can change (``related_update``). The scoring is vectorised in this process.
    """
    from papernotes.site.related_update import Previous

    notes = list(notes)
    digests = {path: input_digest(title, summary, keywords, arxiv) for path, title, summary, keywords, arxiv in notes}
    digest = inputs_digest(digests)
    previous = cache.load_blob(ROWS_BLOB)
    if previous is not None and previous[0] == digest:  # a plan reads every row, some twice: unpacked once
        return Related(dict(PackedRows(previous[1], previous[2]).items()), digest, False, 0)
    known: dict[str, tuple[str, ...]] = cache.load_blob(TERMS_BLOB) or {}
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
    state = cache.load_blob(STATE_BLOB)
    if state is not None:
        paths, old_digests, norms, rows, cands = state
        before = dict(zip(paths, old_digests))
        changed = frozenset(p for p, d in digests.items() if before.get(p) != d)
        old_terms = {p: known.get(before[p]) for p in paths if p in changed or p not in digests}
        if all(t is not None for t in old_terms.values()):
            last = Previous(paths, norms, rows, cands, changed, old_terms)  # type: ignore[arg-type]
    outcome = compute(inputs, last)
    found_rows = rows_by_path(outcome)
    if terms.keys() != known.keys():
        cache.save_blob(TERMS_BLOB, terms)
    cache.save_blob(STATE_BLOB, (outcome.paths, tuple(digests[p] for p in outcome.paths), outcome.norms,
                                 outcome.rows, outcome.cands))
    cache.save_blob(ROWS_BLOB, (digest, *PackedRows.pack(outcome)))
    return Related(found_rows, digest, True, outcome.recomputed)


def published_related(cache: BlobStore, site: str) -> Mapping[str, tuple[str, ...]] | None:
    """The lists the published ``site`` shows, or ``None`` when the cache cannot say for sure
    (a later computation was never published, or a publish was interrupted)."""
    rows = cache.load_blob(ROWS_BLOB)
    if rows is None or cache.load_blob(SITE_BLOB + site) != rows[0]:
        return None
    return PackedRows(rows[1], rows[2])


def mark_published(cache: BlobStore, site: str, digest: str) -> None:
    """Record that ``site`` now shows the lists of ``digest`` (called once its publish is recorded)."""
    cache.save_blob(SITE_BLOB + site, digest)


def note_inputs(entries: Iterable[Any]) -> list[tuple[str, str, str, tuple[str, ...], str]]:
    """``(path, title, summary, keywords, arxiv id)`` of resolved entries, what ``cached_related`` reads."""
    return [(e.note.path, e.note.title, e.note.summary, e.note.keywords, e.note.arxiv_id) for e in entries]


def related_of_entries(entries: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """The lists of resolved entries, computed without a cache."""
    return related(RelatedInput(path, paper_key(arxiv, title), terms_of(title, summary, keywords))
                   for path, title, summary, keywords, arxiv in note_inputs(entries))

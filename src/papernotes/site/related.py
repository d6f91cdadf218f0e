"""Plan stage, related papers: each note's nearest notes by TF-IDF cosine (pure Python, no numpy).

In: one ``RelatedInput`` per note (its path, the paper it is about, the terms of its
title, summary and keywords). Out: path -> the paths of its ``NEIGHBOURS`` nearest
notes, best first; the note itself and other notes about the same paper (same arXiv
id or normalised title) are left out, and a paper appears once per list.

Terms are Latin words and CJK 2- and 3-grams. Weights are ``tf × idf`` with
scikit-learn's smoothed idf, rounded to ``1/IDF_STEPS`` so that one edit leaves
every other note's vector bit for bit as it was unless a term's idf crosses a step.
Exact cosine over every pair costs ``Σ df²`` (177 s at 50,000 notes); instead:

1. candidates: each note queries its ``QUERY_TERMS`` heaviest terms (terms in
   more than ``MAX_DF`` of the notes, or in one note only, never count) against
   postings that keep the ``POSTINGS`` notes each term weighs most in;
2. the best ``CANDIDATES`` by that partial score are scored exactly (integer dot
   products over every shared term, full norms) and the top ``NEIGHBOURS`` kept.

BENCHMARKS.md has the agreement with exact cosine and the cost. Ties break by
path, so the result is a pure function of the inputs, whatever their order.
"""
from __future__ import annotations

import gc
import hashlib
import heapq
import marshal
import math
import multiprocessing
import re
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Protocol

from papernotes.errors import BuildError

NEIGHBOURS = 5
QUERY_TERMS = 80
POSTINGS = 30
CANDIDATES = 25
MAX_DF = 0.1
MIN_DF_CAP = 50
"""A term in this many notes or fewer is never too common to count (small corpora)."""
IDF_STEPS = 16

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
    return hashlib.blake2b(marshal.dumps((title, summary, tuple(keywords), arxiv_id)), digest_size=12).hexdigest()


def quantised_idf(df: int, n: int) -> int:
    return round(IDF_STEPS * (math.log((1 + n) / (1 + df)) + 1.0))


class Model:
    """Norms, query lists and truncated postings of a set of notes (built once per computation).

    Kept compact for 50,000 notes: postings are built in typed arrays, and a note's vector for exact
    scoring is its own term tuple (terms of one note only score 0 against any other).
    """

    def __init__(self, notes: Sequence[RelatedInput]) -> None:
        self.notes = sorted(notes, key=lambda r: r.path)  # index order is path order: ties break by index
        self.n = n = len(self.notes)
        df: Counter[str] = Counter()
        for r in self.notes:
            df.update(set(r.terms))
        by_df = {d: quantised_idf(d, n) for d in set(df.values())}
        self.idf = idf = {t: by_df[d] for t, d in df.items()}
        self.df = df
        self.cap = cap = max(MAX_DF * n, MIN_DF_CAP)
        self.norms: list[float] = []
        self.queries: list[tuple[tuple[str, ...], tuple[int, ...]]] = []
        ids: dict[str, array] = {}
        ys: dict[str, array] = {}
        for i, r in enumerate(self.notes):
            weights = [(-k * idf[t], t) for t, k in Counter(r.terms).items()]
            norm = math.sqrt(sum(w * w for w, _ in weights)) or 1.0
            self.norms.append(norm)
            weights.sort()
            eligible = [(w, t) for w, t in weights if 1 < df[t] <= cap]
            top = eligible[:QUERY_TERMS]
            self.queries.append((tuple(t for _, t in top), tuple(-w for w, _ in top)))
            for w, t in eligible:
                found = ids.get(t)
                if found is None:
                    found = ids[t] = array("i")
                    ys[t] = array("d")
                found.append(i)
                ys[t].append(-w)
        self.postings: dict[str, tuple[tuple[int, ...], tuple[float, ...]]] = {}
        for t, found in ids.items():
            weight = ys[t]
            if len(found) > POSTINGS:  # the notes the term weighs most in; ties by path (index)
                best = heapq.nsmallest(POSTINGS, zip(map(float.__neg__, weight), found))
                self.postings[t] = (tuple([i for _, i in best]), tuple([-y for y, _ in best]))
            else:
                self.postings[t] = (tuple(found), tuple(weight))

    def row(self, i: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Indices of note ``i``'s neighbours, best first, and of every candidate scored exactly."""
        notes, norms, postings = self.notes, self.norms, self.postings
        acc: dict[int, float] = {}
        get = acc.get
        terms, xs = self.queries[i]
        for t, x in zip(terms, xs):
            ids, ys = postings[t]
            for b, y in zip(ids, ys):
                acc[b] = get(b, 0.0) + x * y
        acc.pop(i, None)
        if not acc:
            return (), ()
        candidates = heapq.nsmallest(CANDIDATES, zip(map(float.__neg__, acc.values()), acc.keys()))
        idf = self.idf
        weights = {t: k * idf[t] * idf[t] for t, k in Counter(notes[i].terms).items()}
        zero = repeat(0)
        na = norms[i]
        scored = sorted((-sum(map(weights.get, notes[b].terms, zero)) / (na * norms[b]), b) for _, b in candidates)
        seen = {notes[i].paper}
        out: list[int] = []
        for score, b in scored:
            paper = notes[b].paper
            if score >= 0 or paper in seen:  # negated scores
                continue
            seen.add(paper)
            out.append(b)
            if len(out) == NEIGHBOURS:
                break
        return tuple(out), tuple(sorted(b for _, b in candidates))


PARALLEL_NOTES = 2000
"""From this many notes on, the lists are computed in a child process (its memory is returned when it
exits, before pages are rendered) that splits the rows over worker processes."""

_MODEL: Model | None = None


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


def related(notes: Iterable[RelatedInput], workers: int = 1) -> dict[str, tuple[str, ...]]:
    """Every note's neighbours (paths, best first); notes without any are left out."""
    return rows_by_path(compute(list(notes), workers))


def rows_by_path(outcome: Outcome) -> dict[str, tuple[str, ...]]:
    paths = outcome.paths
    return {paths[i]: tuple(paths[b] for b in row) for i, row in enumerate(outcome.rows) if row}


def compute(notes: list[RelatedInput], workers: int = 1, previous: Any = None) -> Outcome:
    """Score every row, or with ``previous`` (``related_update.Previous``) only the rows an edit can change."""
    if len(notes) >= PARALLEL_NOTES and "fork" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("fork")
        receive, send = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_child, args=(notes, workers, previous, send), name="papernotes-related")
        child.start()
        send.close()
        try:
            found: Outcome | None = receive.recv()
        except EOFError:
            found = None
        child.join()
        if found is None or child.exitcode != 0:
            raise BuildError(f"related papers: the worker process failed (exit status {child.exitcode})")
        return found
    return _compute(notes, 1, previous)


def _compute(notes: list[RelatedInput], workers: int, previous: Any) -> Outcome:
    global _MODEL
    _MODEL = model = Model(notes)
    if previous is None:
        todo, kept = list(range(model.n)), {}
    else:
        from papernotes.site.related_update import stale_rows

        todo, kept = stale_rows(model, previous)
    if workers > 1 and len(todo) >= PARALLEL_NOTES:
        step = -(-len(todo) // (workers * 4))
        gc.freeze()  # the workers only read the model: keep the collector from copying its pages
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_rows, [todo[start:start + step] for start in range(0, len(todo), step)])
        scored = dict(zip(todo, (row for part in parts for row in part)))
    else:
        scored = {i: model.row(i) for i in todo}
    results = [scored[i] if i in scored else kept[i] for i in range(model.n)]
    _MODEL = None
    return Outcome(tuple(r.path for r in model.notes), tuple(r for r, _ in results), tuple(c for _, c in results),
                   tuple(model.norms), len(todo))


def _child(notes: list[RelatedInput], workers: int, previous: Any, send: Any) -> None:
    send.send(_compute(notes, workers, previous))
    send.close()


def _rows(indices: list[int]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    assert _MODEL is not None  # set before the pool forks; not user input
    return [_MODEL.row(i) for i in indices]


def inputs_digest(digests: Mapping[str, str]) -> str:
    """Digest of every note's related inputs (path -> ``input_digest``)."""
    return hashlib.blake2b(marshal.dumps(sorted(digests.items())), digest_size=16).hexdigest()


# ------------------------------------------------------------------ cached and published lists

TERMS_BLOB = "related-terms"
"""Cache blob: note input digest -> its terms (tokenising is most of the cost of a small corpus)."""
STATE_BLOB = "related-state"
"""Cache blob: what the next update needs of the last computation (paths, input digests, norms, rows, candidates)."""
ROWS_BLOB = "related-rows"
"""Cache blob: (digest of every note's inputs, path -> neighbour paths) of the last computation."""
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


def cached_related(notes: Iterable[tuple[str, str, str, Sequence[str], str]], cache: BlobStore,
                   workers: int = 1) -> Related:
    """The lists for ``(path, title, summary, keywords, arxiv id)`` notes, recomputed only when an input changed.

    A body edit changes no input, so nothing is tokenised or scored; a title edit scores again
    only the rows it can change (``related_update``).
    """
    from papernotes.site.related_update import Previous

    notes = list(notes)
    digests = {path: input_digest(title, summary, keywords, arxiv) for path, title, summary, keywords, arxiv in notes}
    digest = inputs_digest(digests)
    previous = cache.load_blob(ROWS_BLOB)
    if previous is not None and previous[0] == digest:
        return Related(previous[1], digest, False, 0)
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
    outcome = compute(inputs, workers, last)
    found_rows = rows_by_path(outcome)
    if terms.keys() != known.keys():
        cache.save_blob(TERMS_BLOB, terms)
    cache.save_blob(STATE_BLOB, (outcome.paths, tuple(digests[p] for p in outcome.paths), outcome.norms,
                                 outcome.rows, outcome.cands))
    cache.save_blob(ROWS_BLOB, (digest, found_rows))
    return Related(found_rows, digest, True, outcome.recomputed)


def published_related(cache: BlobStore, site: str) -> dict[str, tuple[str, ...]] | None:
    """The lists the published ``site`` shows, or ``None`` when the cache cannot say for sure
    (a later computation was never published, or a publish was interrupted)."""
    rows = cache.load_blob(ROWS_BLOB)
    if rows is None or cache.load_blob(SITE_BLOB + site) != rows[0]:
        return None
    return rows[1]


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

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

Both steps run on numpy arrays, a block of rows at a time (``Model.rows``). Weights
are integers, so every partial and full dot product is an exact integer and the
result does not depend on summation order or block size. BENCHMARKS.md has the
agreement with exact cosine and the cost. Ties break by path, so the result is a
pure function of the inputs, whatever their order.
"""
from __future__ import annotations

import hashlib
import marshal
import math
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, count
from typing import Any, Protocol

import numpy as np

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
    """Term counts, weights, norms, query lists and truncated postings of a set of notes, as numpy arrays.

    Term ids follow the terms' first appearance in path order; ``rank`` orders the terms of
    more than one note as strings (the only ones a query can hold). Every weight is an
    integer (count × quantised idf) and every partial or full dot product is an integer held
    exactly in a float64, so sums do not depend on their order.
    """

    def __init__(self, notes: Sequence[RelatedInput], pruned: bool = True) -> None:
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
        self.idf = np.array([quantised_idf(int(d), n) for d in values], np.int64)[where]
        self.rank = rank = np.zeros(len(vocab), np.int64)
        common = np.flatnonzero(df > 1)
        rank[sorted(common.tolist(), key=vocab.__getitem__)] = np.arange(len(common))
        self.weight = weight = counts * self.idf[self.col]
        norms = np.sqrt(np.bincount(self.row, (weight * weight).astype(np.float64), minlength=n))
        norms[norms == 0] = 1.0
        self.norms = norms
        self.cap = cap = max(MAX_DF * n, MIN_DF_CAP)
        if pruned:
            eligible = np.flatnonzero((df[self.col] > 1) & (df[self.col] <= cap))
            # queries: a note's QUERY_TERMS heaviest eligible terms, ties by term
            by_note = eligible[np.lexsort((rank[self.col[eligible]], -weight[eligible], self.row[eligible]))]
            keep = by_note[_ranks(self.row[by_note]) < QUERY_TERMS]
            self.q_col, self.q_weight = self.col[keep], weight[keep]
            self.q_indptr = _indptr(self.row[keep], n)
            # postings: the POSTINGS notes a term weighs most in, ties by path (index)
            by_term = eligible[np.lexsort((self.row[eligible], -weight[eligible], self.col[eligible]))]
            keep = by_term[_ranks(self.col[by_term]) < POSTINGS]
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
        # CANDIDATES per row: highest partial score, ties by index
        local, note = _top_per_group(local, score, note, n, CANDIDATES)
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
                if len(out) == NEIGHBOURS:
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
"""Rows scored together: at most ``QUERY_TERMS × POSTINGS`` partial products each (2.5 M, 20 MB, per block)."""
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


def compute(notes: list[RelatedInput], previous: Any = None) -> Outcome:
    """Score every row, or with ``previous`` (``related_update.Previous``) only the rows an edit can change.

    Up to ``related_exact.EXACT_NOTES`` notes the lists are exact; beyond, candidates are pruned.
    """
    from papernotes.site import related_exact, related_update

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
    scored = dict(zip(todo, score(todo)))
    results = [scored[i] if i in scored else kept[i] for i in range(model.n)]
    return Outcome(tuple(r.path for r in model.notes), tuple(r for r, _ in results), tuple(c for _, c in results),
                   tuple(model.norms.tolist()), len(todo))


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
    only the rows it can change (``related_update``). ``workers`` is unused (the scoring is
    vectorised in this process); the build still passes it.
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
    outcome = compute(inputs, last)
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

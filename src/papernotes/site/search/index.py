"""Search stage: resolved entries become the files of the static, sharded search index.

In: entries, a way to read a note's body, and an optional cache directory
(``CORPUS/.papernotes``). Out: ``SearchFiles``, every file under ``search/``
(a mapping of site-relative path → bytes, with digests so the build writes
only what changed and removes what is gone):

- ``search/index.json`` — the manifest: document count, the first term of each
  shard, facets (venue and domain as document-id ranges, topics with counts),
  groups of duplicate papers, the delta's dead documents;
- ``search/t/N.bin`` — postings shards (``encode.py``), ``search/t/delta.bin``
  the postings of documents edited since the shards were cut;
- ``search/d/N.json`` — title, summary and URL of 8 documents each, fetched
  only for the results shown.

Document ids follow the site order, so a venue, and a domain within it, is a
contiguous range. Each note is tokenised once per content (``tokenize.py``,
cached in ``store.py``); the shards are re-cut only when documents were added,
removed or reordered, or the delta grew past a few notes.
"""
from __future__ import annotations

import gc
import hashlib
import json
import marshal
import multiprocessing
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from papernotes.corpus.model import Entry, Note
from papernotes.site.search.encode import cut, encode_shard, gather
from papernotes.site.search.store import FORMAT, SearchStore, digest
from papernotes.site.search.tokenize import IMPACT_HI, IMPACT_LO, Record, new_session, note_record, plain

BodyReader = Callable[[Note], str]
CHUNK = 8
"""Documents per ``search/d/N.json`` file (the first ten results fetch up to ten of them)."""
SUMMARY_CHARS = 280
PARALLEL_NOTES = 200
DELTA_BYTES = 96_000
KEEP_NOTES = 8_000
"""When at most this many notes are tokenised, their records (~7 KB each) stay in memory for cutting the
shards; more are read back from the store in batches."""
STORE_NAME = "search.sqlite"


class SearchFiles(Mapping[str, bytes]):
    """Every file of the search index: relative path under the site → bytes (base shards read lazily)."""

    def __init__(self, digests: dict[str, str], data: dict[str, bytes], store_path: Path | None) -> None:
        self.digests = digests
        """Relative path → content digest, for every file."""
        self._data = data
        self._store_path = store_path
        self._reader: SearchStore | None = None

    def __getitem__(self, rel: str) -> bytes:
        if rel in self._data:
            return self._data[rel]
        if rel not in self.digests or self._store_path is None:
            raise KeyError(rel)
        if self._reader is None:
            self._reader = SearchStore(self._store_path)
        return self._reader.shard(rel)

    def close(self) -> None:
        """Close the store the shards are read from (reading again reopens it)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def __del__(self) -> None:
        self.close()

    def __iter__(self) -> Iterator[str]:
        return iter(self.digests)

    def __len__(self) -> int:
        return len(self.digests)

    def changes(self, previous: Mapping[str, str] | None) -> tuple[list[str], list[str]]:
        """``(paths to write, paths to remove)`` against the digests of the last published build."""
        if previous is None:
            return sorted(self.digests), []
        write = sorted(rel for rel, d in self.digests.items() if previous.get(rel) != d)
        return write, sorted(rel for rel in previous if rel not in self.digests)


def corpus_bodies(corpus: Path) -> BodyReader:
    """Reads a note's Markdown body from the corpus (``""`` when the file is unreadable: its page says why)."""
    from papernotes.corpus.parse import split_front_matter

    def read(note: Note) -> str:
        try:
            text = (corpus / note.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""
        return split_front_matter(text.replace("\r\n", "\n"))[1]

    return read


def search_files(entries: Sequence[Entry], read_body: BodyReader, cache_dir: Path | None, lang: str,
                 workers: int | None = None) -> SearchFiles:
    """Build (or update) the search index of ``entries``."""
    docs = sorted(entries, key=lambda e: (e.order, e.note.path))
    keys = [_record_key(e, lang) for e in docs]
    store_path = cache_dir / STORE_NAME if cache_dir is not None else None
    data: dict[str, bytes] = {}
    with SearchStore(store_path) as store:
        fresh = _tokenise_missing(store, docs, keys, read_body, lang, workers or os.cpu_count() or 1)
        base_keys, firsts, digests = store.base()
        dead = [i for i, (old, new) in enumerate(zip(base_keys, keys)) if old != new]
        delta = b""
        if len(base_keys) == len(keys) and dead and len(dead) <= max(8, len(keys) // 100):
            changed = gather(lambda: zip(dead, _records(store, [keys[i] for i in dead], fresh)), store.words)
            delta = encode_shard(changed, 0, len(changed))
        if len(base_keys) != len(keys) or not digests or (dead and not 0 < len(delta) <= DELTA_BYTES):
            postings = gather(lambda: enumerate(_records(store, keys, fresh)), store.words)
            ranges = cut(postings)
            firsts = [postings.term(a) for a, _ in ranges]
            shards = ((f"search/t/{i}.bin", encode_shard(postings, a, b)) for i, (a, b) in enumerate(ranges))
            if store_path is None:  # an in-memory store: nothing to read them back from later
                data.update(shards)
                shards = iter(list(data.items()))
            digests = store.save_base(keys, firsts, shards)
            store.keep_words(postings.hashed)
            del postings
            dead, delta = [], b""
        del fresh
        store.keep_records(set(keys))
    if delta:
        data["search/t/delta.bin"] = delta
    data.update(_chunks(docs))
    files = {**digests, **{rel: digest(blob) for rel, blob in data.items()}}
    manifest = _manifest(docs, lang, firsts, dead, bool(delta), files)
    data["search/index.json"] = manifest
    files["search/index.json"] = digest(manifest)
    return SearchFiles(files, data, store_path)


# ------------------------------------------------------------------ records

def _record_key(entry: Entry, lang: str) -> str:
    note = entry.note
    topics = tuple((t.slug, t.name(lang)) for t in entry.topics)
    raw = marshal.dumps((FORMAT, note.digest, note.title, note.summary, note.keywords, note.authors, topics))
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _tokenise(entry: Entry, read_body: BodyReader, lang: str) -> Record:
    note = entry.note
    return note_record(note.title, note.keywords, [(t.slug, t.name(lang)) for t in entry.topics],
                       note.summary, note.authors, read_body(note))


_JOB: tuple[list[Entry], BodyReader, str] | None = None


def _tokenise_range(bounds: tuple[int, int]) -> list[Record]:
    assert _JOB is not None  # set by the parent before forking; not user input
    todo, read_body, lang = _JOB
    return [_tokenise(e, read_body, lang) for e in todo[bounds[0]:bounds[1]]]


def _tokenise_missing(store: SearchStore, docs: Sequence[Entry], keys: Sequence[str], read_body: BodyReader,
                      lang: str, workers: int) -> dict[str, Record]:
    """Tokenise the notes whose record is not cached yet and store the records.

    Returns the new records while they stay small (the cold build of a 3,000-note corpus then
    does not read them back from SQLite); a larger corpus reads them back in batches.
    """
    global _JOB
    new_session()
    have = store.record_keys()
    todo: dict[str, Entry] = {}
    for key, entry in zip(keys, docs):
        if key not in have:
            todo.setdefault(key, entry)
    kept: dict[str, Record] = {}
    in_memory = len(todo) <= KEEP_NOTES

    def keep(items: list[tuple[str, Record]]) -> None:
        store.put_records(items)
        if in_memory:
            kept.update(items)

    if not todo:
        return kept
    entries = list(todo.values())
    if len(entries) < PARALLEL_NOTES or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        keep(list(zip(todo, (_tokenise(e, read_body, lang) for e in entries))))
        return kept
    step = max(16, len(entries) // (workers * 6) + 1)
    bounds = [(i, min(len(entries), i + step)) for i in range(0, len(entries), step)]
    _JOB = (entries, read_body, lang)
    gc.freeze()  # forked workers share the parent's records copy-on-write
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            names = iter(todo)
            for part in pool.imap(_tokenise_range, bounds):
                keep([(next(names), record) for record in part])
    finally:
        _JOB = None
        gc.unfreeze()
    return kept


def _records(store: SearchStore, keys: Sequence[str], fresh: dict[str, Record]) -> Iterator[Record]:
    """The records of ``keys`` in order: from ``fresh`` when there, else from the store."""
    stored = store.records([k for k in keys if k not in fresh])
    for key in keys:
        record = fresh.get(key)
        yield record if record is not None else next(stored)


# ------------------------------------------------------------------ documents and manifest

def _chunks(docs: Sequence[Entry]) -> dict[str, bytes]:
    out = {}
    for k in range(0, len(docs), CHUNK):
        rows = []
        for e in docs[k:k + CHUNK]:
            summary = plain(e.note.summary)
            if len(summary) > SUMMARY_CHARS:
                summary = summary[:SUMMARY_CHARS - 1].rstrip() + "…"
            rows.append([plain(e.note.title), summary, e.url])
        out[f"search/d/{k // CHUNK}.json"] = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()
    return out


def _duplicates(docs: Sequence[Entry]) -> list[list[int]]:
    """Groups of documents about one paper: same arXiv id or same normalised title."""
    from papernotes.check.run import normalise_title

    parent = list(range(len(docs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: dict[tuple[str, str], int] = {}
    for i, e in enumerate(docs):
        for key in (("arxiv", e.note.arxiv_id), ("title", normalise_title(e.note.title))):
            if not key[1]:
                continue
            j = seen.setdefault(key, i)
            if j != i:
                parent[find(i)] = find(j)
    groups: defaultdict[int, list[int]] = defaultdict(list)
    for i in range(len(docs)):
        groups[find(i)].append(i)
    return [g for g in groups.values() if len(g) > 1]


def _manifest(docs: Sequence[Entry], lang: str, firsts: list[str], dead: list[int], delta: bool,
              files: Mapping[str, str]) -> bytes:
    from papernotes.site.plan import domain_label, venue_label

    venues: dict[str, int] = {}
    domains: dict[str, int] = {}
    venue_rows: list[list[object]] = []
    domain_rows: list[list[str]] = []
    cells: list[list[int]] = []
    topics: Counter[str] = Counter()
    topic_names: dict[str, str] = {}
    for i, e in enumerate(docs):
        v = venues.get(e.venue.id)
        if v is None:
            v = venues[e.venue.id] = len(venue_rows)
            venue_rows.append([e.venue.id, venue_label(e.venue), e.venue.year or 0])
        d = domains.get(e.domain.slug)
        if d is None:
            d = domains[e.domain.slug] = len(domain_rows)
            domain_rows.append([e.domain.slug, domain_label(e.domain, lang)])
        if cells and cells[-1][0] == v and cells[-1][1] == d and cells[-1][3] == i:
            cells[-1][3] = i + 1
        else:
            cells.append([v, d, i, i + 1])
        for t in e.topics:
            topics[t.slug] += 1
            topic_names[t.slug] = t.name(lang)
    generation = hashlib.blake2b(json.dumps(sorted(files.items())).encode(), digest_size=6).hexdigest()
    doc = {
        "version": 2, "gen": generation, "docs": len(docs), "chunk": CHUNK, "impact": [IMPACT_LO, IMPACT_HI],
        "shards": firsts, "delta": delta, "dead": dead,
        "venues": venue_rows, "domains": domain_rows, "cells": cells,
        "topics": [[slug, topic_names[slug], n] for slug, n in sorted(topics.items(), key=lambda kv: (-kv[1], kv[0]))],
        "dups": _duplicates(docs),
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()

"""Search stage: resolved entries become the files of the static, sharded search index.

In: entries, a way to read a note's body, and an optional cache directory
(``CORPUS/.papernotes``). Out: ``SearchFiles``, every file under ``search/``
(a mapping of site-relative path → bytes, with digests so the build writes
only what changed and removes what is gone):

- ``search/index.json`` — the manifest: document count, the first term of each
  shard, facets (``documents.py``), the delta's dead documents;
- ``search/t/N.bin`` — postings shards (``encode.py``), ``search/t/delta.bin``
  the postings of documents edited since the shards were cut;
- ``search/d/N.json`` — title, summary and URL of 8 documents each.

``search_files`` makes the index of every entry; ``search_update`` brings the
last one up to date when only the bodies of some notes changed, from those
entries alone. Document ids follow the site order. Each note is tokenised once
per content (``tokenize.py``, records cached in ``store.py``); the shards are
re-cut only when documents were added, removed or reordered, or the delta grew
past a few notes.
"""
from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from papernotes import forks
from papernotes.corpus.frontmatter import split_front_matter
from papernotes.corpus.model import Entry, Note
from papernotes.digests import stable_bytes
from papernotes.site.search.documents import Facets, document_files, facets, manifest
from papernotes.site.search.encode import cut, encode_shard, encode_shards, gather, wide_prefixes
from papernotes.site.search.store import FORMAT, SearchStore, digest, document_index, forget_base
from papernotes.site.search.store import updatable as _updatable
from papernotes.site.search.tokenize import NoteText, Record, new_session, note_records

BodyReader = Callable[[Note], str]
PARALLEL_NOTES = 200
RECYCLE_NOTES = 2_000
"""Notes a tokenising worker takes (in whole batches, at least one) before a fresh one replaces it."""
TASK_NOTES = 1_000
"""Notes in one batch at most (~25 MB of a worker's heap, and its records sent back at once)."""
DELTA_BYTES = 96_000
KEEP_NOTES = 8_000
"""When at most this many notes are tokenised, their records (~7 KB each) stay in memory for cutting the
shards; more are read back from the store in batches."""
STORE_NAME = "search.sqlite"
DELTA = "search/t/delta.bin"
MANIFEST = "search/index.json"


class SearchFiles(Mapping[str, bytes]):
    """Every file of the search index: relative path under the site → bytes (unchanged files are read
    from the store when asked for)."""

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
        return self._reader.read(rel)

    def close(self) -> None:
        """Close the store unchanged files are read from (reading again reopens it)."""
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
    return lambda note: body_of(corpus, note.path)


def body_of(corpus: Path, path: str) -> str:
    """The Markdown body of the note at ``path`` in ``corpus`` (``""`` when the file is unreadable)."""
    try:
        with open(corpus / path, "rb") as file:  # bytes, then decoded: 40 % less time than read_text
            text = file.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    return split_front_matter(text.replace("\r\n", "\n").replace("\r", "\n"))[1]  # read_text's newlines


def search_files(entries: Sequence[Entry], read_body: BodyReader, cache_dir: Path | None, lang: str,
                 workers: int | None = None, synonyms: Sequence[Sequence[str]] = ()) -> SearchFiles:
    """The search index of ``entries`` (every note of the site); the manifest carries the ``synonyms``
    groups for the page to expand queries with."""
    docs = sorted(entries, key=lambda e: (e.order, e.note.path))
    paths = [e.note.path for e in docs]
    keys = [record_key(e, lang) for e in docs]
    store_path = cache_dir / STORE_NAME if cache_dir is not None else None
    with SearchStore(store_path) as store:
        fresh = _tokenise_missing(store, dict(zip(keys, docs)), read_body, lang, workers or os.cpu_count() or 1)
        found = {**facets(docs, lang), "synonyms": [list(group) for group in synonyms]}
        data = document_files(docs, found["dups"])
        files = _finish(store, store_path, paths, keys, found, fresh, data)
    return files


def updatable(cache_dir: Path) -> bool:
    """Whether ``search_update`` can update the index cached in ``cache_dir`` (else a body edit makes the
    whole index again: the store was deleted, damaged, or written by an older papernotes)."""
    return _updatable(cache_dir / STORE_NAME)


def forget(cache_dir: Path) -> None:
    """Have the next build make the whole index cached in ``cache_dir`` (``updatable`` is False until then)."""
    forget_base(cache_dir / STORE_NAME)


def search_update(edited: Sequence[Entry], read_body: BodyReader, cache_dir: Path, lang: str,
                  workers: int | None = None) -> SearchFiles | None:
    """The last index, with the bodies of ``edited`` notes as they are now.

    For a build that changed nothing else other pages show (titles, summaries, keywords, topics,
    URLs, order). ``None`` when the store has no index with those notes: build the whole index.
    """
    store_path = cache_dir / STORE_NAME
    with SearchStore(store_path) as store:
        last, base = store.last(), store.base()
        if last is None or base is None:
            return None
        paths, changes, found = last
        where = [document_index(paths, e.note.path) for e in edited]
        if None in where:
            return None
        keys = list(base[0])
        for i, key in changes.items():
            keys[i] = key
        todo, replaced, changed = {}, [], set(changes)
        for entry, i in zip(edited, where, strict=True):
            assert i is not None
            replaced.append(keys[i])
            key = keys[i] = record_key(entry, lang)
            todo[key] = entry
            changed.add(i)
        fresh = _tokenise_missing(store, todo, read_body, lang, workers or os.cpu_count() or 1)
        return _finish(store, store_path, None, keys, found, fresh, {}, replaced=replaced, changed=changed)


def _finish(store: SearchStore, store_path: Path | None, paths: list[str] | None, keys: list[str], found: Facets,
            fresh: dict[str, Record], data: dict[str, bytes], *, replaced: Sequence[str] | None = None,
            changed: Iterable[int] | None = None) -> SearchFiles:
    """Postings (a delta on the base, or the base cut again), the manifest; everything recorded in the store.
    ``paths``: the documents' note paths, for a whole index (None: an update, whose documents are the last
    index's, the ``changed`` ones possibly with another record key)."""
    replace = paths is not None
    base = store.base()
    base_keys, firsts, prefixes = base if base is not None else ([], [], {})
    if changed is not None and len(base_keys) == len(keys):
        dead = sorted(i for i in changed if base_keys[i] != keys[i])
    else:
        dead = [i for i, (old, new) in enumerate(zip(base_keys, keys)) if old != new]
    delta = b""
    if len(base_keys) == len(keys) and dead and len(dead) <= max(8, len(keys) // 100):
        changed_postings = gather(lambda: zip(dead, _records(store, [keys[i] for i in dead], fresh)), store.words)
        delta = encode_shard(changed_postings, 0, len(changed_postings))
    others = store.digests()  # every file of the last index
    if replace:  # its shards (every other file is in ``data``)
        others = {rel: d for rel, d in others.items() if rel.startswith("search/t/")}
    if len(base_keys) != len(keys) or base is None or (dead and not 0 < len(delta) <= DELTA_BYTES):
        vocabulary = store.vocabulary() if len(fresh) == len(keys) else None  # every record made by this build
        postings = gather(lambda: enumerate(_records(store, keys, fresh)), store.words, vocabulary)
        ranges = cut(postings)
        firsts = [postings.term(a) for a, _ in ranges]
        prefixes = wide_prefixes(postings, ranges, firsts)
        shards = ((f"search/t/{i}.bin", blob) for i, blob in enumerate(encode_shards(postings, ranges)))
        if store_path is None:  # an in-memory store: nothing to read them back from later
            data.update(shards)
            shards = iter([(rel, blob) for rel, blob in data.items() if rel.startswith("search/t/")])
        others = {rel: d for rel, d in others.items() if not rel.startswith("search/t/")}
        others.update(store.save_base(keys, firsts, prefixes, shards))
        store.keep_words(postings.hashed)
        del postings
        dead, delta = [], b""
    store.keep_records(keys if replaced is not None else set(keys), replaced)
    if delta:
        data[DELTA] = delta
    others.pop(DELTA, None)
    others.pop(MANIFEST, None)
    others.update({rel: digest(blob) for rel, blob in data.items()})
    generation = hashlib.blake2b(repr(sorted(others.items())).encode(), digest_size=6).hexdigest()
    data[MANIFEST] = manifest(found, generation, firsts, prefixes, dead, bool(delta))
    others[MANIFEST] = digest(data[MANIFEST])
    kept = {rel: blob for rel, blob in data.items() if not rel.startswith("search/t/") or rel == DELTA}
    store.save_last(paths, {i: keys[i] for i in dead}, found, kept, others, replace=replace,
                    remove=[] if delta else [DELTA])
    return SearchFiles(others, data, store_path)


# ------------------------------------------------------------------ records

def record_key(entry: Entry, lang: str) -> str:
    note = entry.note
    topics = tuple((t.slug, t.name(lang)) for t in entry.topics)
    raw = stable_bytes((FORMAT, note.digest, note.title, note.summary, note.keywords, note.authors, topics))
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _texts(entries: Iterable[Entry], read_body: BodyReader, lang: str) -> Iterator[NoteText]:
    for entry in entries:
        note = entry.note
        yield NoteText(note.title, note.keywords, [(t.slug, t.name(lang)) for t in entry.topics], note.summary,
                       note.authors, read_body(note))


_JOB: tuple[list[Entry], BodyReader, str] | None = None


def _tokenise_range(bounds: tuple[int, int]) -> list[Record]:
    assert _JOB is not None  # set by the parent before forking; not user input
    todo, read_body, lang = _JOB
    return list(note_records(_texts(todo[bounds[0]:bounds[1]], read_body, lang)))


def _tokenise_missing(store: SearchStore, wanted: Mapping[str, Entry], read_body: BodyReader,
                      lang: str, workers: int) -> dict[str, Record]:
    """Tokenise the notes (record key → entry) whose record is not cached yet and store the records.

    Returns the new records while they stay small (the cold build of a 3,000-note corpus then
    does not read them back from SQLite); a larger corpus reads them back in batches.
    """
    global _JOB
    new_session()
    have = store.record_keys(wanted)
    todo = {key: entry for key, entry in wanted.items() if key not in have}
    kept: dict[str, Record] = {}
    in_memory = len(todo) <= KEEP_NOTES

    def keep(items: list[tuple[str, Record]]) -> None:
        if in_memory:  # stored in the background once all are made, while the caller cuts the shards
            kept.update(items)
        else:
            store.put_records(items)

    if not todo:
        return kept
    entries = list(todo.values())
    if len(entries) < PARALLEL_NOTES or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        keep(list(zip(todo, note_records(_texts(entries, read_body, lang)))))
        if kept:
            store.put_records(kept.items(), wait=False)
        return kept
    step = max(16, min(TASK_NOTES, len(entries) // (workers * 6) + 1))
    bounds = [(i, min(len(entries), i + step)) for i in range(0, len(entries), step)]
    _JOB = (entries, read_body, lang)
    gc.freeze()  # forked workers share the parent's records copy-on-write
    try:
        if in_memory and sys.platform.startswith("linux"):  # this process tokenises too, beside workers - 1
            # forked ones (which die with it: PR_SET_PDEATHSIG is Linux's); their records come back in full
            parts = forks.share(bounds, _tokenise_range, workers)
            keep(list(zip(todo, (record for part in parts for record in part), strict=True)))
            store.put_records(kept.items(), wait=False)
            return kept
        # a fresh worker every RECYCLE_NOTES notes: what one copied of the parent (reference counts) and its
        # grown heap go with it; at 50,000 notes the process tree otherwise climbs past the memory budget. Not
        # sooner: a fresh worker learns its words again (~0.05 s a time at 3,000 notes)
        tasks = max(1, RECYCLE_NOTES // step)
        with multiprocessing.get_context("fork").Pool(workers, maxtasksperchild=tasks) as pool:
            names = iter(todo)
            for part in pool.imap(_tokenise_range, bounds):
                keep([(next(names), record) for record in part])
    finally:
        _JOB = None
        gc.unfreeze()
    if kept:
        store.put_records(kept.items(), wait=False)
    return kept


def _records(store: SearchStore, keys: Sequence[str], fresh: dict[str, Record]) -> Iterator[Record]:
    """The records of ``keys`` in order: from ``fresh`` when there, else from the store."""
    stored = store.records([k for k in keys if k not in fresh])
    for key in keys:
        record = fresh.get(key)
        yield record if record is not None else next(stored)

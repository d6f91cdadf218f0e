"""Search stage, beside the rest of a first build: ``search_files`` in a forked process.

A first build of a few thousand notes used to make its search index after its
pages (~2.5 s at 3,248 notes, per edition), while the steps before the render
(related papers, the plan: ~3 s) keep only one of two cores busy. As soon as the
notes are resolved, ``Background.start`` forks a child per edition; the child
makes the edition's index in its own process and sends the files back, and the
build takes them when it stages the search files. The index is the one
``search_files`` makes in the build's process: the child runs that function, and
the build takes its files only if the edition shows equal entries. A child that
failed, or was not started, only means that the build makes the index itself.

Only between ``BACKGROUND_NOTES`` notes: below, there is too little to gain; above,
the child's index and the parent's related-papers model together would pass the
build's memory budget (1.5 GB at 50,000 notes), so the index is made after the pages.
Above, ``Records`` does the part that fits: a child tokenises notes (the bulk of the
index's work: ~28 s of CPU at 50,000 notes) into the edition's search store while the
build resolves, scores related papers and plans on the other core, and stops when the
render starts, which needs both cores and most of the memory; ``search_files`` then
finds those records stored, as a rebuild finds them, and tokenises only the rest.
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from papernotes import forks
from papernotes.corpus.model import Entry
from papernotes.site.search.index import (
    PARALLEL_NOTES,
    STORE_NAME,
    BodyReader,
    SearchFiles,
    body_of,
    record_key,
    search_files,
)
from papernotes.site.search.store import SearchStore
from papernotes.site.search.tokenize import NoteText, note_records
from papernotes.testhooks import pause

PACKAGE_ROOT = Path(__file__).resolve().parents[3]
"""The folder papernotes is imported from here, where ``Records``' child imports it from."""
BACKGROUND_NOTES = (PARALLEL_NOTES, 15_000)
RECORDS_BATCH = 250
"""Notes ``Records``' child tokenises between two looks at whether to stop (~0.15 s of work), and stores at once."""


class Background:
    """A search index being made by a child process: take it with ``result``, or ``cancel`` it."""

    def __init__(self, pid: int, pipe: int, entries: Sequence[Entry]) -> None:
        self.pid, self.pipe = pid, pipe
        self.entries = list(entries)
        self.failure: str | None = None
        """Why the child made no index, once ``result`` found it failed (the build says so, and makes it)."""

    @classmethod
    def start(cls, entries: Sequence[Entry], read_body: BodyReader, cache_dir: Path, lang: str,
              synonyms: Sequence[Sequence[str]] = ()) -> Background | None:
        """The child making ``search_files(entries, …)`` with one process, or None when it would not pay
        (see the module) or cannot be forked."""
        low, high = BACKGROUND_NOTES
        if not low <= len(entries) <= high or not forks.can_fork():
            return None
        parent = os.getpid()
        forked = forks.fork_with_pipe()
        if forked is None:
            return None
        if forked[0]:
            return cls(*forked, entries)
        write_end = forked[1]
        status = 1  # the child: nothing after this block runs in it, whatever happens
        try:
            made: SearchFiles | str
            try:
                forks.die_with_parent(parent)
                pause("search.background")
                made = search_files(entries, read_body, cache_dir, lang, workers=1, synonyms=synonyms)
                made.close()
                status = 0
            except Exception as exc:  # noqa: BLE001 - the build reports it, and makes the index itself
                made = f"{type(exc).__name__}: {exc}"
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(pickle.dumps(made, pickle.HIGHEST_PROTOCOL))
        finally:
            os._exit(status)

    def result(self, entries: Sequence[Entry]) -> SearchFiles | None:
        """The index, once the child is done; None if it failed or was started on other entries."""
        with os.fdopen(self.pipe, "rb") as reader:
            data = reader.read()
        _, status = os.waitpid(self.pid, 0)
        try:  # from our own child, through a pipe only it and this process hold
            files = pickle.loads(data)  # noqa: S301
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            files = None
        if status != 0 or not isinstance(files, SearchFiles):
            self.failure = files if isinstance(files, str) else _ended(os.waitstatus_to_exitcode(status))
            return None
        return files if _by_path(entries) == _by_path(self.entries) else None  # equal records, mostly the same objects

    def before_render(self) -> None:
        """The render starts: this child goes on (its index is what the build waits for afterwards)."""

    def cancel(self) -> None:
        """Stop the child and reap it (a build that failed or was interrupted)."""
        os.close(self.pipe)
        _kill(self.pid)


class Records:
    """Records of a large first build's notes, tokenised into the edition's search store by a child process until
    the render starts (see the module); ``before_render`` stops it.

    The child is a fresh interpreter, not a fork: given only what the records are made from, it holds ~0.2 GB,
    where a fork of the build (whose allocations land in the build's own memory pages, copied) held 0.46 GB.
    It writes the store as ``search_files`` would (made anew beside it and renamed into place, or reused), and
    the build opens the store only once the child is reaped.
    """

    def __init__(self, child: subprocess.Popen[bytes], errors: IO[bytes]) -> None:
        self.child = child
        self.errors = errors
        """Where the child's stderr goes: its last line says why it failed."""
        self._status: int | None = None
        self.failure: str | None = None
        """Why the child stopped short, once reaped (the build says so; ``search_files`` tokenises what it left)."""

    @classmethod
    def start(cls, entries: Sequence[Entry], corpus: Path, cache_dir: Path, lang: str) -> Records | None:
        """The child tokenising ``entries`` in their order into the store in ``cache_dir``, or None below
        ``BACKGROUND_NOTES`` (``Background`` makes the whole index there) or when it cannot be started."""
        if len(entries) <= BACKGROUND_NOTES[1] or not forks.can_fork():
            return None
        rows = [(record_key(e, lang), e.note.path, e.note.title, tuple(e.note.keywords),
                 tuple((t.slug, t.name(lang)) for t in e.topics), e.note.summary, tuple(e.note.authors))
                for e in entries]
        # this very papernotes, whatever the child's sys.path and working folder would find first
        code = (f"import sys; sys.path.insert(0, {str(PACKAGE_ROOT)!r}); "
                "from papernotes.site.search.background import records_child; records_child()")
        errors = tempfile.TemporaryFile()
        try:
            with tempfile.TemporaryFile() as given:
                pickle.dump(rows, given, pickle.HIGHEST_PROTOCOL)
                given.flush()
                given.seek(0)
                child = subprocess.Popen(
                    [sys.executable, "-c", code, str(os.getpid()), str(corpus), str(cache_dir / STORE_NAME),
                     str(given.fileno())], pass_fds=(given.fileno(),), stdin=subprocess.DEVNULL, stderr=errors)
        except OSError:
            errors.close()
            return None
        return cls(child, errors)

    def before_render(self) -> None:
        """Stop the child once its batch is stored, and reap it (the render needs both cores, and the search
        index after it the store)."""
        if self._status is None:
            try:
                self.child.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            status = self.child.wait()
            if status not in (0, -signal.SIGTERM):  # SIGTERM: stopped by the build before it could say a word
                self.errors.seek(0)
                said = self.errors.read().decode("utf-8", "replace").strip().splitlines()
                self.failure = said[-1] if said else _ended(status)
            self._reaped(status)

    def result(self, entries: Sequence[Entry]) -> None:
        """No index: the build makes it, finding the records the child stored."""
        self.before_render()
        return None

    def cancel(self) -> None:
        """Stop the child and reap it (a build that failed or was interrupted)."""
        if self._status is None:
            self.child.kill()
            self._reaped(self.child.wait())

    def _reaped(self, status: int) -> None:
        self._status = status
        self.errors.close()


def records_child() -> None:
    """``Records``' child: ``PARENT CORPUS STORE GIVEN`` (the file descriptor of the pickled rows); tokenises the
    rows whose record the store lacks, a batch at a time, and stops between two batches at SIGTERM."""
    parent, corpus, store_path, given = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    forks.die_with_parent(int(parent))
    stopped: list[bool] = []
    signal.signal(signal.SIGTERM, lambda *_: stopped.append(True))
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C reaches the whole process group: the build reports it
    pause("search.records")
    with os.fdopen(given, "rb") as source:
        rows = pickle.load(source)  # noqa: S301 - written by the build that started this process
    with SearchStore(store_path) as store:
        have = store.record_keys(row[0] for row in rows)
        rows = [row for row in rows if row[0] not in have]
        for start in range(0, len(rows), RECORDS_BATCH):
            if stopped:
                break
            batch = rows[start:start + RECORDS_BATCH]
            made = note_records(NoteText(title, keywords, topics, summary, authors, body_of(corpus, path))
                                for _, path, title, keywords, topics, summary, authors in batch)
            store.put_records(zip([row[0] for row in batch], made, strict=True))


def _ended(code: int) -> str:
    """How a child that said nothing ended, from its exit code (negative: the signal that killed it)."""
    return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def _by_path(entries: Sequence[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: e.note.path)

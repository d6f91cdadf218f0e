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
"""
from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Sequence
from pathlib import Path

from papernotes import forks
from papernotes.corpus.model import Entry
from papernotes.site.search.index import (
    PARALLEL_NOTES,
    BodyReader,
    SearchFiles,
    search_files,
)
from papernotes.testhooks import pause

BACKGROUND_NOTES = (PARALLEL_NOTES, 15_000)


class Background:
    """A search index being made by a child process: take it with ``result``, or ``cancel`` it."""

    def __init__(self, pid: int, pipe: int, entries: Sequence[Entry]) -> None:
        self.pid, self.pipe = pid, pipe
        self.entries = list(entries)

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
            forks.die_with_parent(parent)
            pause("search.background")
            files = search_files(entries, read_body, cache_dir, lang, workers=1, synonyms=synonyms)
            files.close()
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(pickle.dumps(files, pickle.HIGHEST_PROTOCOL))
            status = 0
        finally:
            os._exit(status)

    def result(self, entries: Sequence[Entry]) -> SearchFiles | None:
        """The index, once the child is done; None if it failed or was started on other entries."""
        with os.fdopen(self.pipe, "rb") as reader:
            data = reader.read()
        _, status = os.waitpid(self.pid, 0)
        if status != 0 or _by_path(entries) != _by_path(self.entries):  # equal records, mostly the same objects
            return None
        try:  # from our own child, through a pipe only it and this process hold
            files = pickle.loads(data)  # noqa: S301
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            return None
        return files if isinstance(files, SearchFiles) else None

    def cancel(self) -> None:
        """Stop the child and reap it (a build that failed or was interrupted)."""
        os.close(self.pipe)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)


def _by_path(entries: Sequence[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: e.note.path)

"""Render stage: planned pages become HTML files in the staging area, on every core.

In: the pages whose fingerprint changed, the ``Theme`` and the ``Staging`` area.
Out: the files written (by worker processes forked from the build, which share
its records copy-on-write) and the problems rendering found (broken links…).
Few pages are rendered in-process: forking costs more than it saves.
"""
from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Callable
from typing import TYPE_CHECKING

from papernotes.errors import Diagnostic
from papernotes.site.contexts import FigureFile
from papernotes.testhooks import pause

if TYPE_CHECKING:
    from papernotes.site.contexts import Page
    from papernotes.disk import Staging
    from papernotes.site.theme import Theme

Progress = Callable[[str, int, int], None]
PARALLEL_PAGES = 150
"""Below this many pages, rendering stays in the build process."""
RECYCLE_CHUNKS = 4
"""Chunks a render worker takes before a fresh one replaces it (what it copied of the parent goes with it)."""
CHUNKS_PER_WORKER = 16
"""Chunks the pages are cut into per worker: small enough that the last one keeps one core busy alone for
little time (at 50,000 notes, about 1 s)."""

_JOB: tuple[Theme, list[Page], Staging] | None = None


def _render_range(bounds: tuple[int, int]) -> list[tuple[str, Diagnostic]]:
    assert _JOB is not None  # set by the parent before forking; not user input
    theme, pages, staging = _JOB
    pause("render.range")
    problems: list[tuple[str, Diagnostic]] = []
    for page in pages[bounds[0]:bounds[1]]:
        if isinstance(page.context, FigureFile):  # an image of the figure cache: linked (or copied) as it is
            staging.link(page.output_path, page.context.source)
            continue
        data, found = theme.render(page)
        staging.write(page.output_path, data)
        problems.extend((page.url, d) for d in found)
    return problems


def render_pages(theme: Theme, pages: list[Page], staging: Staging, workers: int,
                 progress: Progress | None = None) -> list[tuple[str, Diagnostic]]:
    """Render ``pages`` into ``staging``; returns ``(page URL, problem)`` pairs."""
    global _JOB
    total = len(pages)
    if progress:
        progress("render", 0, total)
    _JOB = (theme, pages, staging)
    try:
        if total < PARALLEL_PAGES or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
            problems = []
            step = max(1, total // 50)
            for start in range(0, total, step):
                problems.extend(_render_range((start, min(total, start + step))))
                if progress:
                    progress("render", min(total, start + step), total)
            return problems
        # Listing pages first: a topic page of a large site lists thousands of notes (~0.15 s each at 50,000),
        # and rendered last they kept one core busy for ~8 s after the other had finished.
        _JOB = (theme, sorted(pages, key=lambda p: p.template == "note.html"), staging)
        chunk = max(20, total // (workers * CHUNKS_PER_WORKER) + 1)
        bounds = [(i, min(total, i + chunk)) for i in range(0, total, chunk)]
        problems = []
        gc.freeze()  # workers share the parent's records copy-on-write; GC would touch (and copy) every page
        # A worker copies the parent's memory pages it touches (reference counts): a fresh one every
        # RECYCLE_CHUNKS chunks keeps the process tree inside the memory budget at 50,000 notes.
        with multiprocessing.get_context("fork").Pool(workers, maxtasksperchild=RECYCLE_CHUNKS) as pool:
            done = 0
            for part in pool.imap(_render_range, bounds):
                problems.extend(part)
                done += chunk
                if progress:
                    progress("render", min(done, total), total)
        where = {page.url: i for i, page in enumerate(pages)}
        return sorted(problems, key=lambda found: where[found[0]])  # in the pages' order, as rendered in-process
    finally:
        _JOB = None

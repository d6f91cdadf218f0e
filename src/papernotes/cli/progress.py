"""A rich progress bar for long phases; invisible for phases under a second."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

SHOW_AFTER = 1.0


@contextmanager
def progress_bar(console: Console, disable: bool = False) -> Iterator:  # type: ignore[type-arg]
    """Yield a ``callback(phase, done, total)``; the bar appears only once a phase runs past a second."""
    bar: Progress | None = None
    tasks: dict[str, int] = {}
    started: dict[str, float] = {}

    def callback(phase: str, done: int, total: int) -> None:
        nonlocal bar
        if disable:
            return
        now = time.monotonic()
        started.setdefault(phase, now)
        if bar is None:
            if now - started[phase] < SHOW_AFTER:
                return
            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), console=console, transient=True)
            bar.start()
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total)
        bar.update(tasks[phase], completed=done, total=total)

    try:
        yield callback
    finally:
        if bar is not None:
            bar.stop()

"""A rich progress bar for long phases; invisible for phases under a second.

rich is imported when a bar first shows, so a command that finishes within a
second (an up-to-date build) never loads it.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

SHOW_AFTER = 1.0


@contextmanager
def progress_bar(console: Console | None = None, disable: bool = False) -> Iterator:  # type: ignore[type-arg]
    """Yield a ``callback(phase, done, total)``; the bar appears only once a phase runs past a second.
    ``console``: where it draws (default: a console on stderr, when stderr is a terminal: piped, it would leave
    a blank line where a terminal erases it)."""
    isatty = getattr(sys.stderr, "isatty", None)
    disable = disable or (console is None and not (isatty and isatty()))
    bar: Any = None
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
            bar = _bar(console)
            bar.start()
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total)
        bar.update(tasks[phase], completed=done, total=total)

    try:
        yield callback
    finally:
        if bar is not None:
            bar.stop()


def _bar(console: Console | None) -> Any:
    # lazy: 88 ms (importtime, beside papernotes.cli.progress): `--help` does not load it
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if console is None:
        console = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True)

"""The console entry point: ``papernotes …``.

A plain ``papernotes build CORPUS [-o SITE] [-q] [-j N] [--strict] [--no-cache]``
is by far the most frequent command, and at 50,000 notes its no-op answer
(``up to date``) is a scan of the corpus. Typer's parser costs ~0.15 s of that
(it builds a pydantic adapter per option) and importing typer and rich another
~0.17 s, so such an argument list is read here, with the option definitions the
registered command is made from (``cli.site_build.OPTIONS``), and handed to the function
it calls (``cli.site_build.run``) with the values typer would pass
(``tests/test_cli_entry.py`` holds the two parsers to the same result); neither typer
nor rich is imported. Anything else — ``--help``, an
unknown or repeated option, a corpus that is a file, any other command — goes
to typer unchanged, which also prints the errors.
"""
from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

from papernotes.cli import INTERRUPTED, interrupted, run
from papernotes.cli.site_build import OPTIONS
from papernotes.cli.site_build import run as build

_FLAGS = {**{flag: (o.name, True) for o in OPTIONS if isinstance(o.default, bool) for flag in o.flags},
          **{flag: (o.name, False) for o in OPTIONS for flag in o.off}}
_VALUES = {flag: o.name for o in OPTIONS if not isinstance(o.default, bool) for flag in o.flags}
_TYPES = {o.name: type(o.default) for o in OPTIONS}


def plain_build(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of ``cli.site_build.run`` for a plain ``build`` argument list, or None
    for anything this reader does not take (typer then reads it)."""
    if not args or args[0] != "build":
        return None
    params: dict[str, Any] = {o.name: o.default for o in OPTIONS}
    seen: set[str] = set()
    corpus: str | None = None
    rest = iter(args[1:])
    for arg in rest:
        name, equals, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg in _FLAGS:
            key, value = _FLAGS[arg]
        elif name in _VALUES:
            key = _VALUES[name]
            value = inline if equals else next(rest, None)
            if value is None or value == "" or value.startswith("-"):
                return None
            if _TYPES[key] is int:
                if not value.isascii() or not value.isdigit():
                    return None
                value = int(value)
            else:
                value = _TYPES[key](value)
        elif not arg.startswith("-") and corpus is None:
            corpus = arg
            continue
        else:
            return None  # --help, an unknown option, a second argument, short flags run together…
        if key in seen:
            return None  # repeated: typer's rules (last one wins, or an error) apply
        seen.add(key)
        params[key] = value
    if corpus is None or not os.path.isdir(corpus):
        return None  # missing, or not a directory: typer's message
    return {"corpus": Path(corpus), **params}


def main(*, leave_at_once: bool = False) -> None:
    """``papernotes``: a plain ``build`` straight to its command, everything else through typer.
    ``leave_at_once``: end the process when a plain build is done (see ``_leave``)."""
    params = plain_build(sys.argv[1:])
    if params is None:
        run()
        return
    try:
        status = build(**params)
    except KeyboardInterrupt:
        interrupted("the site is as it was, or the next build finishes what this one started")
        sys.exit(INTERRUPTED)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.exit(1)  # as typer: output piped into a command that stopped reading
    if leave_at_once:
        _leave(status)
    sys.exit(status)


def console() -> None:
    """The console script (and ``python -m papernotes``)."""
    main(leave_at_once=True)


def _leave(status: int) -> None:
    """End the process now. The build has closed what it wrote (its cache, its site, its children); what is
    left is freeing its objects one by one at shutdown, 0.1 s after an edit at 50,000 notes."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        status = 1
    os._exit(status)

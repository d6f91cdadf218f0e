"""Plain terminal output every command shares: diagnostics, errors, one-line reports.

Free of rich and typer, so that a plain ``papernotes build`` (``cli.entry`` →
``cli.site_build``) starts without importing either: at 50,000 notes their
~0.17 s is a third of an up-to-date build. Streams are looked up on every
write (tests swap them). Colour follows the terminal, ``NO_COLOR`` and
``FORCE_COLOR``, as rich's consoles do.
"""
from __future__ import annotations

import os
import sys
from typing import TextIO

from papernotes.errors import Diagnostic, PapernotesError

RED, YELLOW = 31, 33


def notes_counted(notes: int, translations: int) -> str:
    """``47 notes (20 translations)``: how ``build`` and ``check`` count, a note and its translations being one."""
    return f"{notes} notes ({translations} translations)" if translations else f"{notes} notes"


def coloured(stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream``: ``NO_COLOR`` says no, ``FORCE_COLOR`` yes, else a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _paint(text: str, colour: int, stream: TextIO) -> str:
    return f"\x1b[{colour}m{text}\x1b[0m" if coloured(stream) else text


def say(line: str) -> None:
    """One line on stdout, as is (no markup: a path with brackets prints as it is)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def warn(line: str) -> None:
    """One line on stderr, in yellow on a terminal."""
    sys.stderr.write(_paint(line, YELLOW, sys.stderr) + "\n")
    sys.stderr.flush()


def error(message: str) -> None:
    """``error: message`` on stderr, for a failure that concerns no one file."""
    sys.stderr.write(f"{_paint('error:', RED, sys.stderr)} {message}\n")
    sys.stderr.flush()


def report(diagnostics: list[Diagnostic], warning_limit: int | None = 50) -> None:
    """Print diagnostics as ``path:line: severity: message``: every error, then warnings up to a limit."""
    ordered = sorted(dict.fromkeys(diagnostics), key=lambda d: (not d.is_error, d.path, d.line))
    errors = [d for d in ordered if d.is_error]
    warnings = [d for d in ordered if not d.is_error]
    shown = warnings if warning_limit is None else warnings[:warning_limit]
    stream = sys.stderr
    lines = [_paint(str(d), RED if d.is_error else YELLOW, stream) for d in [*errors, *shown]]
    if len(shown) < len(warnings):
        lines.append(f"… and {len(warnings) - len(shown)} more warning(s); `papernotes check` lists them all")
    if lines:  # one write: thousands of lines
        stream.write("\n".join(lines) + "\n")
        stream.flush()


def failure(exc: PapernotesError) -> int:
    """Print ``exc`` once (its own ``path:line: error:`` lines when it carries diagnostics, the errors that
    caused it before its message when it names them); its exit status."""
    diagnostics = getattr(exc, "diagnostics", None)
    if diagnostics:
        report(list(diagnostics), warning_limit=None)
    else:
        report(list(getattr(exc, "errors", ())), warning_limit=0)
        error(str(exc))
    return exc.exit_code

"""The Typer application and what every command shares: consoles, diagnostics, errors.

Command modules (``cli.site``, ``cli.intake``, ``cli.classify``, ``cli.migrate``)
import ``app`` from here and register with ``@app.command``; ``papernotes.cli.app`` imports
them all. Errors of the ``PapernotesError`` family become a message and an exit
code here and nowhere else.

Every command follows one rule: it exits with status 1 (2 for unusable input
or options) when it printed an error, that is when it failed at part of what it
was asked to do, and 0 otherwise; ``build`` alone publishes the notes it can and
exits 0 unless ``--strict`` (a note with errors is left out, as documented). An
error is printed once, as ``path:line: error: message`` when it concerns a file
or ``error: message`` otherwise. Output is never wrapped by rich: a long path
stays on one line when it is piped.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from papernotes import __version__
from papernotes.cli.help import App, Group
from papernotes.errors import Diagnostic, PapernotesError

app = App(
    name="papernotes",
    help="Turn a corpus of structured paper notes into a fast, searchable static site.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    cls=Group,
)
# soft_wrap: rich would otherwise break lines (and the paths in them) at 80 columns when piped
err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True)
out = Console(highlight=False, emoji=False, soft_wrap=True)

CorpusArg = Annotated[Path, typer.Argument(help="Corpus directory (notes + optional papernotes.toml).",
                                           exists=False, file_okay=False, show_default=False)]


def _version(value: bool) -> None:
    if value:
        out.print(f"papernotes {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True,
                                                         help="Show the version and exit.")] = None) -> None:
    """papernotes: ingest → draft → classify → check → build → serve."""


def report(diagnostics: list[Diagnostic], warning_limit: int | None = 50) -> None:
    """Print diagnostics as ``path:line: severity: message``: every error, then warnings up to a limit."""
    ordered = sorted(dict.fromkeys(diagnostics), key=lambda d: (not d.is_error, d.path, d.line))
    errors = [d for d in ordered if d.is_error]
    warnings = [d for d in ordered if not d.is_error]
    shown = warnings if warning_limit is None else warnings[:warning_limit]
    color = err.is_terminal and not err.no_color
    lines = []
    for d in [*errors, *shown]:
        text = str(d)
        lines.append(f"\x1b[{31 if d.is_error else 33}m{text}\x1b[0m" if color else text)
    if len(shown) < len(warnings):
        lines.append(f"… and {len(warnings) - len(shown)} more warning(s); `papernotes check` lists them all")
    if lines:  # one write: rich's per-line rendering is slow for thousands of lines
        err.file.write("\n".join(lines) + "\n")
        err.file.flush()


def fail(exc: PapernotesError) -> typer.Exit:
    """Print ``exc`` once (its own ``path:line: error:`` lines when it carries diagnostics, the errors that
    caused it before its message when it names them); the exit to raise."""
    diagnostics = getattr(exc, "diagnostics", None)
    if diagnostics:
        report(list(diagnostics), warning_limit=None)
    else:
        report(list(getattr(exc, "errors", ())), warning_limit=0)
        error(str(exc))
    return typer.Exit(exc.exit_code)


def error(message: str) -> None:
    """``error: message`` on stderr, for a failure that concerns no one file."""
    err.print(f"[red]error:[/red] {escape(message)}")


def exit_on_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
    """Exit with status 1 when any of ``diagnostics`` (already printed) is an error."""
    if any(d.is_error for d in diagnostics):
        raise typer.Exit(1)

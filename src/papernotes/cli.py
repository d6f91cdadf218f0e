"""Command-line interface: thin commands that load options and call one stage.

Errors of the ``PapernotesError`` family become a message and an exit code here
and nowhere else; heavy modules are imported inside commands so ``--help`` is instant.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from . import __version__
from .errors import Diagnostic, PapernotesError

app = typer.Typer(
    name="papernotes",
    help="Turn a corpus of structured paper notes into a fast, searchable static site.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)
err = Console(stderr=True, highlight=False)
out = Console(highlight=False)

CorpusArg = Annotated[Path, typer.Argument(help="Corpus directory (notes + optional papernotes.toml).",
                                           exists=False, file_okay=False)]


def _version(value: bool) -> None:
    if value:
        out.print(f"papernotes {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True,
                                                         help="Show the version and exit.")] = None) -> None:
    """papernotes: ingest → draft → classify → check → build → serve."""


def report(diagnostics: list[Diagnostic], limit: int = 200) -> None:
    """Print diagnostics as ``path:line: severity: message``, errors first."""
    ordered = sorted(diagnostics, key=lambda d: (not d.is_error, d.path, d.line))
    for d in ordered[:limit]:
        style = "red" if d.is_error else "yellow"
        err.print(f"[{style}]{d}[/{style}]", markup=True, soft_wrap=True)
    if len(ordered) > limit:
        err.print(f"… and {len(ordered) - limit} more")


def fail(exc: PapernotesError) -> typer.Exit:
    err.print(f"[red]error:[/red] {exc}", soft_wrap=True)
    return typer.Exit(exc.exit_code)


@app.command()
def build(
    corpus: CorpusArg,
    output: Annotated[Path, typer.Option("-o", "--output", help="Site directory to (re)build.")] = Path("site"),
    strict: Annotated[bool, typer.Option(help="Fail, writing nothing, if any note has an error.")] = False,
    jobs: Annotated[int, typer.Option("-j", "--jobs", help="Worker processes (default: all cores).")] = 0,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ignore and do not update the build cache.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Build the static site. Only pages whose inputs changed are re-rendered."""
    from .build import build as run_build

    from .progress import progress_bar

    try:
        with progress_bar(err, disable=quiet) as progress:
            result = run_build(corpus, output, strict=strict, workers=jobs or None, progress=progress,
                               use_cache=not no_cache)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(result.diagnostics if not quiet else result.errors)
    if not quiet:
        state = "up to date" if result.up_to_date else f"{result.rendered} page(s) rendered, {result.removed} removed"
        out.print(f"{result.notes} notes → {result.pages} pages in {output} ({state}) in {result.seconds:.2f}s")
    if result.errors:
        err.print(f"[yellow]{len(result.errors)} note(s) skipped because of errors[/yellow]")


def run() -> None:  # pragma: no cover - console entry for `python -m papernotes`
    app(prog_name="papernotes")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())

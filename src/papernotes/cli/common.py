"""The Typer application and what every command shares: consoles, the exit on errors.

Command modules (``cli.site``, ``cli.intake``, ``cli.classify``, ``cli.migrate``)
import ``app`` from here and register with ``@app.command``; ``papernotes.cli.app`` imports
them all. Errors of the ``PapernotesError`` family become a message and an exit
code in ``cli.output.failure`` (``fail`` here turns it into typer's exit) and nowhere else.

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
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.console import Console

from papernotes import __version__
from papernotes.cli.help import App, Group
from papernotes.cli.output import failure
from papernotes.errors import Diagnostic, PapernotesError

if TYPE_CHECKING:
    from papernotes.intake.conversation import Usage

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


def fail(exc: PapernotesError) -> typer.Exit:
    """Print ``exc`` once (``output.failure``); the exit to raise."""
    return typer.Exit(failure(exc))


def exit_on_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
    """Exit with status 1 when any of ``diagnostics`` (already printed) is an error."""
    if any(d.is_error for d in diagnostics):
        raise typer.Exit(1)


def model_line(model: str, u: Usage, repaired: int, batch_price_factor: float, cost: float | None = None) -> str:
    """The summary of a run's language-model requests (draft, translate, classify); tokens and cost with ``cost``."""
    batched = (f" ({u.batch_requests} by batch in {u.batches} new batch(es), {batch_price_factor:.0%} price)"
               if u.batch_requests or u.batches else "")
    line = f"model {model}: {u.requests} request(s){batched}, {u.cache_hits} from cache, {u.retries} retried, " \
           f"{repaired} repaired"
    if cost is None:
        return line
    return (f"{line}; tokens {u.prompt_tokens:,} in + {u.completion_tokens:,} out (cache saved {u.cached_tokens:,}); "
            f"cost ${cost:.4f}")

"""CLI for the translate stage: ``papernotes translate CORPUS --to en``.

Thin: parse options, call ``papernotes.intake.translate.translate``, print what
was translated, what was left untranslated and why, and the model's cost. The
stage (and through it openai) is imported inside the command so ``--help``
stays instant.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from papernotes.cli.common import app, err, fail, model_line, out
from papernotes.cli.output import report

LANGS = ("zh", "en")
ENGINE_CHOICES = ("openai",)


@app.command("translate")
def translate_command(
    corpus: Annotated[Path, typer.Argument(help="Corpus directory.", file_okay=False, show_default=False)],
    to: Annotated[str, typer.Option("--to", help="Language of the translations: zh or en.",
                                    show_default=False)] = ...,  # type: ignore[assignment]  # required
    engine: Annotated[str, typer.Option(
        help="openai: any OpenAI-compatible endpoint, set up in the llm table of papernotes.toml.")] = "openai",
    batch: Annotated[bool, typer.Option(
        "--batch", help="Send the requests through the OpenAI Batch API (half price, within 24 h); "
                        "re-run to resume a run that was interrupted.")] = False,
    limit: Annotated[Optional[int], typer.Option(min=0, help="Translate at most N notes (in path order).")] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Write foo.en.md (or foo.zh.md) beside each original foo.md that has no translation in that language, or a
    stale one: same sections under the language's canonical headings, formulas, code, link targets and numbers
    unchanged (checked; one repair request, else the note is left untranslated and the command fails)."""
    # lazy: 371 ms (importtime, beside papernotes.cli.translate): `--help` does not load it
    from papernotes.cli.progress import progress_bar
    from papernotes.errors import PapernotesError
    from papernotes.intake.translate import translate

    if to not in LANGS:
        raise typer.BadParameter("choose zh or en", param_hint="--to")
    if engine not in ENGINE_CHOICES:
        raise typer.BadParameter(f"choose one of: {', '.join(ENGINE_CHOICES)}", param_hint="--engine")
    try:
        with progress_bar(err, disable=quiet) as progress:
            result = translate(corpus, to, engine=engine, batch=batch, limit=limit, progress=progress)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(list(result.diagnostics) if not quiet else [d for d in result.diagnostics if d.is_error])
    if not quiet:
        redone = f" ({result.redone} stale one(s) redone)" if result.redone else ""
        failed = f", {len(result.failed)} left untranslated" if result.failed else ""
        out.print(f"{len(result.translated)} note(s) translated to {to}{redone}{failed}; "
                  f"{result.up_to_date} already translated")
        if result.usage is not None and (result.usage.requests or result.usage.cache_hits):
            out.print(model_line(result.model, result.usage, result.repaired, result.batch_price_factor,
                                 result.cost))
    if result.failed or any(d.is_error for d in result.diagnostics):
        raise typer.Exit(1)

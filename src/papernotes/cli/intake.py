"""Intake commands: ``papernotes ingest`` and ``papernotes draft``.

Thin: parse options, call ``papernotes.intake.ingest.ingest`` or ``papernotes.intake.draft.draft``,
print a summary. Stage modules (and through them openai, arxiv, bibtexparser)
are imported inside the commands so ``papernotes --help`` stays instant.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from papernotes.cli.app import app, err, fail, out, report
from papernotes.intake.sources import SOURCES


@app.command("ingest")
def ingest_command(
    source: Annotated[str, typer.Argument(metavar="SOURCE", help=f"One of: {', '.join(SOURCES.names())}.",
                                          show_default=False)],
    args: Annotated[Optional[list[str]], typer.Argument(
        metavar="ARGS", show_default=False,
        help="openreview: a venue id such as ICML.cc/2026/Conference (accepted papers only); arxiv: arXiv ids, "
             "or the words of a search query; bibtex/csv/json: files. None with --from-file.")] = None,
    corpus: Annotated[Path, typer.Argument(help="Corpus directory.", file_okay=False,
                                           show_default=False)] = ...,  # type: ignore[assignment]  # required
    venue: Annotated[Optional[str], typer.Option(
        help="Venue id for every paper, e.g. ICLR2024; overrides what the source says.")] = None,
    from_file: Annotated[Optional[Path], typer.Option(
        "--from-file", dir_okay=False,
        help="Read a saved response instead of the network: OpenReview notes JSON, arXiv Atom XML, "
             ".bib, .csv or .json.")] = None,
    api_url: Annotated[Optional[str], typer.Option(
        "--api-url", help="Another endpoint for openreview/arxiv (a mirror, a test server).")] = None,
    max_results: Annotated[int, typer.Option(
        "--max-results", min=1, help="Most papers an arXiv search query returns.")] = 200,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Add papers from a source as stub notes (CORPUS/VENUE/slug.md); duplicates are merged, edits kept."""
    from papernotes.errors import PapernotesError
    from papernotes.intake.ingest import ingest
    from papernotes.intake.sources import SourceRequest

    if source not in SOURCES:
        raise typer.BadParameter(f"unknown source {source!r}; choose one of: {', '.join(SOURCES.names())}",
                                 param_hint="SOURCE")
    request = SourceRequest(tuple(args or ()), from_file, api_url, max_results, source)
    try:
        result = ingest(corpus, source, request, venue=venue)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(list(result.diagnostics) if not quiet else [d for d in result.diagnostics if d.is_error])
    if not quiet:
        folded = f" ({result.folded} duplicate(s) merged)" if result.folded else ""
        out.print(f"{result.read} paper(s) read{folded}: {len(result.created)} new stub(s), "
                  f"{len(result.updated)} stub(s) updated, {len(result.existing)} already in {corpus}")


@app.command("draft")
def draft_command(
    corpus: Annotated[Path, typer.Argument(help="Corpus directory.", file_okay=False, show_default=False)],
    engine: Annotated[str, typer.Option(
        help="openai: any OpenAI-compatible endpoint, set up in the llm table of papernotes.toml; "
             "extractive: offline, abstract sentences only.")] = "openai",
    limit: Annotated[Optional[int], typer.Option(min=0, help="Draft at most N stubs (in path order).")] = None,
    lang: Annotated[Optional[str], typer.Option(
        help="Language of the draft: zh or en (default: the note's `lang`, else the site language).")] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Fill stub notes with the canonical sections, summary, keywords and (openai) ratings."""
    from papernotes.cli.progress import progress_bar
    from papernotes.errors import PapernotesError
    from papernotes.intake.draft import ENGINES, draft

    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of: {', '.join(ENGINES)}", param_hint="--engine")
    if lang not in (None, "zh", "en"):
        raise typer.BadParameter("choose zh or en", param_hint="--lang")
    try:
        with progress_bar(err, disable=quiet) as progress:
            result = draft(corpus, engine=engine, limit=limit, lang=lang, progress=progress)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(list(result.diagnostics) if not quiet else [d for d in result.diagnostics if d.is_error])
    if quiet:
        return
    failed = f", {len(result.failed)} failed (still stubs, see `draft_error`)" if result.failed else ""
    out.print(f"{len(result.drafted)} note(s) drafted with {engine}{failed}")
    if result.usage is not None:
        u = result.usage
        out.print(f"model {result.model}: {u.requests} request(s), {u.cache_hits} from cache, {u.retries} retried, "
                  f"{result.repaired} repaired; tokens {u.prompt_tokens:,} in + {u.completion_tokens:,} out "
                  f"(cache saved {u.cached_tokens:,}); cost ${result.cost:.4f}")

"""Intake commands: ``papernotes ingest``, ``draft``, ``fetch`` (papers beside notes) and ``read`` (a PDF as the pipeline sees it).

Thin: parse options, call ``papernotes.intake.ingest.ingest`` or ``papernotes.intake.draft.draft``,
print a summary. Stage modules (and through them openai, arxiv, bibtexparser)
are imported inside the commands so ``papernotes --help`` stays instant.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from papernotes.cli.common import app, err, exit_on_errors, fail, model_line, out
from papernotes.cli.output import report, say
from papernotes.intake.engines import ENGINES
from papernotes.intake.sources import SOURCES


@app.command("ingest")
def ingest_command(
    source: Annotated[str, typer.Argument(metavar="SOURCE", help=f"One of: {', '.join(SOURCES.names())}.",
                                          show_default=False)],
    args: Annotated[Optional[list[str]], typer.Argument(
        metavar="ARGS", show_default=False,
        help="openreview: a venue id such as ICML.cc/2026/Conference (accepted papers only); arxiv: arXiv ids, "
             "or the words of a search query; bibtex/csv/json: files; pdf: PDF files or folders of PDFs. "
             "None with --from-file.")] = None,
    corpus: Annotated[Path, typer.Argument(help="Corpus directory.", file_okay=False,
                                           show_default=False)] = ...,  # type: ignore[assignment]  # required
    venue: Annotated[Optional[str], typer.Option(
        help="Venue id for every paper, e.g. ICLR2024; overrides what the source says (pdf: only for the PDFs "
             "that print no venue).")] = None,
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
    """Add papers from a source as stub notes (CORPUS/VENUE/slug.md); duplicates are merged, edits kept.

    CORPUS is created when it does not exist. With `pdf`, each PDF's title, authors, abstract, arXiv id and venue come from its first page, and the PDF is filed beside its note (slug.md ↔ slug.pdf; a duplicate's PDF joins the note already there, never replacing another PDF). Exit status 1 when a paper could not be added (reported with its file and line: no venue, an entry or a PDF that cannot be read); the other papers are added.
    """
    # lazy: 456 ms (importtime, beside papernotes.cli.intake): `--help` does not load it
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
        if result.new_corpus:
            out.print(f"created the corpus folder {corpus}")
        folded = f" ({result.folded} duplicate(s) merged)" if result.folded else ""
        out.print(f"{result.read} paper(s) read{folded}: {len(result.created)} new stub(s), "
                  f"{len(result.updated)} stub(s) updated, {len(result.existing)} already in {corpus}")
        if result.pdfs:
            out.print(f"{len(result.pdfs)} PDF(s) filed beside their notes")
    exit_on_errors(result.diagnostics)


@app.command("draft")
def draft_command(
    corpus: Annotated[Path, typer.Argument(help="Corpus directory.", file_okay=False, show_default=False)],
    notes: Annotated[Optional[list[Path]], typer.Argument(
        metavar="[NOTE]...", show_default=False,
        help="Draft only these notes (paths of .md files inside the corpus); default: every note that needs it.")] = None,
    engine: Annotated[str, typer.Option(
        metavar="ENGINE",
        help=f"One of: {', '.join(ENGINES.names())}. openai: any OpenAI-compatible endpoint, set up in the llm "
             "table of papernotes.toml; extractive: offline, sentences of the abstract and the paper.")] = "openai",
    batch: Annotated[bool, typer.Option(
        "--batch", help="Send the requests through the OpenAI Batch API (half price, within 24 h); "
                        "re-run to resume a run that was interrupted.")] = False,
    limit: Annotated[Optional[int], typer.Option(min=0, help="Draft at most N notes (in path order).")] = None,
    lang: Annotated[Optional[str], typer.Option(
        help="Language to write the draft in: zh or en (default: the language of the note's section headings, "
             "else the `lang` of a note not drafted yet, else the site language).")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Redraft notes already drafted, and replace sections edited since the last draft.")] = False,
    diff: Annotated[bool, typer.Option(
        "--diff", help="Write nothing: print, section by section, what the draft would change in each note "
                       "(with --force: what a redraft, say with a newer model, would replace).")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="List every note not drafted, with why.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Fill the notes that need it (`status: stub`, or canonical sections all empty, as `new` makes them) with the canonical sections, summary, keywords and (openai) ratings, from the PDF beside each note when there is one (its numbers checked against it), else from the abstract.

    A draft replaces the canonical sections in place; a section edited by hand since the last draft is kept (`--force` replaces it), and so is text under headings of your own. `lang` is set to the language the text is in. Notes not drafted are counted by reason (`-v` lists them). Exit status 1 when a note could not be drafted (it is left as it was, with `draft_error`) or a PDF beside a note could not be read (the note is drafted from its abstract); every finished note is saved either way.
    """
    # lazy: 558 ms (importtime, beside papernotes.cli.intake): `--help` does not load it
    from papernotes.cli.progress import progress_bar
    from papernotes.errors import PapernotesError
    from papernotes.intake.draft import draft
    from papernotes.intake.draft_diff import section_diffs

    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of: {', '.join(ENGINES.names())}", param_hint="--engine")
    if lang not in (None, "zh", "en"):
        raise typer.BadParameter("choose zh or en", param_hint="--lang")
    try:
        with progress_bar(err, disable=quiet) as progress:
            result = draft(corpus, engine=engine, limit=limit, lang=lang, progress=progress, batch=batch,
                           force=force, notes=tuple(notes or ()), preview=diff)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(list(result.diagnostics) if not quiet else [d for d in result.diagnostics if d.is_error])
    for path, before, after in result.previews:
        _print_preview(path, section_diffs(before, after))
    if not quiet:
        _print_draft_summary(result, verbose)
    exit_on_errors(result.diagnostics)


def _print_preview(path: str, diffs: Iterable[tuple[str, list[str]]]) -> None:
    """What ``draft --diff`` prints of one note: a header, then each changed key and section as a unified diff."""
    changes = list(diffs)
    say(f"=== {path}: {len(changes)} part(s) would change" if changes else f"=== {path}: no change")
    for what, lines in changes:
        say(f"--- {what}")
        for line in lines:
            say(line)


def _print_draft_summary(result, verbose: bool) -> None:  # type: ignore[no-untyped-def]  # DraftResult, lazily
    if verbose:
        for path, why in result.skipped:
            say(f"{path}: skipped: {why}")
        for path, keys in result.kept:
            say(f"{path}: kept, edited since the last draft: {', '.join(keys)}")
    counts = Counter(why for _, why in result.skipped)
    reasons = "; ".join(f"{n} {why}" for why, n in sorted(counts.items(), key=lambda c: (-c[1], c[0])))
    listed = "" if verbose or not result.skipped else " (-v lists them)"
    if not result.drafted and not result.failed and not result.diagnostics:
        say(f"no note to draft: {reasons}{listed}" if reasons else
            "no note to draft (`papernotes ingest` and `papernotes new` make notes to draft)")
        return
    failed = f", {len(result.failed)} failed (left as they were, see `draft_error`)" if result.failed else ""
    done = "previewed (nothing written)" if result.previews else "drafted"
    say(f"{len(result.drafted)} note(s) {done} with {result.engine}{failed}")
    if result.kept:
        say(f"kept {sum(len(k) for _, k in result.kept)} section(s) edited since the last draft in "
            f"{len(result.kept)} note(s) (--force replaces them)")
    if reasons:
        say(f"{len(result.skipped)} note(s) not drafted: {reasons}{listed}")
    if result.grounded:
        marked = f", {result.unsupported} not in the paper (marked ⚠)" if result.unsupported else ""
        repairs = f"; {result.ground_repaired} sent back for a repair" if result.usage is not None else ""
        out.print(f"grounding: {result.grounded} note(s) checked against their paper, {result.checked:,} "
                  f"number(s){marked}{repairs}")
    if result.usage is not None:
        # one count of repair requests: a reply that was not the JSON asked for, or a draft sent back for its numbers
        out.print(model_line(result.model, result.usage, result.repaired + result.ground_repaired,
                             result.batch_price_factor, result.cost))


@app.command("read")
def read_command(
    pdf: Annotated[Path, typer.Argument(help="A paper's PDF.", dir_okay=False, show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print the sections, paragraphs, figures and tables as JSON.")] = False,
    corpus: Annotated[Optional[Path], typer.Option(
        help="Corpus whose cache to use (default: the nearest folder above the PDF with papernotes.toml "
             "or .papernotes/; none: no cache).", file_okay=False)] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Read the PDF again, ignoring the cache.")] = False,
) -> None:
    """Print what the pipeline reads from a PDF: sections in reading order, pages, appendix, figures and tables."""
    # lazy: 140 ms (importtime, beside papernotes.cli.intake): `--help` does not load it
    import json

    from papernotes.errors import PapernotesError
    from papernotes.intake.paper import PaperError, cache_dir, find_corpus, read_paper

    if corpus is not None and not corpus.is_dir():
        raise typer.BadParameter(f"{corpus}: corpus directory not found", param_hint="--corpus")
    home = None if no_cache else (corpus or find_corpus(pdf))
    try:
        paper = read_paper(pdf, cache_dir(home) if home is not None else None)
    except PaperError as exc:
        err.print(f"{escape(exc.path)}: error: {escape(exc.reason)}", soft_wrap=True, highlight=False)
        raise typer.Exit(1) from None
    except PapernotesError as exc:
        raise fail(exc) from None
    if paper.doubts:  # what the first page did not give plainly (a title from the metadata, no author names)
        err.print(f"{escape(str(pdf))}: warning: {escape('; '.join(paper.doubts))}", soft_wrap=True, highlight=False)
    if as_json:
        out.print_json(json.dumps(paper.to_dict(), ensure_ascii=False))
        return
    words = len(paper.text().split())
    refs = "references cut" if paper.references_cut else "no references section found"
    empty = f", {len(paper.empty_pages)} page(s) without text" if paper.empty_pages else ""
    lines = [f"# {paper.title or pdf.name}",
             f"{paper.pages} page(s), {words:,} words, sections from {paper.outline_source}, {refs}, "
             f"{len(paper.appendix)} appendix section(s){empty}; sha256 {paper.sha256[:12]}"]
    for label, sections in (("", paper.sections), ("APPENDIX", paper.appendix)):
        if label and sections:
            lines.append(f"\n==== {label} ====")
        for section in sections:
            lines.append(f"\n## {section.heading or '(front matter)'}  [p. {section.page}]")
            lines.extend(f"[p. {p.page}] {p.text}" for p in section.paragraphs)
    if paper.figures or paper.tables:
        lines.append(f"\n==== FIGURES AND TABLES ({len(paper.figures)} + {len(paper.tables)}) ====")
        lines.extend(f"[p. {f.page}] {f.label}, "
                     f"{'box ' + ', '.join(f'{v:g}' for v in f.bbox) if f.located else 'not found'}: {f.caption}"
                     for f in (*paper.figures, *paper.tables))
    out.file.write("\n".join(lines) + "\n")


@app.command("fetch")
def fetch_command(
    corpus: Annotated[Path, typer.Argument(help="Corpus directory.", file_okay=False, show_default=False)],
    from_dir: Annotated[Optional[Path], typer.Option(
        "--from-dir", file_okay=False,
        help="File the PDFs of this folder (by arXiv id in the name or on page 1, else by title) instead of "
             "downloading.")] = None,
    api_url: Annotated[Optional[str], typer.Option(
        "--api-url", help="Another server for arXiv and OpenReview downloads (a mirror, a test server).")] = None,
    delay: Annotated[float, typer.Option(min=0, help="Seconds between two requests.")] = 3.0,
    retries: Annotated[int, typer.Option(min=0, help="Retries of a request that got 429, 5xx or no answer.")] = 3,
    backoff: Annotated[float, typer.Option(min=0, help="Seconds before the first retry, doubled each time.")] = 2.0,
    max_mb: Annotated[float, typer.Option("--max-mb", min=0, help="Largest PDF accepted, in MiB.")] = 100.0,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds to wait for a server.")] = 60.0,
    limit: Annotated[Optional[int], typer.Option(min=0, help="Fetch at most N papers.")] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Put each note's paper beside it (foo.md → foo.pdf): downloaded from its arXiv/OpenReview/pdf link, or filed."""
    # lazy: 297 ms (importtime, beside papernotes.cli.intake): `--help` does not load it
    from papernotes.cli.progress import progress_bar
    from papernotes.errors import PapernotesError
    from papernotes.intake.fetch import FetchOptions, fetch_corpus, file_from_dir

    options = FetchOptions(api_url, delay, retries, backoff, int(max_mb * 2 ** 20), timeout, limit)
    try:
        with progress_bar(err, disable=quiet) as progress:
            if from_dir is not None:
                result = file_from_dir(corpus, from_dir, progress)
            else:
                result = fetch_corpus(corpus, options, progress)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(list(result.diagnostics) if not quiet else [d for d in result.diagnostics if d.is_error])
    failed = result.count("failed")
    if not quiet:
        verb = "filed" if from_dir is not None else "fetched"
        parts = [f"{result.count('fetched')} {verb}", f"{result.count('present')} already present"]
        if from_dir is None:
            parts += [f"{result.count('no-link')} without a link", f"{failed} failed"]
        out.print(", ".join(parts))
    if failed:
        raise typer.Exit(1)

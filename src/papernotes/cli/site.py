"""Site commands: ``build``, ``serve``, ``check`` and ``new``.

Thin: each reads its options, calls one stage and prints what it did. Stage
modules are imported inside the commands so ``papernotes --help`` stays instant.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from papernotes.cli.common import CorpusArg, app, err, error, exit_on_errors, fail, out, report
from papernotes.errors import PapernotesError


@app.command()
def build(
    corpus: CorpusArg,
    output: Annotated[Path, typer.Option("-o", "--output", help="Site directory to (re)build.")] = Path("site"),
    strict: Annotated[bool, typer.Option(help="Fail, writing nothing, if any note has an error.")] = False,
    jobs: Annotated[int, typer.Option("-j", "--jobs", help="Worker processes (default: all cores).")] = 0,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ignore and do not update the build cache.")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Build the static site. Only pages whose inputs changed are re-rendered.

    A note with errors is reported and left out (exit status 0; --strict fails instead). A corpus without a note to publish is an error (exit status 1).
    """
    import gc

    from papernotes.site.build import build as run_build

    # Many small acyclic records are allocated (from the scan on): fewer, cheaper collections (imports frozen
    # out of them).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    found = _scan(corpus)
    if found is not None and not found.files:
        error(f"no notes in {corpus}: a note is a Markdown file with YAML front matter; start with "
              f"`papernotes new {corpus}` or `papernotes ingest SOURCE … {corpus}`; nothing was built")
        raise typer.Exit(1)
    from papernotes.cli.progress import progress_bar

    try:
        with progress_bar(err, disable=quiet) as progress:
            result = run_build(corpus, output, strict=strict, workers=jobs or None, progress=progress,
                               use_cache=not no_cache, found=found)
    except PapernotesError as exc:
        raise fail(exc) from None
    report(result.diagnostics if not quiet else result.errors)
    if not quiet:
        state = "up to date" if result.up_to_date else f"{result.rendered} page(s) rendered, {result.removed} removed"
        out.print(f"{result.notes} notes → {result.pages} pages in {output} ({state}) in {result.seconds:.2f}s",
                  soft_wrap=True)
    skipped = len({d.path for d in result.errors})
    if result.notes == 0 and not result.up_to_date:
        error(f"no note of {corpus} can be published: {_unpublished(corpus, result.diagnostics)}")
        raise typer.Exit(1)
    if skipped:
        err.print(f"[yellow]{skipped} note(s) skipped because of errors[/yellow]")


def _scan(corpus: Path):  # type: ignore[no-untyped-def]
    """The corpus' note files, scanned once for the check below and the build; None if unreadable."""
    from papernotes.corpus.load import scan_corpus

    if not corpus.is_dir():
        return None
    try:
        return scan_corpus(corpus)
    except PapernotesError:
        return None  # the build reports what it cannot read


def _unpublished(corpus: Path, diagnostics: list) -> str:  # type: ignore[type-arg]
    """Why no note made it to the site: notes with errors, stubs without a domain."""
    failed = len({d.path for d in diagnostics if d.is_error})
    unfiled = len({d.path for d in diagnostics if d.code == "unfiled-stub"})
    reasons = []
    if failed:
        reasons.append(f"{failed} note(s) with errors (listed above)")
    if unfiled:
        reasons.append(f"{unfiled} stub(s) without a domain (`papernotes classify {corpus} --apply` files them)")
    return "; ".join(reasons) or "no note has a title, venue and domain"


@app.command()
def serve(
    corpus: CorpusArg,
    port: Annotated[int, typer.Option("-p", "--port", help="Port on 127.0.0.1 (0 picks a free one).")] = 8000,
    output: Annotated[Optional[Path], typer.Option("-o", "--output",
                                                   help="Site directory (default: CORPUS/.papernotes/serve).")] = None,
) -> None:
    """Build, serve on 127.0.0.1 only, rebuild when a note changes and reload open pages."""
    from papernotes.site.serve import DevServer, default_site_dir, wait_forever

    site = output or default_site_dir(corpus)

    def on_build(result) -> None:  # type: ignore[no-untyped-def]
        report(result.diagnostics, warning_limit=20)
        if not result.up_to_date:
            out.print(f"built {result.notes} notes ({result.rendered} page(s)) in {result.seconds:.2f}s")

    def on_error(exc: Exception) -> None:
        err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)

    try:
        server = DevServer(corpus, site, port, on_build=on_build, on_error=on_error)
    except PapernotesError as exc:
        raise fail(exc) from None
    except OSError as exc:
        err.print(f"[red]error:[/red] cannot listen on 127.0.0.1:{port}: {exc.strerror}")
        raise typer.Exit(1) from None
    if server.last_result is None:
        server.server_close()
        raise typer.Exit(1)
    server.start()
    out.print(f"serving {corpus} at [bold]{server.url}[/bold] (Ctrl+C to stop)")
    try:
        wait_forever()
    except KeyboardInterrupt:
        server.stop()


@app.command()
def check(
    corpus: CorpusArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print diagnostics as JSON.")] = False,
    no_formulas: Annotated[bool, typer.Option("--no-formulas", help="Skip the KaTeX check of formulas.")] = False,
    no_classifier: Annotated[bool, typer.Option("--no-classifier", help="Skip the misfile detection.")] = False,
    threshold: Annotated[float, typer.Option(help="Classifier probability that flags a misfile.")] = 0.8,
    site: Annotated[Optional[Path], typer.Option(
        help="Also compare this built site with the corpus (from the record the build wrote, not its HTML): "
             "every note published and listed once, every count honest.")] = None,
    grounding: Annotated[bool, typer.Option(
        "--grounding", help="Check every number of a note against its paper, the PDF beside it (foo.md ↔ foo.pdf); "
                            "needs the pdf extra.")] = False,
) -> None:
    """Validate the corpus; exit status 1 only when there are errors (warnings are fine)."""
    import json

    from papernotes.check.run import CheckOptions, check_corpus

    options = CheckOptions(formulas=not no_formulas, classifier=not no_classifier,
                           misfile_threshold=threshold, site=site, grounding=grounding)
    try:
        diagnostics, count = check_corpus(corpus, options)
    except PapernotesError as exc:
        raise fail(exc) from None
    errors = sum(d.is_error for d in diagnostics)
    if as_json:
        rows = [{"path": d.path, "line": d.line, "severity": d.severity.value, "code": d.code, "message": d.message}
                for d in diagnostics]
        payload = {"notes": count, "errors": errors, "warnings": len(diagnostics) - errors, "diagnostics": rows}
        if grounding:
            payload["grounding"] = _grounding_summary(corpus)
        out.print_json(json.dumps(payload, ensure_ascii=False))
    else:
        report(diagnostics, warning_limit=None)
        if grounding and (summary := _grounding_summary(corpus)):
            out.print(f"grounding: {summary['checked_notes']} note(s) checked against their paper, "
                      f"{summary['unsupported']} of {summary['numbers']} number(s) not in the paper; "
                      f"{summary['skipped']} note(s) without a PDF skipped, {len(summary['unreadable'])} PDF(s) unreadable")
        out.print(f"{count} notes checked: {errors} error(s), {len(diagnostics) - errors} warning(s)")
    if errors:
        raise typer.Exit(1)


def _grounding_summary(corpus: Path) -> dict:  # type: ignore[type-arg]
    """Per-note counts of the grounding check that just ran (saved by it under .papernotes/)."""
    from papernotes.check.grounding_run import load_report

    return load_report(corpus.resolve()) or {}


@app.command()
def new(
    corpus: CorpusArg,
    title: Annotated[str, typer.Option(prompt=True, help="Paper title.")],
    venue: Annotated[str, typer.Option(prompt=True, help="Venue id, e.g. ICML2026.")],
    domain: Annotated[str, typer.Option(prompt=True, help="Domain slug, e.g. optimization.")],
    lang: Annotated[str, typer.Option(help="Language of the section headings: zh or en.")] = "zh",
    slug: Annotated[str, typer.Option(help="File name without .md (default: from the title).")] = "",
    arxiv: Annotated[str, typer.Option(help="arXiv id or URL.")] = "",
    code: Annotated[str, typer.Option(help="Code repository URL.")] = "",
) -> None:
    """Scaffold a note (front matter and every canonical section) at CORPUS/VENUE/DOMAIN/SLUG.md.

    The venue and domain must be in the taxonomy (a typo gets the closest names); nothing is written when an input is wrong (exit status 2).
    """
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.intake.scaffold import NewNote, ScaffoldError, create_note

    try:
        config, _ = load_config(corpus)
        taxonomy = load_site_taxonomy(corpus, config)
        path = create_note(corpus, NewNote(title, venue, domain, lang, slug, arxiv, code), taxonomy)
    except ScaffoldError as exc:
        for problem in exc.problems:
            error(problem)
        raise typer.Exit(exc.exit_code) from None
    except PapernotesError as exc:
        raise fail(exc) from None
    out.print(f"created {path}")

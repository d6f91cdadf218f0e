"""Site commands: ``build``, ``serve``, ``check`` and ``new``.

Thin: each reads its options, calls one stage and prints what it did. Stage
modules are imported inside the commands so ``papernotes --help`` stays instant.
"""
from __future__ import annotations

import errno
import inspect
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from papernotes.cli.common import CorpusArg, app, fail, out
from papernotes.cli.output import error, failure, notes_counted, report, warn
from papernotes.cli.site_build import HELP as BUILD_HELP
from papernotes.cli.site_build import OPTIONS as BUILD_OPTIONS
from papernotes.cli.site_build import run as run_build
from papernotes.errors import PapernotesError
from papernotes.forks import one_blas_thread


def _build_command() -> Callable[..., None]:
    """The typer command made from ``cli.site_build.OPTIONS``: the one definition of build's options."""

    def build(corpus: Path, **options: Any) -> None:
        status = run_build(corpus, **options)
        if status:
            raise typer.Exit(status)

    parameters = [inspect.Parameter("corpus", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=CorpusArg)]
    parameters += [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default,
                                     annotation=Annotated[type(o.default), typer.Option(*o.declarations(), help=o.help)])
                   for o in BUILD_OPTIONS]
    build.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    build.__annotations__ = {p.name: p.annotation for p in parameters}
    build.__doc__ = BUILD_HELP
    return build


app.command()(_build_command())


@app.command()
def serve(
    corpus: CorpusArg,
    port: Annotated[int, typer.Option("-p", "--port", help="Port on 127.0.0.1 (0 picks a free one).")] = 8000,
    output: Annotated[Optional[Path], typer.Option("-o", "--output",
                                                   help="Site directory (default: CORPUS/.papernotes/serve).")] = None,
) -> None:
    """Build, serve on 127.0.0.1 only, rebuild when a note changes and reload open pages.

    The site is served under the path of base_url (/notes/ for https://example.org/notes/; / redirects there), as on its host, so links and the 404 page of each edition work as they will there.
    """
    one_blas_thread()  # before anything imports numpy
    # lazy: 330 ms (importtime, beside papernotes.cli.site): `--help` does not load it
    from papernotes.site.serve import DevServer, default_site_dir, wait_forever

    site = output or default_site_dir(corpus)
    if not 0 <= port <= MAX_PORT:
        error(f"--port {port}: a port is a number from 0 to {MAX_PORT} (0 picks any free port)")
        raise typer.Exit(2)
    if port and not can_listen(port):  # before the build, which would be for nothing
        error(f"cannot listen on 127.0.0.1:{port}: {busy(port)}")
        raise typer.Exit(1)

    def on_build(result) -> None:  # type: ignore[no-untyped-def]
        report(result.diagnostics, warning_limit=20)
        if not result.up_to_date:
            out.print(f"built {notes_counted(result.notes, result.translations)} ({result.rendered} page(s)) in "
                      f"{result.seconds:.2f}s")

    def on_error(exc: Exception) -> None:
        if isinstance(exc, PapernotesError):
            failure(exc)  # its own path:line: error: lines
        else:
            error(str(exc))

    try:
        server = DevServer(corpus, site, port, on_build=on_build, on_error=on_error, on_wait=warn)
    except PapernotesError as exc:
        raise fail(exc) from None
    except OSError as exc:
        error(f"cannot listen on 127.0.0.1:{port}: {busy(port) if exc.errno == errno.EADDRINUSE else exc.strerror}")
        raise typer.Exit(1) from None
    if server.last_result is None:  # the first build failed, and said why
        server.server_close()
        raise typer.Exit(server.last_error.exit_code if isinstance(server.last_error, PapernotesError) else 1)
    server.start()
    out.print(f"serving {corpus} at [bold]{server.url}[/bold] (Ctrl+C to stop)")
    try:
        wait_forever()
    except KeyboardInterrupt:
        server.stop()


MAX_PORT = 65535


def can_listen(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:``port`` now (bound as ``http.server`` binds, then let go)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def busy(port: int) -> str:
    """``port`` is taken: say so, with the next free port to try."""
    free = next((p for p in range(port + 1, min(port + 100, MAX_PORT + 1)) if can_listen(p)), None)
    return f"port {port} is in use; try --port {free if free else '0'} (--port 0 picks any free port)"


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
    # lazy: 369 ms (importtime, beside papernotes.cli.site): `--help` does not load it
    import json

    from papernotes.check.ratings import share_lines
    from papernotes.check.run import CheckOptions, check_corpus

    options = CheckOptions(formulas=not no_formulas, classifier=not no_classifier,
                           misfile_threshold=threshold, site=site, grounding=grounding)
    try:
        diagnostics, checked = check_corpus(corpus, options)
    except PapernotesError as exc:
        raise fail(exc) from None
    errors = sum(d.is_error for d in diagnostics)
    if as_json:
        rows = [{"path": d.path, "line": d.line, "severity": d.severity.value, "code": d.code, "message": d.message}
                for d in diagnostics]
        payload = {"notes": checked.notes, "translations": checked.translations, "errors": errors, "warnings": len(diagnostics) - errors, "diagnostics": rows,
                   "ratings": [{**s._asdict(), "share": round(s.share, 4)} for s in checked.ratings]}
        if grounding:
            payload["grounding"] = _grounding_summary(corpus)
        out.print_json(json.dumps(payload, ensure_ascii=False))
    else:
        report(diagnostics, warning_limit=None)
        if grounding and (summary := _grounding_summary(corpus)):
            out.print(f"grounding: {summary['checked_notes']} note(s) checked against their paper, "
                      f"{summary['unsupported']} of {summary['numbers']} number(s) not in the paper; "
                      f"{summary['skipped']} note(s) without a PDF skipped, {len(summary['unreadable'])} PDF(s) unreadable")
        if checked.ratings:
            out.print("rated 4★ or more:\n  " + "\n  ".join(share_lines(checked.ratings)))
        out.print(f"{notes_counted(checked.notes, checked.translations)} checked: {errors} error(s), "
                  f"{len(diagnostics) - errors} warning(s)")
    if errors:
        raise typer.Exit(1)


def _grounding_summary(corpus: Path) -> dict:  # type: ignore[type-arg]
    """Per-note counts of the grounding check that just ran (saved by it under .papernotes/)."""
    # lazy: 220 ms (importtime, beside papernotes.cli.site): `--help` does not load it
    from papernotes.check.grounding_run import load_report

    return load_report(corpus.resolve()) or {}


@app.command()
def new(
    corpus: CorpusArg,
    title: Annotated[Optional[str], typer.Option(help="Paper title (asked for when missing; with --pdf, read from "
                                                     "the PDF unless given).", show_default=False)] = None,
    venue: Annotated[Optional[str], typer.Option(help="Venue id, e.g. ICML2026 (asked for when missing; with --pdf, "
                                                     "the venue the PDF prints unless given).",
                                                 show_default=False)] = None,
    domain: Annotated[Optional[str], typer.Option(help="Domain slug, e.g. optimization (asked for when missing).",
                                                  show_default=False)] = None,
    lang: Annotated[str, typer.Option(help="Language of the section headings: zh or en.")] = "zh",
    slug: Annotated[str, typer.Option(help="File name without .md (default: from the title).")] = "",
    arxiv: Annotated[str, typer.Option(help="arXiv id or URL.")] = "",
    code: Annotated[str, typer.Option(help="Code repository URL.")] = "",
    author: Annotated[Optional[list[str]], typer.Option(
        help="An author's name; repeat for each (with --pdf: the PDF's authors unless given).")] = None,
    abstract: Annotated[str, typer.Option(help="The paper's abstract (with --pdf: the PDF's unless given).")] = "",
    pdf: Annotated[Optional[Path], typer.Option(
        "--pdf", dir_okay=False,
        help="The paper's PDF: title, authors, abstract, arXiv id and venue from its first page unless given; "
             "copied beside the note (SLUG.md ↔ SLUG.pdf).")] = None,
) -> None:
    """Scaffold a note (front matter and every canonical section) at CORPUS/VENUE/DOMAIN/SLUG.md.

    The venue and domain must be in the taxonomy (a typo gets the closest names); nothing is written when an input is wrong (exit status 2), or when the --pdf cannot be read (exit status 1).
    """
    # lazy: 269 ms (importtime, beside papernotes.cli.site): `--help` does not load it
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.intake.paper import PaperError
    from papernotes.intake.scaffold import NewNote, ScaffoldError, create_note, from_pdf

    if pdf is None:
        title = title if title is not None else typer.prompt("Title")
        venue = venue if venue is not None else typer.prompt("Venue")
    domain = domain if domain is not None else typer.prompt("Domain")
    try:
        config, _ = load_config(corpus)
        taxonomy = load_site_taxonomy(corpus, config)
        spec = NewNote(title or "", venue or "", domain, lang, slug, arxiv, code, tuple(author or ()), abstract)
        if pdf is not None:
            spec = from_pdf(corpus, spec, pdf, taxonomy)
        path = create_note(corpus, spec, taxonomy)
    except ScaffoldError as exc:
        for problem in exc.problems:
            error(problem)
        raise typer.Exit(exc.exit_code) from None
    except PaperError as exc:  # a PDF that cannot be read: one error naming it, exit status 1
        sys.stderr.write(f"{exc.path}: error: {exc.reason}\n")
        raise typer.Exit(exc.exit_code) from None
    except PapernotesError as exc:
        raise fail(exc) from None
    if spec.review:
        sys.stderr.write(f"{pdf}: warning: {spec.review}; the note is marked for review\n")
    pdf_note = f" and {path.with_suffix('.pdf')}" if pdf is not None else ""
    out.print(f"created {path}{pdf_note}")

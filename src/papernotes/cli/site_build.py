"""The ``papernotes build`` command, free of typer and rich: its options (``OPTIONS``, ``HELP``) and ``run``.

Both readers of a ``build`` argument list take the options from here: ``cli.site``
registers the typer command made from them, and ``cli.entry`` reads a plain
argument list with them, without typer; both call ``run``. At 50,000 notes an
up-to-date build is then a scan of the corpus and little else.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

from papernotes.cli.output import error, failure, notes_counted, report, say, warn
from papernotes.errors import Diagnostic, PapernotesError
from papernotes.forks import one_blas_thread


@dataclass(frozen=True)
class BuildOption:
    """One option of ``papernotes build``: a keyword of ``run``, the names that set it, its default and help."""

    name: str
    flags: tuple[str, ...]
    """The names that set it (a boolean's set it to True)."""
    default: Path | bool | int
    """Its default, whose type is the option's type."""
    help: str
    off: tuple[str, ...] = ()
    """For a boolean, the names that set it back to False."""

    def declarations(self) -> tuple[str, ...]:
        """The names as typer (click) declares them."""
        return (f"{self.flags[0]}/{self.off[0]}",) if self.off else self.flags


OPTIONS = (
    BuildOption("output", ("-o", "--output"), Path("site"), "Site directory to (re)build."),
    BuildOption("strict", ("--strict",), False, "Fail, writing nothing, if any note has an error.", off=("--no-strict",)),
    BuildOption("jobs", ("-j", "--jobs"), 0, "Worker processes (default: all cores)."),
    BuildOption("no_cache", ("--no-cache",), False, "Ignore and do not update the build cache."),
    BuildOption("quiet", ("-q", "--quiet"), False, "Only print errors."),
)

HELP = """Build the static site. Only pages whose inputs changed are re-rendered.

    A note with errors is reported and left out (exit status 0; --strict fails instead). A corpus without a note to publish is an error (exit status 1).
    """


def run(corpus: Path, *, output: Path, strict: bool, jobs: int, no_cache: bool, quiet: bool) -> int:
    """Build ``corpus`` into ``output`` and print what happened; the exit status (``OPTIONS`` says the rest)."""

    one_blas_thread()  # before anything imports numpy

    # Many small acyclic records are allocated (from the scan on): fewer, cheaper collections (imports frozen
    # out of them).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    found = _scan(corpus)  # which loads these two modules while the scan's child finishes
    # lazy: 54 ms (importtime, beside papernotes.cli.site_build): `--help` does not load the builder
    from papernotes.cli.progress import progress_bar
    from papernotes.site.build import build

    gc.freeze()
    if found is not None and found.empty:
        error(f"no notes in {corpus}: a note is a Markdown file with YAML front matter; start with "
              f"`papernotes new {corpus}` or `papernotes ingest SOURCE … {corpus}`; nothing was built")
        return 1
    try:
        with progress_bar(disable=quiet) as progress:
            result = build(corpus, output, strict=strict, workers=jobs or None, progress=progress,
                           use_cache=not no_cache, found=found)
    except PapernotesError as exc:
        return failure(exc)
    report(result.diagnostics if not quiet else result.errors)
    if not quiet:
        state = "up to date" if result.up_to_date else f"{result.rendered} page(s) rendered, {result.removed} removed"
        say(f"{notes_counted(result.notes, result.translations)} → {result.pages} pages in {output} ({state}) "
            f"in {result.seconds:.2f}s")
    if result.notes == 0 and not result.up_to_date:
        error(f"no note of {corpus} can be published: {_unpublished(corpus, result.diagnostics)}")
        return 1
    skipped = len({d.path for d in result.errors})
    if skipped:
        warn(f"{skipped} note(s) skipped because of errors")
    return 0


def _scan(corpus: Path):  # type: ignore[no-untyped-def]
    """The corpus' note files, scanned once for the check above and the build; None if unreadable."""
    # lazy: 13 ms (importtime, beside papernotes.cli.site_build): `--help` does not load the scan
    from papernotes.corpus.scan import scan_corpus

    if not corpus.is_dir():
        return None

    def meanwhile() -> None:  # what the build needs, loaded while the scan's child walks its share
        # lazy: 35 ms (importtime, beside papernotes.cli.site_build): loaded while the scan runs, not before
        import papernotes.cli.progress
        import papernotes.site.build  # noqa: F401

    try:
        return scan_corpus(corpus, meanwhile)
    except PapernotesError:
        return None  # the build reports what it cannot read


def _unpublished(corpus: Path, diagnostics: list[Diagnostic]) -> str:
    """Why no note made it to the site: notes with errors, stubs without a domain."""
    failed = len({d.path for d in diagnostics if d.is_error})
    unfiled = len({d.path for d in diagnostics if d.code == "unfiled-stub"})
    reasons = []
    if failed:
        reasons.append(f"{failed} note(s) with errors (listed above)")
    if unfiled:
        reasons.append(f"{unfiled} stub(s) without a domain (`papernotes classify {corpus} --apply` files them)")
    return "; ".join(reasons) or "no note has a title, venue and domain"

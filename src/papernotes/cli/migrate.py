"""CLI for the import stage: ``papernotes import-mkdocs DOCS DEST``.

Thin: reads options, calls ``migrate_tree.import_tree`` and prints its report. Wired into
the main app with ``@app.command``; stage imports are lazy so ``--help`` stays instant.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from papernotes.cli.common import app, err, fail, out


@app.command("import-mkdocs")
def import_mkdocs(
    docs: Annotated[Path, typer.Argument(help="MkDocs docs directory holding {VENUE}/{domain}/{slug}.md notes.",
                                         file_okay=False)],
    dest: Annotated[Path, typer.Argument(help="Corpus directory to create or update.", file_okay=False)],
    force: Annotated[bool, typer.Option("--force", help="Overwrite notes edited in DEST since the last import.")] = False,
    translation: Annotated[Optional[str], typer.Option(
        "--translation", metavar="LANG=DIR", help="The same notes in another language, a tree with the same "
        "{VENUE}/{domain}/{slug}.md paths (e.g. en=../Paper-Notes-en/docs): each becomes the translation "
        "foo.en.md of foo.md; a note only one tree has is imported alone and reported.")] = None,
    jobs: Annotated[int, typer.Option("-j", "--jobs", help="Worker processes (default: all cores).")] = 0,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Also list info lines (unknown labels, "
                                                                  "values without a link…).")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only print errors.")] = False,
) -> None:
    """Import a MkDocs "Paper-Notes" tree into a papernotes corpus.

    Each note gets YAML front matter made from its title and metadata lines; its body is copied verbatim. Re-running rewrites only notes whose source changed, and never a note edited in DEST since the last import (unless --force). The full report is saved as DEST/.papernotes/import-report.json.
    """
    # lazy: 120 ms (importtime, beside papernotes.cli.migrate): `--help` does not load it
    from rich.markup import escape

    from papernotes.layout import CACHE_DIR
    from papernotes.errors import PapernotesError
    from papernotes.migrate.convert import REPORT
    from papernotes.migrate.tree import Twin, import_tree

    twin = None
    if translation is not None:
        lang, _, folder = translation.partition("=")
        if lang not in ("zh", "en") or not folder:
            raise typer.BadParameter("expected LANG=DIR with LANG zh or en, e.g. en=../Paper-Notes-en/docs",
                                     param_hint="--translation")
        twin = Twin(lang, Path(folder))
    try:
        result = import_tree(docs, dest, force=force, workers=jobs or None, twin=twin)
    except PapernotesError as exc:
        raise fail(exc) from None
    levels = Counter(result.level(d) for d in result.diagnostics)
    shown = [d for d in result.diagnostics if (result.level(d) == "error" if quiet else
                                               verbose or result.level(d) != "info")]
    styles = {"error": "red", "warning": "yellow", "info": "dim"}
    for d in sorted(shown, key=lambda d: (result.level(d) != "error", d.path, d.line)):
        style = styles[result.level(d)]
        err.print(f"[{style}]{escape(result.line(d))}[/{style}]", soft_wrap=True)
    if not quiet:
        hidden = "" if verbose or not levels["info"] else " (-v lists them)"
        kept = f" ({result.kept} edited in DEST, kept)" if result.kept else ""
        also = f" (+{result.twin_notes} in the {result.twin_lang} twin)" if result.twin_lang else ""
        out.print(f"{result.notes} notes{also}: {result.imported} imported, {result.unchanged} unchanged{kept}, "
                  f"{result.conflicts} conflicts, {result.skipped} files skipped in {result.seconds:.2f}s; "
                  f"{levels['error']} errors, {levels['warning']} warnings, {levels['info']} info{hidden}",
                  highlight=False, markup=False)
        if result.twin_lang:
            out.print(f"{result.twin_lang} twin: {result.translations} translations, {result.twin_only} only in the "
                      f"twin (imported as originals), {result.untranslated} DOCS note(s) without a translation",
                      highlight=False, markup=False)
        out.print(f"report: {escape(str(result.dest / CACHE_DIR / REPORT))}", highlight=False)
    if result.errors:
        raise typer.Exit(1)

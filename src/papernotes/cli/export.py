"""CLI: ``papernotes export CORPUS --format bibtex|csl-json [-o FILE]``, the citations of the corpus's papers.

Reads the corpus as ``check`` does (config, the site's taxonomy, every note resolved) and writes one
citation per original note, in site order (newest venue first), keys unique: the same entries as the
site's ``bib/all.bib`` (``papernotes/cite.py`` writes both). To stdout, or atomically to FILE.
"""
from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from papernotes.cli.common import CorpusArg, app, fail, out
from papernotes.cli.output import error, report
from papernotes.errors import CorpusError, PapernotesError


class Format(str, Enum):
    bibtex = "bibtex"
    csl_json = "csl-json"


@app.command()
def export(
    corpus: CorpusArg,
    format: Annotated[Format, typer.Option("--format", "-f", help="bibtex (a .bib file, UTF-8, for BibTeX and "
                                           "biblatex) or csl-json (for Zotero, Pandoc and citeproc).")] = Format.bibtex,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", dir_okay=False,
                                                   help="File to write (atomically); default: standard output.")] = None,
) -> None:
    """Write a citation of every note's paper: title, authors, venue and year, arXiv id.

    Notes with errors are left out and reported (`papernotes check` says more); the command then exits with status 1 after writing the others.
    """
    # lazy: 255 ms (importtime, beside papernotes.cli.export): `--help` does not load them
    from papernotes.cache import BuildCache
    from papernotes.cite import FORMATS, citations
    from papernotes.config import load_config, load_site_taxonomy
    from papernotes.corpus.load import load_corpus
    from papernotes.disk import atomic_write
    from papernotes.site.resolve import resolve

    try:
        if not corpus.is_dir():
            raise CorpusError(f"{corpus}: corpus directory not found")
        config, _ = load_config(corpus)
        taxonomy = load_site_taxonomy(corpus, config)
        loaded = load_corpus(corpus.resolve(), BuildCache(None))
        entries, problems = resolve(loaded.notes, loaded.diagnostics, taxonomy)
    except PapernotesError as exc:
        raise fail(exc) from None
    errors = [d for d in (*loaded.diagnostics, *problems) if d.is_error]
    found = citations(sorted(entries, key=lambda e: e.order))
    text = FORMATS[format.value](found)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            atomic_write(output, text)
        except OSError as exc:
            report(errors, warning_limit=0)
            error(f"cannot write {output}: {exc.strerror or exc}")
            raise typer.Exit(1) from None
    report(errors, warning_limit=0)
    if output is not None:
        left = len({d.path for d in errors})
        out.print(f"wrote {len(found)} citation(s) to {output}" + (f"; {left} note(s) with errors left out"
                                                                    if left else ""))
    if errors:
        raise typer.Exit(1)

"""Ingest sources: where the metadata of new papers comes from.

Input: a source name, its arguments (a venue id, arXiv ids, file paths...) or a
saved response file. Output: a ``SourceResult`` of ``Paper`` records plus
diagnostics for entries that could not be read. Sources never touch the notes (one
that reads PDFs may fill the corpus's paper cache, ``SourceRequest.cache``);
``papernotes.intake.ingest`` dedupes the papers and writes stub notes.

Every source is a module named after it that declares ``SOURCE = Source(name,
load, help)``; the ``SOURCES`` registry finds them, so a new source is one module
plus its test. Modules import their dependencies (``arxiv``, ``bibtexparser``)
inside ``load``, so listing the sources costs nothing.
"""
from __future__ import annotations

import json as jsonlib  # not `json`: the `json` source module becomes this package's attribute
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papernotes.errors import Diagnostic, PapernotesError
from papernotes.registry import Registry, UnknownName

MAX_FIELD_CHARS = 20_000
"""Longest text field (title, abstract, a CSV cell…) a source reads; longer ones are reported with their line and
the record skipped. Abstracts run to 2,000 characters (arXiv's limit is 1,920); a note's front matter may hold 64 KB."""

_GITHUB = re.compile(r"https?://(?:www\.)?github\.com/[\w.-]+/[\w.-]+?(?=[.,;:)\]]*(?:\s|$))")


class SourceError(PapernotesError):
    """A source cannot be read at all (network failure, missing or unreadable file)."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class Paper:
    """Metadata of one paper as a source reports it."""

    title: str
    authors: tuple[str, ...] = ()
    abstract: str = ""
    venue: str = ""
    """Venue id such as ``ICLR2024``; ``""`` until resolved from ``venue_hints`` or ``--venue``."""
    venue_hints: tuple[str, ...] = ()
    """Venue texts from the source, most specific first (``ICLR.cc/2024/Conference``, ``ICLR 2024 oral``)."""
    year: int | None = None
    arxiv: str = ""
    """arXiv id without version, e.g. ``2106.09685``."""
    links: tuple[tuple[str, str], ...] = ()
    """``(kind, url)`` with kinds ``openreview``, ``pdf``, ``code`` (arXiv is ``arxiv``)."""
    keywords: tuple[str, ...] = ()
    """Author keywords, when the source has them."""
    origin: tuple[str, ...] = ()
    """Where the record came from (``openreview:VTF8yNQM66``, ``refs.bib:12``), for messages."""
    pdf: Path | None = None
    """A local copy of the paper, which ingest files beside its note (``VENUE/slug.md`` ↔ ``VENUE/slug.pdf``)."""
    review: str = ""
    """Why a person should look at the note (a PDF's title from its metadata, no author names); ``""`` if none.
    Written as the stub's ``review:`` key, which ``check`` lists."""

    def keys(self) -> tuple[str, ...]:
        """Identity keys for dedupe: arXiv id, OpenReview forum and normalised title."""
        keys = []
        if self.arxiv:
            keys.append(f"arxiv:{self.arxiv}")
        for kind, url in self.links:
            if kind == "openreview" and (m := re.search(r"[?&]id=([\w-]+)", url)):
                keys.append(f"openreview:{m.group(1)}")
        if title := title_key(self.title):
            keys.append(f"title:{title}")
        return tuple(keys)


@dataclass(frozen=True, slots=True)
class SourceRequest:
    """What the user asked a source for."""

    args: tuple[str, ...]
    """Positional arguments after the source name (venue id, arXiv ids or query words, files)."""
    from_file: Path | None = None
    """A saved response (OpenReview notes JSON, arXiv Atom XML, .bib, .csv, .json) instead of the network."""
    api_url: str | None = None
    """Override of the network endpoint (mirrors, tests)."""
    max_results: int = 200
    """Upper bound for open-ended queries (arXiv search)."""
    kind: str = ""
    """The source name as typed (``csv`` and ``json`` share their reader)."""
    cache: Path | None = None
    """Where a source that reads PDFs keeps what it read (the corpus's paper cache); ``None``: nowhere."""


@dataclass(frozen=True, slots=True)
class SourceResult:
    papers: tuple[Paper, ...]
    diagnostics: tuple[Diagnostic, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Source:
    """One way of reading paper metadata, as the ``ingest`` command names it."""

    name: str
    """The ``SOURCE`` argument of ``papernotes ingest``."""
    load: Callable[[SourceRequest], SourceResult]
    """Reads the papers the request asks for; raises ``SourceError`` when it cannot read at all."""
    help: str
    """What the source's arguments are, for ``--help``."""
    venue_printed: bool = False
    """The papers say their own venue (a PDF prints it): it wins over ``--venue``, which fills in where none is."""


SOURCES: Registry[Source] = Registry("source", __name__, "SOURCE")
"""Every source, from the ``SOURCE`` attribute of the modules of this package."""


def load_source(name: str, request: SourceRequest) -> SourceResult:
    """Run the named source; unknown names raise ``SourceError``."""
    try:
        source = SOURCES.get(name)
    except UnknownName as exc:
        raise SourceError(str(exc)) from None
    return source.load(request)


# ---------------------------------------------------------------- helpers shared by sources

def title_key(title: str) -> str:
    """Title for duplicate detection: NFKC, case-folded, letters and digits only."""
    text = unicodedata.normalize("NFKC", title).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def clean_text(value: object) -> str:
    """Collapse whitespace (arXiv and BibTeX wrap long fields)."""
    if not isinstance(value, str):
        return ""
    return re.sub(r"\s+", " ", value).strip()


def code_link(*texts: str) -> str:
    """The first GitHub repository URL mentioned in ``texts`` (abstracts often end with one)."""
    for text in texts:
        if m := _GITHUB.search(text or ""):
            return m.group(0).rstrip(".")
    return ""


def arxiv_id(value: str) -> str:
    """arXiv id without version from an id, ``arXiv:`` reference or abs/pdf URL; ``""`` if none."""
    value = (value or "").strip()
    if not value:
        return ""
    # lazy: 105 ms (importtime, beside papernotes.intake.sources): only the source that reads notes or PDFs loads it
    from papernotes.corpus.parse import arxiv_id_of

    m = re.search(r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", value)
    return arxiv_id_of(m.group(0)) if m else ""


def parse_json(text: str, where: str) -> Any:
    try:
        return jsonlib.loads(text)
    except jsonlib.JSONDecodeError as exc:
        raise SourceError(f"{where}:{exc.lineno}: invalid JSON: {exc.msg}") from None


def read_text(path: Path) -> str:
    """A source file's text; unreadable files stop the command."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SourceError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path}: cannot read: {exc}") from None

"""BibTeX source: one paper per entry of a ``.bib`` file (bibtexparser 2.x API).

LaTeX in fields is decoded (``{\\"u}`` -> ``ü``, ``Lo{RA}`` -> ``LoRA``; math kept
verbatim; ``%`` is a comment to the end of its line, as in LaTeX, and a warning
names the line when that drops text), author lists are split and written
first-name first. The venue comes from ``booktitle``/``journal`` plus ``year``;
the arXiv id from ``eprint`` (with ``archivePrefix = arXiv``), an arXiv
``url``/``doi`` or an ``arXiv:`` journal. Entries bibtexparser cannot parse, and
entries with a field over ``MAX_FIELD_CHARS``, are reported with their line and
skipped.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

from papernotes.errors import Diagnostic, error, warning
from papernotes.extras import require
from papernotes.intake.sources import (
    Paper,
    Source,
    SourceError,
    SourceRequest,
    SourceResult,
    MAX_FIELD_CHARS,
    arxiv_id,
    clean_text,
    code_link,
    read_text,
)


def load(request: SourceRequest) -> SourceResult:
    files = [Path(a) for a in request.args] + ([request.from_file] if request.from_file else [])
    if not files:
        raise SourceError("bibtex needs a .bib file")
    papers: list[Paper] = []
    problems: list[Diagnostic] = []
    for path in files:
        result = parse_bibtex(read_text(path), str(path))
        papers.extend(result.papers)
        problems.extend(result.diagnostics)
    return SourceResult(tuple(papers), tuple(problems))


def _links(fields: dict[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``(arxiv id, links)`` from eprint/url/doi/journal and code/pdf fields."""
    aid = ""
    if fields.get("archiveprefix", "arxiv").casefold() == "arxiv" and fields.get("eprint"):
        aid = arxiv_id(fields["eprint"])
    links: list[tuple[str, str]] = []
    for key in ("url", "pdf", "code", "openreview", "doi", "journal", "note"):
        value = fields.get(key, "")
        if not value:
            continue
        if "arxiv" in value.casefold() and not aid:
            aid = arxiv_id(value)
        if key in ("doi", "journal", "note"):
            continue
        kinds = dict(links)
        if "openreview.net" in value and "openreview" not in kinds:
            links.append(("openreview", value))
        elif (key == "code" or "github.com" in value) and "code" not in kinds:
            links.append(("code", value))
        elif (key == "pdf" or value.casefold().endswith(".pdf")) and "pdf" not in kinds and "arxiv.org" not in value:
            links.append(("pdf", value))
    if "code" not in dict(links) and (code := code_link(fields.get("abstract", ""), fields.get("note", ""))):
        links.append(("code", code))
    return aid, tuple(links)


def parse_bibtex(text: str, where: str) -> SourceResult:
    """Papers of one ``.bib`` text; ``where`` names it in diagnostics.

    The text is split into entries first (fast), then entries with a field over
    ``MAX_FIELD_CHARS`` are reported and dropped, unescaped ``%`` that cut text
    are reported, and only then is LaTeX decoded (pylatexenc, which slows down
    badly on long runs of text without spaces: a 5 MB field took 7 minutes).
    """
    bibtexparser = require("bibtexparser", "ingest bibtex")
    from bibtexparser import middlewares as mw
    from bibtexparser.model import DuplicateBlockKeyBlock

    log = logging.getLogger("bibtexparser")
    level = log.level
    log.setLevel(logging.ERROR)  # failed blocks are reported below, with their line
    try:
        library = bibtexparser.parse_string(text)
    finally:
        log.setLevel(level)
    problems: list[Diagnostic] = []
    for block in library.failed_blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, DuplicateBlockKeyBlock):
            problems.append(warning(where, line, f"duplicate entry key {block.key!r}; the entry is read once",
                                    "source"))
        else:
            reason = getattr(block.error, "abort_reason", "") or str(block.error) or "syntax error"
            problems.append(error(where, line, f"cannot parse BibTeX entry: {reason}", "source"))
    oversized = [entry for entry in library.entries if _too_long(entry, where, problems)]
    if oversized:
        library.remove(oversized)
    for entry in library.entries:
        problems.extend(_comments(entry, where))
    for middleware in (mw.LatexDecodingMiddleware(), mw.SeparateCoAuthors(), mw.SplitNameParts(),
                       mw.MergeNameParts("first")):
        library = middleware.transform(library)
    papers: list[Paper] = []
    for entry in library.entries:
        line = (entry.start_line or 0) + 1
        fields = {f.key.casefold(): _field_text(f.value) for f in entry.fields if f.key.casefold() != "author"}
        authors: list[object] = next((f.value for f in entry.fields if f.key.casefold() == "author"), [])
        title = clean_text(fields.get("title", "")).strip("{} ")
        if not title:
            problems.append(error(where, line, f"entry {entry.key!r} has no title; skipped", "source"))
            continue
        year_text = re.search(r"(?:19|20)\d{2}", fields.get("year", ""))
        aid, links = _links(fields)
        keywords = [k.strip() for k in re.split(r"[;,]", fields.get("keywords", "")) if k.strip()]
        papers.append(Paper(
            title=title,
            authors=tuple(clean_text(a) for a in authors
                          if isinstance(a, str) and clean_text(a) and a.strip().casefold() != "others"),
            abstract=clean_text(fields.get("abstract", "")),
            venue_hints=tuple(fields[k] for k in ("booktitle", "journal", "venue", "note") if fields.get(k)),
            year=int(year_text.group(0)) if year_text else None,
            arxiv=aid,
            links=links,
            keywords=tuple(keywords),
            origin=(f"{where}:{line}",),
        ))
    return SourceResult(tuple(papers), tuple(problems))


def _field_line(field: object, entry: object, offset: int = 0) -> int:
    """1-based line of a field (of the character ``offset`` into its value), else of its entry."""
    start = getattr(field, "start_line", None)
    if start is None:
        start = getattr(entry, "start_line", None) or 0
    return start + 1 + offset


def _too_long(entry: object, where: str, problems: list[Diagnostic]) -> bool:
    """Report and tell whether a field of ``entry`` is longer than ``MAX_FIELD_CHARS``."""
    for field in entry.fields:  # type: ignore[attr-defined]
        if isinstance(field.value, str) and len(field.value) > MAX_FIELD_CHARS:
            problems.append(error(where, _field_line(field, entry),
                                  f"field `{field.key}` of entry {entry.key!r} is {len(field.value):,} characters "  # type: ignore[attr-defined]
                                  f"long; at most {MAX_FIELD_CHARS:,} are read: entry skipped", "too-long"))
            return True
    return False


_PERCENT = re.compile(r"(\\*)%")


def _comments(entry: object, where: str) -> list[Diagnostic]:
    """A warning for each unescaped ``%`` that cuts text out of a field: LaTeX reads it as a comment to the end of
    the line (``\\%`` is a percent sign)."""
    found = []
    for field in entry.fields:  # type: ignore[attr-defined]
        value = field.value
        if not isinstance(value, str) or "%" not in value:
            continue
        for m in _PERCENT.finditer(value):
            if len(m.group(1)) % 2:
                continue  # \% (an odd number of backslashes): an escaped percent sign
            end = value.find("\n", m.end())
            dropped = " ".join(value[m.end():end if end >= 0 else len(value)].split())
            if not dropped:
                continue  # a comment at the end of a line, as LaTeX sources use them
            shown = dropped if len(dropped) <= 40 else dropped[:40] + "…"
            line = _field_line(field, entry, value.count("\n", 0, m.start()))
            found.append(warning(where, line, f"`%` starts a LaTeX comment in `{field.key}`: the rest of the line "
                                 f"is dropped ({shown!r}); write \\% for a percent sign", "latex-comment"))
    return found


def _field_text(value: object) -> str:
    if isinstance(value, list):
        value = " ".join(map(str, value))
    return clean_text(value)


SOURCE = Source("bibtex", load, ".bib files")

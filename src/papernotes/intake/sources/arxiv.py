"""arXiv source: papers by id or search query, through the ``arxiv`` package or a saved Atom feed.

Arguments that all look like arXiv ids (``2106.09685``, ``arXiv:2305.14314v1``,
abs/pdf URLs) are looked up by id; anything else is joined into one search
query (arXiv syntax: ``ti:"low-rank adaptation" AND cat:cs.CL``). A saved
response is the Atom XML the API returns (``export.arxiv.org/api/query?...``),
read with the standard library so offline use needs no network client. The
venue comes from ``arxiv:journal_ref`` or an "accepted at ..." comment when
the authors gave one; otherwise ``--venue`` must say it.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from papernotes.errors import Diagnostic, error
from papernotes.extras import require
from papernotes.intake.sources import (
    Paper,
    Source,
    SourceError,
    SourceRequest,
    SourceResult,
    arxiv_id,
    clean_text,
    code_link,
    read_text,
)

_NS = {"atom": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}
_ACCEPTED = re.compile(r"(?:accepted|published|to appear|appear(?:s|ed)?)\s+(?:at|in|to|by)\s+(?:the\s+)?([^.;,]+)",
                       re.I)


def load(request: SourceRequest) -> SourceResult:
    if request.from_file is not None:
        if request.args:
            raise SourceError("arxiv: give ids/a query or --from-file, not both")
        return parse_feed(read_text(request.from_file), str(request.from_file))
    if not request.args:
        raise SourceError("arxiv needs ids (2106.09685 ...) or a query (ti:diffusion AND cat:cs.LG), or --from-file")
    return fetch(request.args, request.max_results, request.api_url)


def _hints(journal_ref: str, comment: str) -> tuple[str, ...]:
    hints = [journal_ref] if journal_ref else []
    if m := _ACCEPTED.search(comment):
        hints.append(m.group(1))
    return tuple(hints)


def _paper(entry_id: str, title: str, summary: str, authors: list[str], journal_ref: str, comment: str,
           pdf: str, year: int | None) -> Paper:
    aid = arxiv_id(entry_id)
    abstract = clean_text(summary)
    links = [("pdf", re.sub(r"^http://", "https://", pdf))] if pdf else []
    if code := code_link(abstract, comment):
        links.append(("code", code))
    return Paper(
        title=clean_text(title),
        authors=tuple(clean_text(a) for a in authors if clean_text(a)),
        abstract=abstract,
        venue_hints=_hints(clean_text(journal_ref), clean_text(comment)),
        year=year,
        arxiv=aid,
        links=tuple(links),
        origin=(f"arxiv:{aid}",),
    )


def parse_feed(text: str, where: str) -> SourceResult:
    """Papers of an arXiv API Atom response."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SourceError(f"{where}:{exc.position[0]}: invalid Atom XML: {exc}") from None
    papers: list[Paper] = []
    problems: list[Diagnostic] = []

    def text_of(elem: Any, path: str) -> str:
        found = elem.find(path, _NS)
        return found.text or "" if found is not None else ""

    for index, entry in enumerate(root.iterfind("atom:entry", _NS)):
        entry_id, title = text_of(entry, "atom:id"), text_of(entry, "atom:title")
        if "/api/errors" in entry_id or not arxiv_id(entry_id) or not clean_text(title):
            problems.append(error(where, 0, f"entry #{index + 1} ({entry_id or 'no id'}) is not a paper: "
                                  f"{clean_text(text_of(entry, 'atom:summary'))[:120]}", "source"))
            continue
        pdf = next((link.get("href", "") for link in entry.iterfind("atom:link", _NS)
                    if link.get("title") == "pdf" or link.get("type") == "application/pdf"), "")
        published = text_of(entry, "atom:published")
        papers.append(_paper(
            entry_id, title, text_of(entry, "atom:summary"),
            [text_of(a, "atom:name") for a in entry.iterfind("atom:author", _NS)],
            text_of(entry, "arxiv:journal_ref"), text_of(entry, "arxiv:comment"), pdf,
            int(published[:4]) if published[:4].isdigit() else None,
        ))
    return SourceResult(tuple(papers), tuple(problems))


def fetch(args: tuple[str, ...], max_results: int, api_url: str | None) -> SourceResult:
    """Query the arXiv API with the ``arxiv`` package (it paces requests as arXiv's terms ask)."""
    arxiv = require("arxiv", "ingest arxiv")  # heavy-ish (requests, lxml); only for network use

    ids = [arxiv_id(a) for a in args]
    if all(ids):
        search = arxiv.Search(id_list=ids, max_results=len(ids))
    else:
        search = arxiv.Search(query=" ".join(args), max_results=max_results)
    client = arxiv.Client(page_size=min(100, max_results))
    if api_url:
        client.query_url_format = api_url.rstrip("?") + "?{}"
    papers: list[Paper] = []
    try:
        for result in client.results(search):
            papers.append(_paper(
                result.entry_id, result.title, result.summary, [a.name for a in result.authors],
                result.journal_ref or "", result.comment or "", result.pdf_url or "", result.published.year,
            ))
    except (arxiv.ArxivError, OSError) as exc:  # requests' errors derive from OSError
        raise SourceError(f"arxiv: {exc}") from None
    return SourceResult(tuple(papers))


SOURCE = Source("arxiv", load, "arXiv ids, or the words of a search query (--from-file: saved Atom XML)")

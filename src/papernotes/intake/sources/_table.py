"""What the CSV and JSON sources share: one paper per row or object.

Columns (case-insensitive): ``title`` (required), ``authors`` (a list, or one
cell separated by ``;`` or `` and ``; commas only when neither is present),
``abstract``, ``venue``, ``year``, ``arxiv``, ``openreview``, ``pdf``, ``code``,
``url`` (sorted into the right link by what it points at) and ``keywords``.
JSON is a list of objects or ``{"papers": [...]}``. Other columns are ignored
with one warning; rows without a title, or with a cell over ``MAX_FIELD_CHARS``,
are reported with their line (where the row or object starts) and skipped.
"""
from __future__ import annotations

import csv
import io
import json as jsonlib
import re
from pathlib import Path
from typing import Any

from papernotes.errors import Diagnostic, error, warning
from papernotes.intake.sources import (
    Paper,
    SourceError,
    SourceRequest,
    SourceResult,
    MAX_FIELD_CHARS,
    arxiv_id,
    clean_text,
    code_link,
    parse_json,
    read_text,
)

COLUMNS = ("title", "authors", "abstract", "venue", "year", "arxiv", "openreview", "pdf", "code", "url", "keywords")
_ALIASES = {"author": "authors", "summary": "abstract", "arxiv_id": "arxiv", "eprint": "arxiv", "link": "url",
            "keyword": "keywords", "booktitle": "venue", "conference": "venue"}


def load(request: SourceRequest) -> SourceResult:
    files = [Path(a) for a in request.args] + ([request.from_file] if request.from_file else [])
    if not files:
        raise SourceError(f"{request.kind or 'csv'} needs a file")
    papers: list[Paper] = []
    problems: list[Diagnostic] = []
    for path in files:
        text = read_text(path)
        kind = request.kind or path.suffix.lstrip(".")
        rows = _json_rows(text, str(path)) if kind == "json" else _csv_rows(text)
        result = papers_from_rows(rows, str(path))
        papers.extend(result.papers)
        problems.extend(result.diagnostics)
    return SourceResult(tuple(papers), tuple(problems))


def _csv_rows(text: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line, row)`` pairs; the line is where the row starts (cells may span lines).

    Python's csv module stops at a cell over 131,072 characters with an
    exception; the whole file is in memory already, so its limit is lifted for
    this file (and restored), and ``papers_from_rows`` holds every cell to
    ``MAX_FIELD_CHARS``, reporting the row's line.
    """
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    try:
        reader = csv.DictReader(io.StringIO(text))
        rows = []
        start = 2
        for row in reader:
            rows.append((start, {k: v for k, v in row.items() if k is not None}))
            start = reader.line_num + 1
        return rows
    finally:
        csv.field_size_limit(limit)


def _json_rows(text: str, where: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line, object)`` for each paper of a JSON list or ``{"papers": [...]}``; the line is where it starts."""
    data = parse_json(text, where)
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        data = data["papers"]
    if not isinstance(data, list):
        raise SourceError(f'{where}: expected a list of paper objects or {{"papers": [...]}}')
    lines = _item_lines(text, len(data))
    return [(line, item if isinstance(item, dict) else {}) for line, item in zip(lines, data)]


_DECODER = jsonlib.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _item_lines(text: str, count: int) -> list[int]:
    """Line of each item of the paper list of a valid JSON text (``[...]`` or ``{"papers": [...]}``), in order.

    Walks the text once with ``raw_decode``, value by value: linear, and the
    positions are the decoder's own, so no second parser can disagree. As in
    ``json.loads``, the last ``"papers"`` key of the object is the one read.
    """
    def skip(at: int) -> int:
        return _SPACE.match(text, at).end()  # type: ignore[union-attr]

    pos = skip(0)
    if text.startswith("{", pos):
        pos, papers = skip(pos + 1), pos
        while not text.startswith("}", pos):
            key, pos = _DECODER.raw_decode(text, pos)
            pos = skip(skip(pos) + 1)  # the ':'
            value, end = _DECODER.raw_decode(text, pos)
            if key == "papers" and isinstance(value, list):
                papers = pos
            pos = skip(end)
            pos = skip(pos + 1) if text.startswith(",", pos) else pos
        pos = papers
    starts = []
    pos += 1  # the '['
    for _ in range(count):
        pos = skip(pos)
        starts.append(pos)
        _, pos = _DECODER.raw_decode(text, pos)
        pos = skip(pos) + 1  # the ',' or ']'
    lines, line, last = [], 1, 0
    for start in starts:
        line += text.count("\n", last, start)
        last = start
        lines.append(line)
    return lines


def _split_authors(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(clean_text(a) for a in value if clean_text(a))
    text = clean_text(value)
    if not text:
        return ()
    parts = text.split(";") if ";" in text else re.split(r"\s+and\s+", text) if " and " in text else text.split(",")
    return tuple(p.strip() for p in parts if p.strip())


def _link_kind(url: str) -> str:
    low = url.casefold()
    if "arxiv.org" in low:
        return "arxiv"
    if "openreview.net" in low:
        return "openreview"
    if "github.com" in low or "gitlab.com" in low:
        return "code"
    return "pdf" if low.endswith(".pdf") else ""


def papers_from_rows(rows: list[tuple[int, dict[str, Any]]], where: str) -> SourceResult:
    papers: list[Paper] = []
    problems: list[Diagnostic] = []
    unknown: set[str] = set()
    for index, (line, raw) in enumerate(rows):
        row: dict[str, Any] = {}
        for key, value in raw.items():
            name = _ALIASES.get(str(key).strip().casefold(), str(key).strip().casefold())
            if name in COLUMNS:
                row[name] = value
            elif name:
                unknown.add(str(key))
        label = f"row {index + 1}"
        title = clean_text(row.get("title"))
        if not title:
            problems.append(error(where, line, f"{label} has no title; skipped", "source"))
            continue
        long = next((k for k, v in row.items() if isinstance(v, str) and len(v) > MAX_FIELD_CHARS), None)
        if long is not None:
            problems.append(error(where, line, f"{label}: `{long}` is {len(row[long]):,} characters long; at most "
                                  f"{MAX_FIELD_CHARS:,} are read: row skipped", "too-long"))
            continue
        links: dict[str, str] = {}
        aid = arxiv_id(clean_text(row.get("arxiv")))
        for kind in ("openreview", "pdf", "code"):
            if value := clean_text(row.get(kind)):
                links[kind] = value
        if (url := clean_text(row.get("url"))) and (kind := _link_kind(url)):
            if kind == "arxiv":
                aid = aid or arxiv_id(url)
            else:
                links.setdefault(kind, url)
        abstract = clean_text(row.get("abstract"))
        if "code" not in links and (code := code_link(abstract)):
            links["code"] = code
        year = re.search(r"(?:19|20)\d{2}", str(row.get("year") or ""))
        keywords = row.get("keywords")
        papers.append(Paper(
            title=title,
            authors=_split_authors(row.get("authors")),
            abstract=abstract,
            venue_hints=(clean_text(row["venue"]),) if clean_text(row.get("venue")) else (),
            year=int(year.group(0)) if year else None,
            arxiv=aid,
            links=tuple(links.items()),
            keywords=tuple(clean_text(k) for k in keywords if clean_text(k)) if isinstance(keywords, list)
            else tuple(k.strip() for k in re.split(r"[;,]", clean_text(keywords)) if k.strip()),
            origin=(f"{where}:{line}",),
        ))
    if unknown:
        problems.append(warning(where, 1 if rows and rows[0][0] else 0,
                                f"ignored columns: {', '.join(sorted(unknown))} (known: {', '.join(COLUMNS)})",
                                "source"))
    return SourceResult(tuple(papers), tuple(problems))

"""Search stage, the document side: what results show and what facets filter on.

In: entries in document order (the site order). Out: the document files
``search/d/N.json`` (title, summary and URL of ``CHUNK`` documents each, and the
URLs of a document's duplicates; fetched only for the results shown), and
``Facets``, the manifest's entry-dependent part: venues and domains with labels,
the document-id ranges of each venue × domain cell (the site order keeps them
contiguous), topics with counts, and groups of documents about one paper (same
arXiv id or same normalised title).
"""
from __future__ import annotations

import html
import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from papernotes.corpus.model import Entry
from papernotes.site.plan import domain_label, venue_label
from papernotes.site.search.tokenize import IMPACT_HI, IMPACT_LO, plain
from papernotes.text import normalise_title

CHUNK = 8
"""Documents per ``search/d/N.json`` file (the first ten results fetch up to ten of them)."""
SUMMARY_CHARS = 280
VERSION = 3

_MATH = re.compile(r'<span class="math math-(?:inline|display)">\\[(\[](.*?)\\[)\]]</span>', re.S)
_TAG = re.compile(r"<[^>]*>")

Facets = dict[str, Any]
"""``docs``, ``venues`` ``[[id, label, year]]``, ``domains`` ``[[slug, label]]``, ``cells``
``[[venue, domain, first doc, end doc]]``, ``topics`` ``[[slug, label, count]]``, ``dups`` ``[[doc, …]]``."""


def document_files(docs: Sequence[Entry], dups: Sequence[Sequence[int]] = ()) -> dict[str, bytes]:
    """Rows ``[title, summary, URL]``; a document of a ``dups`` group adds ``[[doc, URL], …]`` of the
    group's other documents, so a result shown once for its paper links its other notes without
    fetching their files."""
    others: dict[int, list[list[object]]] = {}
    for group in dups:
        for d in group:
            others[d] = [[o, docs[o].url] for o in group if o != d]
    out = {}
    for k in range(0, len(docs), CHUNK):
        rows: list[list[object]] = []
        for i, e in enumerate(docs[k:k + CHUNK], k):
            note = e.note
            rows.append([shown(note.title_html, note.title), shown(note.summary_html, note.summary, SUMMARY_CHARS),
                         e.url, *([others[i]] if i in others else [])])
        out[f"search/d/{k // CHUNK}.json"] = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode()
    return out


def shown(fragment: str, source: str, limit: int = 0) -> str | list[str]:
    """What a result shows of a title or summary: the text of its HTML as the listing pages show it, or, when
    it holds formulas, ``[text, TeX, text, TeX, …, text]`` (the page renders the TeX with KaTeX and puts the
    rest in text nodes); cut after ``limit`` characters when ``limit`` is set. ``source`` (Markdown) serves
    when there is no HTML."""
    if not fragment:
        parts = [plain(source)]
    else:
        parts = []
        at = 0
        for m in _MATH.finditer(fragment):
            parts += (html.unescape(_TAG.sub("", fragment[at:m.start()])), html.unescape(_TAG.sub("", m.group(1))))
            at = m.end()
        parts.append(html.unescape(_TAG.sub("", fragment[at:])))
    if limit and sum(map(len, parts)) > limit:
        kept: list[str] = []
        room = limit - 1
        for k, part in enumerate(parts):
            if len(part) <= room:
                kept.append(part)
                room -= len(part)
                continue
            if k % 2 == 0:  # a formula is shown whole or not at all
                kept.append(part[:room].rstrip())
            break
        kept[-1] = kept[-1].rstrip() + "…"
        parts = kept
    parts[0] = parts[0].lstrip()
    parts[-1] = parts[-1].rstrip()
    return parts[0] if len(parts) == 1 else parts


def facets(docs: Sequence[Entry], lang: str) -> Facets:
    venues: dict[str, int] = {}
    domains: dict[str, int] = {}
    venue_rows: list[list[object]] = []
    domain_rows: list[list[str]] = []
    cells: list[list[int]] = []
    topics: Counter[str] = Counter()
    topic_names: dict[str, str] = {}
    for i, e in enumerate(docs):
        v = venues.get(e.venue.id)
        if v is None:
            v = venues[e.venue.id] = len(venue_rows)
            venue_rows.append([e.venue.id, venue_label(e.venue), e.venue.year or 0])
        d = domains.get(e.domain.slug)
        if d is None:
            d = domains[e.domain.slug] = len(domain_rows)
            domain_rows.append([e.domain.slug, domain_label(e.domain, lang)])
        if cells and cells[-1][0] == v and cells[-1][1] == d and cells[-1][3] == i:
            cells[-1][3] = i + 1
        else:
            cells.append([v, d, i, i + 1])
        for t in e.topics:
            topics[t.slug] += 1
            topic_names[t.slug] = t.name(lang)
    ranked = sorted(topics.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"docs": len(docs), "venues": venue_rows, "domains": domain_rows, "cells": cells,
            "topics": [[slug, topic_names[slug], n] for slug, n in ranked], "dups": duplicates(docs)}


def duplicates(docs: Sequence[Entry]) -> list[list[int]]:
    """Groups of documents about one paper: same arXiv id or same normalised title."""
    parent = list(range(len(docs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: dict[tuple[str, str], int] = {}
    for i, e in enumerate(docs):
        for key in (("arxiv", e.note.arxiv_id), ("title", normalise_title(e.note.title))):
            if not key[1]:
                continue
            j = seen.setdefault(key, i)
            if j != i:
                parent[find(i)] = find(j)
    groups: defaultdict[int, list[int]] = defaultdict(list)
    for i in range(len(docs)):
        groups[find(i)].append(i)
    return [g for g in groups.values() if len(g) > 1]


def manifest(found: Facets, generation: str, firsts: list[str], prefixes: dict[str, list[int]], dead: list[int],
             delta: bool) -> bytes:
    """``search/index.json``: what the page loads first (``prefixes``: ``encode.wide_prefixes``)."""
    doc = {"version": VERSION, "gen": generation, "chunk": CHUNK, "impact": [IMPACT_LO, IMPACT_HI],
           "shards": firsts, "prefixes": prefixes, "delta": delta, "dead": dead, **found}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()

"""Search index: entries become one compact JSON file for the offline search page.

In: resolved entries. Out: bytes of ``search/index.json``, loaded by
``assets/search.js``, which matches substrings (so Chinese needs no word
segmentation) and filters by venue and domain. Measured against Pagefind on
the reference corpus (BENCHMARKS.md): Pagefind's full-text index took 15 s and
34 MB, and its default binary does not segment Chinese; this index is built in
milliseconds, incrementally, and is a few MB.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable

from papernotes.corpus.model import Entry
from papernotes.site.plan import domain_label, venue_label

_MD = re.compile(r"\*\*|__|`|\\\(|\\\)|\$")


def plain(text: str) -> str:
    return _MD.sub("", text).strip()


def search_index(entries: Iterable[Entry], lang: str) -> bytes:
    venues: dict[str, int] = {}
    domains: dict[str, int] = {}
    venue_rows: list[list[str]] = []
    domain_rows: list[list[str]] = []
    rows = []
    for e in sorted(entries, key=lambda e: e.order):
        if e.venue.id not in venues:
            venues[e.venue.id] = len(venue_rows)
            venue_rows.append([e.venue.id, venue_label(e.venue)])
        if e.domain.slug not in domains:
            domains[e.domain.slug] = len(domain_rows)
            domain_rows.append([e.domain.slug, domain_label(e.domain, lang)])
        note = e.note
        rows.append([
            plain(note.title), plain(note.summary), " ".join(note.keywords),
            venues[e.venue.id], domains[e.domain.slug], " ".join(t.name(lang) for t in e.topics),
            " ".join(note.authors), e.url,
        ])
    doc = {"version": 1, "venues": venue_rows, "domains": domain_rows,
           "fields": ["title", "summary", "keywords", "venue", "domain", "topics", "authors", "url"], "notes": rows}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

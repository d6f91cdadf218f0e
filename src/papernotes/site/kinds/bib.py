"""``/bib/all.bib`` and ``/bib/{VENUE}-{domain}.bib``: BibTeX of the papers of the site and of each venue × domain page.

Each entry cites the paper behind a note (``papernotes/cite.py``, which escapes everything a note says),
in the page's order: the site's in site order (newest venue first), a venue × domain page's by slug as
the page lists them. Keys are made unique within each file. The home page and each venue × domain page
link to their file. What a file shows of a note (title, authors, venue, arXiv id) is all in the note's
listing key, so a body edit leaves the files alone.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from papernotes.cite import bibtex_entry, citations
from papernotes.corpus.model import Entry
from papernotes.site.contexts import BibContext, Page
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex

BIB_TEMPLATE = "papers.bib"


def bib_url(venue_id: str = "", domain: str = "") -> str:
    """``bib/all.bib`` for the site, ``bib/VENUE-domain.bib`` for one venue × domain page."""
    return f"bib/{venue_id}-{domain}.bib" if venue_id else "bib/all.bib"


def bib_page(url: str, title: str, entries: Iterable[Entry]) -> Page:
    return Page(url, BIB_TEMPLATE, title, BibContext(tuple(bibtex_entry(c) for c in citations(entries))))


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    if scope is None or scope.site_wide:
        yield bib_page(bib_url(), settings.config.title, site.entries)
    for (venue_id, slug), cell in site.by_cell.items():
        if scope is None or (venue_id, slug) in scope.cells:
            yield bib_page(bib_url(venue_id, slug), f"{venue_id} {cell[0].domain.name(settings.lang)}", cell)


KIND = PageKind("bib", 74, plan)

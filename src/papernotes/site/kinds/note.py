"""``/{VENUE}/{domain}/{slug}/``: one note's page.

Title, venue, domain, topics, links, ratings, the grounding line ("numbers
checked against the paper: 41/43", from front matter), summary and body
(rendered by the theme from the file), previous/next note of the same venue × domain page, the
related notes across venues (``SiteIndex.related``), every relative link of the body mapped to
its page on the site, and the paper's citation (``cite.py``: its ``citation_*`` meta tags, the Cite box).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from papernotes.cite import bibtex_entry, citation_of
from papernotes.corpus.model import Entry
from papernotes.markdown import inline_markdown, title_text
from papernotes.site.contexts import Crumb, Link, NoteContext, Page, RelatedItem, SiteLabels
from papernotes.site.figures import FigureStore, NoteFigures, figure_pages
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    cell_url,
    domain_label,
    resolve_local_link,
    topic_url,
    venue_label,
    venue_url,
)
from papernotes.site.trends import note_date

RATING_ORDER = ("novelty", "experiments", "writing", "value")
LINK_LABELS = {"arxiv": "arXiv", "openreview": "OpenReview", "code": "Code", "pdf": "PDF"}
#: ``meta:`` labels already shown through typed fields (links, keywords, domain, authors).
_SHOWN_META = {"arxiv", "代码", "code", "领域", "domain", "关键词", "keywords", "openreview", "pdf", "作者", "authors"}


def neighbour(entry: Entry | None) -> Link | None:
    return Link(title_text(entry.note.title), entry.url) if entry is not None else None


def related_item(entry: Entry) -> RelatedItem:
    return RelatedItem(title_text(entry.note.title), entry.url, entry.venue.id)


def note_page(entry: Entry, prev: Link | None, nxt: Link | None, labels: SiteLabels,
              by_path: dict[str, str], urls: frozenset[str] | set[str],
              related: tuple[RelatedItem, ...] = (), shown: NoteFigures | None = None) -> Page:
    """The page of one note; ``prev``/``nxt`` are its neighbours on the venue × domain page, ``related``
    its nearest notes across venues, ``shown`` its paper's figures (their files are pages of their own:
    ``note_pages``)."""
    lang = labels.lang
    note = entry.note
    ratings = dict(note.ratings)
    ordered = [(labels(f"rating_{k}"), ratings.pop(k)) for k in RATING_ORDER if k in ratings]
    ordered += sorted(ratings.items())
    venue = Link(venue_label(entry.venue), venue_url(entry.venue))
    domain = Link(domain_label(entry.domain, lang), cell_url(entry.venue, entry.domain))
    citation = citation_of(entry)
    ctx = NoteContext(
        entry=entry,
        title_html=note.title_html,
        summary_html=note.summary_html,
        venue=venue,
        domain=domain,
        topics=tuple(Link(t.name(lang), topic_url(t)) for t in entry.topics),
        links=tuple(Link(LINK_LABELS.get(kind, kind), url) for kind, url in note.links),
        ratings=tuple(ordered),
        prev=prev,
        next=nxt,
        link_map=tuple((t, resolve_local_link(note.path, entry.url, t, by_path, urls)) for t in note.local_links),
        extra_meta=_extra_meta(note.extra.get("meta"), note.venue),
        grounding=note.grounding,
        date=note_date(entry).isoformat(),
        related=related,
        teaser=shown.teaser if shown is not None else None,
        figures=shown.figures if shown is not None else (),
        figure_problems=shown.problems if shown is not None else (),
        citation=citation,
        bibtex=bibtex_entry(citation),
    )
    return Page(entry.url, "note.html", title_text(note.title), ctx,
                (Crumb(labels("home"), ""), Crumb(venue.label, venue.url), Crumb(domain.label, domain.url)))


def note_pages(entry: Entry, prev: Link | None, nxt: Link | None, labels: SiteLabels,
               by_path: dict[str, str], urls: frozenset[str] | set[str],
               related: tuple[RelatedItem, ...], figures: FigureStore | None) -> list[Page]:
    """The page of one note, then the image files of its paper's figures, beside it."""
    shown = figures.of(entry.note, entry.url) if figures is not None else None
    return [note_page(entry, prev, nxt, labels, by_path, urls, related, shown), *figure_pages(shown)]


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    by_path = {e.note.path: e for e in site.entries} if site.related else {}
    for cell in site.by_cell.values():
        for i, entry in enumerate(cell):
            if scope is not None and entry.note.path not in scope.notes:
                continue
            prev = cell[i - 1] if i > 0 else None
            nxt = cell[i + 1] if i + 1 < len(cell) else None
            related = tuple(related_item(by_path[p]) for p in site.related.get(entry.note.path, ()) if p in by_path)
            yield from note_pages(entry, neighbour(prev), neighbour(nxt), settings.labels, site.by_path, site.urls,
                                  related, settings.figures)


def _extra_meta(meta: Any, venue: str) -> tuple[tuple[str, str], ...]:
    """Imported metadata worth showing: skips what typed fields show and a venue line that only repeats the id."""
    if not isinstance(meta, dict):
        return ()
    rows = []
    for key, value in meta.items():
        text = str(value).strip() if isinstance(value, (str, int, float)) else ""
        if not text or str(key).casefold() in _SHOWN_META:
            continue
        if re.sub(r"\W", "", text).casefold() == venue.casefold():
            continue
        rows.append((str(key), inline_markdown(text)))
    return tuple(rows)


KIND = PageKind("note", 20, plan)

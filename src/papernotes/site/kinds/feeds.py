"""``/feeds/*.xml``: Atom feeds of the newest notes, of the whole site and of each venue, domain and topic.

Feeds need absolute URLs, so they are planned only when ``base_url`` is absolute
(the build warns once otherwise). Each feed holds the ``FEED_ENTRIES`` newest notes
by ``trends.note_date`` (front matter ``date``, else the venue's date: stable across
rebuilds), then by URL; the feed's ``updated`` is its newest entry's date.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from papernotes.corpus.model import Entry
from papernotes.markdown import title_text
from papernotes.site.contexts import FeedContext, FeedEntry, Page
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    domain_page_url,
    topic_url,
    venue_url,
)
from papernotes.site.trends import note_date

FEED_ENTRIES = 50


def feed_url(family: str = "", key: str = "") -> str:
    """``feeds/all.xml`` for the site, ``feeds/{venues,domains,topics}/KEY.xml`` for one group."""
    return f"feeds/{family}/{key}.xml" if family else "feeds/all.xml"


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    config, lang = settings.config, settings.lang
    if not config.absolute_base:
        return
    dates = {e.note.path: note_date(e).isoformat() + "T00:00:00Z" for e in site.entries}

    def feed(url: str, name: str, page: str, group: Iterable[Entry]) -> Page:
        by_url = sorted(group, key=lambda e: e.url)
        newest = sorted(by_url, key=lambda e: dates[e.note.path], reverse=True)[:FEED_ENTRIES]  # stable: URL order
        entries = tuple(FeedEntry(title_text(e.note.title), config.absolute_url(e.url), dates[e.note.path],
                                  e.note.summary_html, e.note.authors,
                                  (e.venue.id, e.domain.name(lang), *(t.name(lang) for t in e.topics)))
                        for e in newest)
        title = f"{config.title} · {name}" if name else config.title
        ctx = FeedContext(title, config.absolute_url(url), config.absolute_url(page),
                          max((x.updated for x in entries), default="1970-01-01T00:00:00Z"), entries)
        return Page(url, "feed.xml", title, ctx)

    if scope is None or scope.site_wide:
        yield feed(feed_url(), "", "", site.entries)
    for venue in site.venues:
        if scope is None or venue.id in scope.venues:
            yield feed(feed_url("venues", venue.id), venue.id, venue_url(venue), site.by_venue[venue.id])
    for slug, group in site.by_domain.items():
        if scope is None or slug in scope.domains:
            domain = site.domains[slug]
            yield feed(feed_url("domains", slug), domain.name(lang), domain_page_url(domain), group)
    for slug, group in site.by_topic.items():
        if scope is None or slug in scope.topics:
            topic = site.topics[slug]
            yield feed(feed_url("topics", slug), topic.name(lang), topic_url(topic), group)


KIND = PageKind("feeds", 75, plan)

"""``/topics/{topic}/``: notes sharing a topic, grouped by venue, newest first."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Crumb, DomainSection, Link, Page, TopicContext
from papernotes.site.kinds.feeds import feed_url
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    domain_label,
    paper_item,
    topic_url,
    venue_label,
)
from papernotes.site.trends import trend_chart


def plan_topics(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    lang = settings.lang
    totals = {venue: len(group) for venue, group in site.by_venue.items()}
    feeds = bool(settings.config.absolute_base)
    crumbs = (settings.home, Crumb(settings.labels("topics"), "topics/"))
    for slug, group in site.by_topic.items():
        if scope is not None and slug not in scope.topics:
            continue
        topic = site.topics[slug]
        per_venue: dict[str, list] = {}
        for entry in group:
            per_venue.setdefault(entry.venue.id, []).append(entry)
        ctx = TopicContext(
            heading=topic.name(lang),
            count=len(group),
            sections=tuple(
                DomainSection(Link(venue_label(v), f"#{v.id}", len(per_venue[v.id])),
                              tuple(paper_item(e, domain_label(e.domain, lang)) for e in per_venue[v.id]))
                for v in site.venues if v.id in per_venue
            ),
            trend=trend_chart(group, site.venues, totals),
            feed=feed_url("topics", slug) if feeds else "",
        )
        yield Page(topic_url(topic), "topic.html", topic.name(lang), ctx, crumbs)


KIND = PageKind("topic", 50, plan_topics)

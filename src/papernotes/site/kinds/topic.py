"""``/topics/{topic}/``: notes sharing a topic, grouped by venue, newest first."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from papernotes.site.contexts import Crumb, DomainSection, Link, Page, TopicContext
from papernotes.site.kinds.feeds import feed_url
from papernotes.site.paging import page_title, page_url, page_url_of, paged_groups
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
        groups = [(Link(venue_label(v), f"#{v.id}", len(per_venue[v.id])), per_venue[v.id])
                  for v in site.venues if v.id in per_venue]
        trend, url, size = trend_chart(group, site.venues, totals), topic_url(topic), settings.config.page_size
        starts = [0]
        for _, items in groups[:-1]:
            starts.append(starts[-1] + len(items))
        for shares, pager in paged_groups(url, groups, size):
            number = pager.number if pager else 1
            ctx = TopicContext(
                heading=topic.name(lang),
                count=len(group),
                venues=tuple(venue if start // size + 1 == number else
                             replace(venue, url=f"{page_url(url, start // size + 1)}{venue.url}")
                             for (venue, _), start in zip(groups, starts)),
                sections=tuple(DomainSection(venue, tuple(paper_item(e, domain_label(e.domain, lang)) for e in items))
                               for venue, items in shares),
                trend=trend,
                feed=feed_url("topics", slug) if feeds else "",
                pager=pager,
            )
            yield Page(page_url_of(url, pager), "topic.html", page_title(topic.name(lang), pager, settings.labels),
                       ctx, crumbs)


KIND = PageKind("topic", 50, plan_topics)

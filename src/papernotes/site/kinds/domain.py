"""``/domains/{domain}/``: one domain across venues, grouped by venue, newest first."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Crumb, DomainContext, DomainSection, Link, Page
from papernotes.site.kinds.feeds import feed_url
from papernotes.site.paging import page_title, page_url_of, paged_groups
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    cell_url,
    domain_label,
    domain_page_url,
    hot_topics,
    paper_item,
    venue_label,
)
from papernotes.site.trends import trend_chart


def plan_domains(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    lang = settings.lang
    totals = {venue: len(group) for venue, group in site.by_venue.items()}
    feeds = bool(settings.config.absolute_base)
    crumbs = (settings.home, Crumb(settings.labels("domains"), "domains/"))
    for slug, group in site.by_domain.items():
        if scope is not None and slug not in scope.domains:
            continue
        per_venue: dict[str, list] = {}
        for entry in group:
            per_venue.setdefault(entry.venue.id, []).append(entry)
        groups = [(Link(venue_label(v), cell_url(v, slug), len(per_venue[v.id])),
                   sorted(per_venue[v.id], key=lambda e: e.note.slug)) for v in site.venues if v.id in per_venue]
        domain = site.domains[slug]
        heading, url = domain_label(domain, lang), domain_page_url(domain)
        hot = hot_topics(group, lang, 10, settings.config.hot_topic_min)
        trend = trend_chart(group, site.venues, totals)
        for shares, pager in paged_groups(url, groups, settings.config.page_size):
            ctx = DomainContext(
                heading=heading,
                count=len(group),
                venues=tuple(venue for venue, _ in groups),
                hot=hot,
                sections=tuple(DomainSection(venue, tuple(paper_item(e) for e in items)) for venue, items in shares),
                trend=trend,
                feed=feed_url("domains", slug) if feeds else "",
                pager=pager,
            )
            yield Page(page_url_of(url, pager), "domain.html", page_title(domain.name(lang), pager, settings.labels),
                       ctx, crumbs)


KIND = PageKind("domain", 40, plan_domains)

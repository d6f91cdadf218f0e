"""``/domains/{domain}/``: one domain across venues; ``/domains/``: every domain with its count."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Crumb, DomainContext, DomainSection, DomainsIndexContext, Link, Page
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


def plan_domains(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    lang = settings.lang
    crumbs = (settings.home, Crumb(settings.labels("domains"), "domains/"))
    for slug, group in site.by_domain.items():
        if scope is not None and slug not in scope.domains:
            continue
        per_venue: dict[str, list] = {}
        for entry in group:
            per_venue.setdefault(entry.venue.id, []).append(entry)
        sections = tuple(
            DomainSection(Link(venue_label(v), cell_url(v, slug), len(per_venue[v.id])),
                          tuple(paper_item(e) for e in sorted(per_venue[v.id], key=lambda e: e.note.slug)))
            for v in site.venues if v.id in per_venue
        )
        ctx = DomainContext(
            heading=domain_label(site.domains[slug], lang),
            count=len(group),
            venues=tuple(s.venue for s in sections),
            hot=hot_topics(group, lang, 10, settings.config.hot_topic_min),
            sections=sections,
        )
        yield Page(domain_page_url(site.domains[slug]), "domain.html", site.domains[slug].name(lang), ctx, crumbs)


def domain_links(site: SiteIndex, lang: str) -> tuple[Link, ...]:
    """Every domain with its count, most notes first."""
    links = [Link(domain_label(site.domains[s], lang), domain_page_url(site.domains[s]), len(group))
             for s, group in site.by_domain.items()]
    return tuple(sorted(links, key=lambda link: (-link.count, link.url)))


def plan_index(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("domains/", "domains.html", settings.labels("all_domains"),
               DomainsIndexContext(domain_links(site, settings.lang)), (settings.home,))


KIND = (PageKind("domain", 40, plan_domains), PageKind("domains_index", 41, plan_index, site_wide=True))

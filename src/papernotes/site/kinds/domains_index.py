"""``/domains/``: every domain with its count, most notes first."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import DomainsIndexContext, Link, Page
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    domain_label,
    domain_page_url,
)


def domain_links(site: SiteIndex, lang: str) -> tuple[Link, ...]:
    """Every domain with its count, most notes first."""
    links = [Link(domain_label(site.domains[s], lang), domain_page_url(site.domains[s]), len(group))
             for s, group in site.by_domain.items()]
    return tuple(sorted(links, key=lambda link: (-link.count, link.url)))


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("domains/", "domains.html", settings.labels("all_domains"),
               DomainsIndexContext(domain_links(site, settings.lang)), (settings.home,))


KIND = PageKind("domains_index", 41, plan, site_wide=True)

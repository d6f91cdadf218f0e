"""``/sitemap.xml``: the public URL of every page worth indexing, by the sitemaps.org protocol.

Every directory page of the site (home, venues, venue × domain pages, notes, domain
and topic pages and their indexes) but the search page; redirects and ``404.html``
are left out. A sitemap holds at most ``SITEMAP_LIMIT`` URLs: a larger site gets a
sitemap index at ``sitemap.xml`` pointing at ``sitemaps/1.xml``, ``sitemaps/2.xml``…
Planned only when ``base_url`` is absolute (the protocol wants absolute URLs).
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, SitemapContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex

SITEMAP_LIMIT = 50_000
"""URLs per sitemap file (the protocol's maximum)."""
LEFT_OUT = frozenset({"search/"})


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    config = settings.config
    if not config.absolute_base:
        return
    urls = [config.absolute_url(url) for url in sorted(site.urls - LEFT_OUT)]
    if len(urls) <= SITEMAP_LIMIT:
        yield Page("sitemap.xml", "sitemap.xml", "sitemap", SitemapContext(tuple(urls)))
        return
    names = [f"sitemaps/{n + 1}.xml" for n in range(-(-len(urls) // SITEMAP_LIMIT))]
    yield Page("sitemap.xml", "sitemap.xml", "sitemap",
               SitemapContext((), tuple(config.absolute_url(name) for name in names)))
    for n, name in enumerate(names):
        yield Page(name, "sitemap.xml", "sitemap", SitemapContext(tuple(urls[n * SITEMAP_LIMIT:(n + 1) * SITEMAP_LIMIT])))


KIND = PageKind("sitemap", 76, plan, site_wide=True)

"""``/robots.txt``: every crawler may read every page; the file names the sitemaps when there are some.

One file for the whole site: crawlers read ``robots.txt`` only at the root, so it names
the sitemap of every edition (``sitemap.xml``, ``en/sitemap.xml``). A site served under a
path (``base_url = "https://example.org/notes/"``) should have the host's own file point
at them.
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, RobotsContext
from papernotes.site.editions import site_editions
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    config = settings.config
    sitemaps = tuple(config.absolute_url(e.prefix + "sitemap.xml") for e in site_editions(config.editions))
    yield Page("robots.txt", "robots.txt", "robots.txt", RobotsContext(sitemaps[0], sitemaps if sitemaps[0] else ()))


KIND = PageKind("robots", 77, plan, site_wide=True)

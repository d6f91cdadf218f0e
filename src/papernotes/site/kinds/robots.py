"""``/robots.txt``: every crawler may read every page; the file names the sitemap when there is one.

Crawlers read ``robots.txt`` only at the root of a host: a site served under a path
(``base_url = "https://example.org/notes/"``) should have the host's own file point
at ``notes/sitemap.xml``.
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, RobotsContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("robots.txt", "robots.txt", "robots.txt", RobotsContext(settings.config.absolute_url("sitemap.xml")))


KIND = PageKind("robots", 77, plan, site_wide=True)

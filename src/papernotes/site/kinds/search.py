"""``/search/``: the offline search page (the index itself is written by ``site.search``)."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, SimpleContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("search/", "search.html", settings.labels("search"), SimpleContext("search"), (settings.home,))


KIND = PageKind("search", 70, plan, site_wide=True)

"""Pages without notes: ``/search/`` (the offline search page) and ``/404.html``."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, SimpleContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex


def plan_search(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("search/", "search.html", settings.labels("search"), SimpleContext("search"), (settings.home,))


def plan_404(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("404.html", "404.html", settings.labels("not_found_title"), SimpleContext("404"))


KIND = (PageKind("search", 70, plan_search, site_wide=True), PageKind("not_found", 80, plan_404, site_wide=True))

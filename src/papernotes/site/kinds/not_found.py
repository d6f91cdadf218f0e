"""``/404.html``: the page servers show for a missing URL (links in it are absolute)."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, SimpleContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("404.html", "404.html", settings.labels("not_found_title"), SimpleContext("404"))


KIND = PageKind("not_found", 80, plan, site_wide=True)

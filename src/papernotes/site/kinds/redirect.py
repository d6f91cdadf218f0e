"""Old URLs kept alive: each ``aliases:`` entry of a note becomes a page that redirects to the note.

The resolve stage has already normalised every alias (``a/b/``), refused the
ones that would leave the site or take a name or URL the site uses, and reported
them; this kind checks each again with the same rules (``paths.py``) before
planning a page, so no alias can reach the publisher unchecked. An alias never
takes the URL of a real page (the planner keeps the first page that claims a
URL, and this kind runs last).
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes import paths
from papernotes.markdown import title_text
from papernotes.site.contexts import Page, RedirectContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    for entry in site.entries:
        if scope is not None and entry.note.path not in scope.notes:
            continue
        title = title_text(entry.note.title)
        for alias in entry.note.aliases[:paths.MAX_ALIASES]:
            try:
                url = paths.alias_url(alias)
            except paths.UnsafePath:
                continue  # reported by the resolve stage
            if url != entry.url and url not in site.urls:
                yield Page(url, "redirect.html", title, RedirectContext(entry.url, title))


KIND = PageKind("redirect", 90, plan)

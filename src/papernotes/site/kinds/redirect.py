"""Old URLs kept alive: each ``aliases:`` entry of a note becomes a page that redirects to the note.

An alias never takes the URL of a real page (the planner keeps the first page
that claims a URL, and this kind runs last).
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Page, RedirectContext
from papernotes.site.markdown import title_text
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex

RESERVED_PAGES = frozenset({"search/", "404.html"})


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    for entry in site.entries:
        if scope is not None and entry.note.path not in scope.notes:
            continue
        title = title_text(entry.note.title)
        for alias in entry.note.aliases:
            url = alias.strip("/") + "/"
            if url != entry.url and url not in site.urls and url not in RESERVED_PAGES:
                yield Page(url, "redirect.html", title, RedirectContext(entry.url, title))


KIND = PageKind("redirect", 90, plan)

"""``/{VENUE}/{domain}/``: the venue × domain page (the seed's page).

Heading with the domain's icon and name, the venue line with the count, the
same domain at every other venue newest first, hot topics, every note by slug
(``page_size`` notes a page, ``site/paging.py``, when there are more), and a link to the
list's ``.bib`` (``kinds/bib.py``).
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Crumb, Link, Page, VenueDomainContext
from papernotes.site.kinds.bib import bib_url
from papernotes.site.paging import page_title, page_url_of, paged
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    cell_url,
    domain_label,
    hot_topics,
    paper_item,
    venue_label,
    venue_url,
)


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    lang, config = settings.lang, settings.config
    suffix = "论文解读" if lang == "zh" else " paper notes"
    for (venue_id, slug), cell in site.by_cell.items():
        if scope is not None and (venue_id, slug) not in scope.cells:
            continue
        venue, domain = cell[0].venue, cell[0].domain
        cross = tuple(
            Link(venue_label(v), cell_url(v, slug), len(site.by_cell[(v.id, slug)]))
            for v in site.venues if v.id != venue_id and (v.id, slug) in site.by_cell
        )
        heading, hot = domain_label(domain, lang), hot_topics(cell, lang, config.hot_topics, config.hot_topic_min)
        venue_link = Link(venue_label(venue), venue_url(venue), len(cell))
        title = f"{venue_id} {domain.name(lang)}{suffix}"
        crumbs = (settings.home, Crumb(venue_label(venue), venue_url(venue)))
        url = cell_url(venue, domain)
        for chunk, pager in paged(url, cell, config.page_size):
            ctx = VenueDomainContext(heading=heading, anchor=domain.slug, venue=venue_link, cross=cross, hot=hot,
                                     items=tuple(paper_item(e) for e in chunk), pager=pager,
                                     bib=bib_url(venue_id, slug))
            yield Page(page_url_of(url, pager), "venue_domain.html", page_title(title, pager, settings.labels), ctx,
                       crumbs)


KIND = PageKind("venue_domain", 10, plan)

"""``/{VENUE}/{domain}/``: the venue × domain page (the seed's page).

Heading with the domain's icon and name, the venue line with the count, the
same domain at every other venue newest first, hot topics, every note by slug, and a link to the
page's ``.bib`` (``kinds/bib.py``).
"""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Crumb, Link, Page, VenueDomainContext
from papernotes.site.kinds.bib import bib_url
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
        ctx = VenueDomainContext(
            heading=domain_label(domain, lang),
            anchor=domain.slug,
            venue=Link(venue_label(venue), venue_url(venue), len(cell)),
            cross=cross,
            hot=hot_topics(cell, lang, config.hot_topics, config.hot_topic_min),
            items=tuple(paper_item(e) for e in cell),
            bib=bib_url(venue_id, slug),
        )
        yield Page(cell_url(venue, domain), "venue_domain.html", f"{venue_id} {domain.name(lang)}{suffix}", ctx,
                   (settings.home, Crumb(venue_label(venue), venue_url(venue))))


KIND = PageKind("venue_domain", 10, plan)

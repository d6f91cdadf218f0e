"""``/{VENUE}/``: a venue's domains with their counts, and its hot topics."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from papernotes.site.contexts import Link, Page, VenueContext
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    cell_url,
    domain_label,
    hot_topics,
    venue_label,
    venue_url,
)


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    lang = settings.lang
    for venue in site.venues:
        if scope is not None and venue.id not in scope.venues:
            continue
        group = site.by_venue[venue.id]
        counts = Counter(e.domain.slug for e in group)
        ctx = VenueContext(
            heading=venue_label(venue),
            venue=venue,
            count=len(group),
            domains=tuple(Link(domain_label(site.domains[s], lang), cell_url(venue, s), n)
                          for s, n in sorted(counts.items(), key=lambda kv: site.domain_order(*kv))),
            hot=hot_topics(group, lang, 10, settings.config.hot_topic_min),
        )
        yield Page(venue_url(venue), "venue.html", venue.id, ctx, (settings.home,))


KIND = PageKind("venue", 30, plan)

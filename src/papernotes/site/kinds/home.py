"""``/``: totals of notes, venues and domains, one card per venue, the most frequent topics, and per
conference series the topics growing fastest between its two latest editions."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from papernotes.site.contexts import HomeContext, Link, Page, VenueCard
from papernotes.site.kinds.bib import bib_url
from papernotes.site.kinds.feeds import feed_url
from papernotes.site.kinds.topics_index import topic_links
from papernotes.site.plan import (
    PageKind,
    PlanSettings,
    Scope,
    SiteIndex,
    cell_url,
    venue_label,
    venue_url,
)
from papernotes.site.trends import series_growth

HOME_TOPICS = 30


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    cards = []
    for venue in site.venues:
        group = site.by_venue[venue.id]
        counts = Counter(e.domain.slug for e in group)
        cards.append(VenueCard(
            Link(venue_label(venue), venue_url(venue), len(group)),
            len(counts),
            tuple(Link(site.domains[s].name(settings.lang), cell_url(venue, s), n)
                  for s, n in sorted(counts.items(), key=lambda kv: site.domain_order(*kv))),
        ))
    ctx = HomeContext(len(site.entries), len(site.venues), len(site.domains), tuple(cards),
                      topic_links(site, settings.lang)[:HOME_TOPICS],
                      series_growth(site.by_venue, site.venues, settings.lang),
                      feed_url() if settings.config.absolute_base else "", bib_url())
    yield Page("", "home.html", settings.config.title, ctx)


KIND = PageKind("home", 60, plan, site_wide=True)

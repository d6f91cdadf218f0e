"""Page models: the records the planner produces and the templates receive.

Each template gets exactly one context dataclass, documented field by field
(``plan.plan_site`` builds them; ``theme.Theme`` renders them). Pure data, no logic
beyond formatting helpers. One module per family of pages: ``common`` (links,
crumbs, pagers, ``Page``), ``listing`` (venue × domain, venue, domain, topic,
their indexes, home), ``note`` (a note's page), ``files`` (feeds, .bib, sitemap,
robots.txt, 404, search, redirects); every name is importable from here.
"""
from papernotes.site.contexts.common import (
    Alternate,
    Crumb,
    Link,
    Page,
    Pager,
    PagerLink,
    PaperItem,
    RelatedItem,
    SiteLabels,
)
from papernotes.site.contexts.listing import (
    DomainContext,
    DomainSection,
    DomainsIndexContext,
    GrowthTopic,
    HomeContext,
    SeriesGrowth,
    TopicContext,
    TopicsIndexContext,
    TrendBar,
    TrendChart,
    VenueCard,
    VenueContext,
    VenueDomainContext,
)
from papernotes.site.contexts.note import (
    FigureFile,
    FigureView,
    NoteContext,
    Provenance,
)
from papernotes.site.contexts.files import (
    BibContext,
    FeedContext,
    FeedEntry,
    RedirectContext,
    RobotsContext,
    SimpleContext,
    SitemapContext,
)

__all__ = ["Alternate", "BibContext", "Crumb", "DomainContext", "DomainSection", "DomainsIndexContext", "FeedContext", "FeedEntry", "FigureFile", "FigureView", "GrowthTopic", "HomeContext", "Link", "NoteContext", "Page", "Pager", "PagerLink", "PaperItem", "Provenance", "RedirectContext", "RelatedItem", "RobotsContext", "SeriesGrowth", "SimpleContext", "SiteLabels", "SitemapContext", "TopicContext", "TopicsIndexContext", "TrendBar", "TrendChart", "VenueCard", "VenueContext", "VenueDomainContext"]

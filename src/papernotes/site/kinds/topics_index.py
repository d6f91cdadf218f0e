"""``/topics/``: every topic with its count, most notes first."""
from __future__ import annotations

from collections.abc import Iterator

from papernotes.site.contexts import Link, Page, TopicsIndexContext
from papernotes.site.plan import PageKind, PlanSettings, Scope, SiteIndex, topic_url


def topic_links(site: SiteIndex, lang: str) -> tuple[Link, ...]:
    """Every topic with its count, most notes first."""
    links = [Link(site.topics[s].name(lang), topic_url(site.topics[s]), len(group)) for s, group in site.by_topic.items()]
    return tuple(sorted(links, key=lambda link: (-link.count, link.url)))


def plan(site: SiteIndex, settings: PlanSettings, scope: Scope | None) -> Iterator[Page]:
    yield Page("topics/", "topics.html", settings.labels("all_topics"),
               TopicsIndexContext(topic_links(site, settings.lang)), (settings.home,))


KIND = PageKind("topics_index", 51, plan, site_wide=True)

"""Plan stage, listing pages split into numbered pages (pure).

In: a listing's URL, its items in order and the site's ``page_size``. Out: one
``(items, Pager)`` per page: page 1 at the listing's own URL, page n at
``{url}page/{n}/``, each pager linking every page and its neighbours. A list
no longer than ``page_size`` is one page with no pager, exactly as before
pagination existed (the seed's 64-note page among them). Counts shown on a page
stay those of the whole list; the page kinds compute them before slicing.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

from papernotes.site.contexts import Pager, PagerLink, SiteLabels

K = TypeVar("K")
T = TypeVar("T")


def page_url(base: str, number: int) -> str:
    """Site-relative URL of page ``number`` of the listing at ``base`` (``ICML2026/llm/page/2/``)."""
    return base if number == 1 else f"{base}page/{number}/"


def page_count(items: int, size: int) -> int:
    return max(1, -(-items // size))


def later_page_urls(base: str, items: int, size: int) -> list[str]:
    """The URLs of pages 2… of a listing of ``items`` (what may be left over when the listing shrinks)."""
    return [page_url(base, n) for n in range(2, page_count(items, size) + 1)]


def paged(base: str, items: Sequence[T], size: int) -> Iterator[tuple[Sequence[T], Pager | None]]:
    """Each page's slice of ``items`` with its pager (``None`` when the whole list fits one page)."""
    total = page_count(len(items), size)
    if total == 1:
        yield items, None
        return
    links = tuple(PagerLink(n, page_url(base, n)) for n in range(1, total + 1))
    for n in range(1, total + 1):
        first = (n - 1) * size
        chunk = items[first:first + size]
        yield chunk, Pager(n, links, first + 1, first + len(chunk), len(items))


def paged_groups(base: str, groups: Sequence[tuple[K, Sequence[T]]],
                 size: int) -> Iterator[tuple[list[tuple[K, Sequence[T]]], Pager | None]]:
    """``paged`` over the items of consecutive groups (a domain's notes per venue): each page's share of the
    groups, a group cut between two pages appearing on both."""
    flat = [(i, item) for i, (_, items) in enumerate(groups) for item in items]
    for chunk, pager in paged(base, flat, size):
        shares: dict[int, list[T]] = {}
        for i, item in chunk:
            shares.setdefault(i, []).append(item)
        yield [(groups[i][0], items) for i, items in shares.items()], pager


def page_url_of(base: str, pager: Pager | None) -> str:
    return page_url(base, pager.number) if pager else base


def page_title(title: str, pager: Pager | None, labels: SiteLabels) -> str:
    """A later page's title says which page it is (``… · 第 2 页``): no two pages of a site share a title."""
    return labels("page_title", title=title, n=pager.number) if pager and pager.number > 1 else title

"""Publish stage, the site's record of itself: what a build published, as data.

In: the planned pages (``Page`` records and their contexts). Out: the bytes of
``papernotes-manifest.json``, written at the site root next to the search index;
``read_manifest`` turns those bytes back into a typed ``Manifest``. One writer,
one reader: ``papernotes check --site`` compares this record (and the files
present) with the corpus, so no stage ever parses the HTML a theme produced.

The record holds site-relative URLs and file paths only (nothing about the
machine that built it), one page per line so two builds diff readably: the list
of note pages' URLs, then per other page its URL, file and kind (its template
without ``.html``); for pages that list notes, the notes listed (positions in
the list of notes) and the count shown; for pages that show how many notes
another page holds, those links and counts.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import PurePosixPath
from typing import Any

from papernotes.site.contexts import (
    DomainContext,
    DomainsIndexContext,
    HomeContext,
    Link,
    Page,
    TopicContext,
    TopicsIndexContext,
    VenueContext,
    VenueDomainContext,
)

"""File name of the record, at the root of the built site."""
FORMAT = 1
"""Version of the record's layout; a reader refuses any other."""


class ManifestError(ValueError):
    """The record is missing, not JSON, or not in the layout this version writes."""


@dataclass(frozen=True, slots=True)
class PublishedPage:
    """One page of the built site, as far as a checker needs to know it."""

    url: str
    """Site-relative URL (``""`` for home, ``ICML2024/optimization/`` for a directory page)."""
    file: str
    """The page's file relative to the site root, ``/``-separated, e.g. ``ICML2024/optimization/index.html``."""
    kind: str
    """What the page is: its template without ``.html`` (``note``, ``venue_domain``, ``domain``, ``topic``, …)."""
    count: int | None = None
    """Number of notes the page says it covers; ``None`` when it shows no such number."""
    notes: tuple[str, ...] = ()
    """URLs of the note pages it lists, in the order shown (listing pages only)."""
    links: tuple[tuple[str, int], ...] = ()
    """Links to other pages shown with the number of notes behind them: ``(url, count)``."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """Every page a build published."""

    pages: tuple[PublishedPage, ...]
    """Ordered by URL."""

    def by_url(self) -> dict[str, PublishedPage]:
        return {p.url: p for p in self.pages}


def _counted(links: Iterable[Link]) -> tuple[tuple[str, int], ...]:
    return tuple((link.url, link.count) for link in links)


def describe(page: Page) -> PublishedPage:
    """What ``page`` shows that a checker can compare with the corpus.

    Only counts that mean "notes on the linked page" go into ``links``: hot-topic
    counts (notes on this page) and in-page anchors do not.
    """
    ctx = page.context
    kind = page.template.removesuffix(".html")
    base = PublishedPage(page.url, page.output_path, kind)
    if isinstance(ctx, VenueDomainContext):
        return _with(base, ctx.venue.count, [p.url for p in ctx.items], _counted(ctx.cross))
    if isinstance(ctx, DomainContext):
        return _with(base, ctx.count, [p.url for s in ctx.sections for p in s.items], _counted(ctx.venues))
    if isinstance(ctx, TopicContext):
        return _with(base, ctx.count, [p.url for s in ctx.sections for p in s.items], ())
    if isinstance(ctx, VenueContext):
        return _with(base, ctx.count, [], _counted(ctx.domains))
    if isinstance(ctx, HomeContext):
        cards = [link for card in ctx.cards for link in (card.venue, *card.domains)]
        return _with(base, ctx.notes, [], _counted([*cards, *ctx.topics]))
    if isinstance(ctx, DomainsIndexContext):
        return _with(base, None, [], _counted(ctx.domains))
    if isinstance(ctx, TopicsIndexContext):
        return _with(base, None, [], _counted(ctx.topics))
    return base


def _with(base: PublishedPage, count: int | None, notes: Sequence[str],
          links: tuple[tuple[str, int], ...]) -> PublishedPage:
    return PublishedPage(base.url, base.file, base.kind, count, tuple(notes), links)


def manifest(pages: Iterable[Page]) -> bytes:
    """The record of ``pages`` (the whole planned site) as UTF-8 JSON, one page per line."""
    return encode(describe(p) for p in pages)


def updated(old: bytes, pages: Iterable[Page], removed: Iterable[str]) -> bytes:
    """The record ``old`` with ``pages`` re-described and the pages at ``removed`` URLs dropped
    (a build that planned only the pages an edit touched)."""
    by_url = read_manifest(old).by_url()
    for url in removed:
        by_url.pop(url, None)
    by_url.update((p.url, describe(p)) for p in pages)
    return encode(by_url.values())


def encode(pages: Iterable[PublishedPage]) -> bytes:
    """Note pages, the bulk of a site, are a plain list of URLs (each is a directory
    page: its file is ``URL/index.html``); listings refer to them by position in
    that list, which keeps the record small at 50,000 notes.
    """
    pages = list(pages)
    notes = sorted(p.url for p in pages if p.kind == "note")
    position = {url: i for i, url in enumerate(notes)}
    rows = []
    for page in sorted((p for p in pages if p.kind != "note"), key=lambda p: p.url):
        row: dict[str, Any] = {"url": page.url, "file": page.file, "kind": page.kind}
        if page.count is not None:
            row["count"] = page.count
        if page.notes:  # itemgetter: one C call per listing instead of a lookup per note (50,000-note sites)
            row["notes"] = list(itemgetter(*page.notes)(position)) if len(page.notes) > 1 else [position[page.notes[0]]]
        if page.links:
            row["links"] = [list(link) for link in page.links]
        rows.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    note_list = json.dumps(notes, ensure_ascii=False, indent=0)  # one URL per line
    return (f'{{"format":{FORMAT},"generator":"papernotes",\n"notes":{note_list},\n"pages":[\n'
            + ",\n".join(rows) + "\n]}\n").encode()


def read_manifest(data: bytes) -> Manifest:
    """Parse a record written by ``manifest``; ``ManifestError`` says what is wrong and where."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ManifestError(f"not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ManifestError(f"line {exc.lineno}: invalid JSON: {exc.msg}") from None
    if (not isinstance(raw, dict) or raw.get("format") != FORMAT or not isinstance(raw.get("pages"), list)
            or not isinstance(raw.get("notes"), list)):
        raise ManifestError(f"not a papernotes manifest of format {FORMAT}; rebuild the site with this version")
    notes = raw["notes"]
    pages = []
    for index, url in enumerate(notes):
        if not isinstance(url, str) or not url.endswith("/"):
            raise ManifestError(f"notes[{index}]: expected the URL of a directory page, got {url!r}")
        pages.append(PublishedPage(url, _inside(url + "index.html", f"notes[{index}]"), "note"))
    for index, row in enumerate(raw["pages"]):
        where = f"pages[{index}]"
        if not isinstance(row, dict):
            raise ManifestError(f"{where}: expected an object")
        url, file, kind = (_text(row, key, where) for key in ("url", "file", "kind"))
        count = row.get("count")
        if count is not None and (type(count) is not int or count < 0):
            raise ManifestError(f"{where}.count: expected a number of notes, got {count!r}")
        listed = row.get("notes", [])
        if not isinstance(listed, list) or not all(type(n) is int and 0 <= n < len(notes) for n in listed):
            raise ManifestError(f"{where}.notes: expected positions in the list of notes")
        links = row.get("links", [])
        if not isinstance(links, list) or not all(
                isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and type(x[1]) is int for x in links):
            raise ManifestError(f"{where}.links: expected a list of [url, count] pairs")
        pages.append(PublishedPage(url, _inside(file, f"{where}.file"), kind, count,
                                   tuple(notes[n] for n in listed), tuple((u, n) for u, n in links)))
    return Manifest(tuple(sorted(pages, key=lambda p: p.url)))


def _inside(file: str, where: str) -> str:
    path = PurePosixPath(file)
    if not file or path.is_absolute() or ".." in path.parts or "\\" in file:
        raise ManifestError(f"{where}: {file!r} is not a path inside the site")
    return file


def _text(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str):
        raise ManifestError(f"{where}.{key}: expected a string, got {value!r}")
    return value

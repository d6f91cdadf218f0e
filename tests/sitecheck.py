"""Helpers that read a built site the way a visitor (or a link checker) would, and the clean build an
incremental one is compared with."""
from __future__ import annotations

import functools
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from papernotes.site.build import BuildResult, build

BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "li", "dt", "dd", "dl", "ul", "ol", "section", "article", "header",
          "footer", "nav", "main", "table", "tr", "pre", "blockquote", "title", "form", "details", "summary"}


class _Text(HTMLParser):
    """Block-aware text: one line per block element; a ``dt`` and its ``dd`` read ``title: summary``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.skip = 0
        self.in_dt = False

    def flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self.current)).strip()
        if text:
            self.lines.append(text)
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        elif tag == "dd":
            if self.lines and self.lines[-1].endswith("\x00"):
                self.current = [self.lines.pop()[:-1] + ": "]
        elif tag in BLOCKS:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self.skip -= 1
        elif tag == "dt":
            self.flush()
            if self.lines:
                self.lines[-1] += "\x00"
        elif tag in BLOCKS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.current.append(data)


def page_lines(html: str, selector: str = "main") -> list[str]:
    start = html.find(f"<{selector}")
    end = html.rfind(f"</{selector}>")
    parser = _Text()
    parser.feed(html[start:end] if start >= 0 else html)
    parser.flush()
    return [line.rstrip("\x00") for line in parser.lines]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {"a": "href", "link": "href", "script": "src", "img": "src", "form": "action"}
        want = names.get(tag)
        for key, value in attrs:
            if key == want and value is not None:
                self.links.append(value)


@functools.lru_cache(maxsize=1024)  # a site checked after each of many edits: most pages are as last time
def _links(html: str) -> tuple[str, ...]:
    parser = _Links()
    parser.feed(html)
    return tuple(u for u in parser.links if not urlsplit(u).scheme and not u.startswith(("#", "//", "mailto:")))


def internal_links(html: str) -> list[str]:
    return list(_links(html))


def resolve_link(site: Path, page: Path, href: str) -> Path:
    path = unquote(urlsplit(href).path)
    base = page.parent
    target = (site / path.lstrip("/")) if path.startswith("/") else (base / path)
    target = Path(*target.parts)  # normalise
    if path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target


def dead_links(site: Path) -> list[tuple[Path, str]]:
    dead = []
    for page in site.rglob("*.html"):
        if page.name == "404.html":
            continue  # uses absolute links, checked separately
        for href in internal_links(page.read_text(encoding="utf-8")):
            target = resolve_link(site, page, href).resolve()
            if not target.is_file():
                dead.append((page.relative_to(site), href))
    return dead


def site_files(site: Path) -> dict[str, bytes]:
    """Every file of a built site: ``/``-separated path relative to the site -> bytes."""
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def clean_build(corpus: Path, out: Path) -> BuildResult:
    """The site a build from scratch makes of ``corpus``: what an incremental build must equal. In one process:
    forked workers make the same bytes (test_build, test_scan and test_search compare the two), and for a small
    corpus on a machine the test workers already keep busy, their pool costs more CPU than it saves (0.5 s
    against 0.35 s for the examples: the random walk of edits makes 30 such builds)."""
    return build(corpus, out, workers=1, use_cache=False)


def site_contents(site: Path) -> dict[str, bytes]:
    """Every file, each edition's search postings as what they hold (an incremental build writes a delta where
    a clean one cuts the shards anew): equal for an incremental build and a clean one of the same corpus."""
    out = {rel: data for rel, data in site_files(site).items() if rel != ".papernotes-site"}
    for prefix in ("", "en/", "zh/"):
        if f"{prefix}search/index.json" not in out:
            continue
        raw = hashlib.blake2b(digest_size=16)
        for rel in sorted(rel for rel in out if rel.startswith(f"{prefix}search/")):
            raw.update(f"{rel[len(prefix):]}\0{len(out[rel])}\0".encode())
            raw.update(out[rel])
        out = {rel: data for rel, data in out.items()
               if not rel.startswith(f"{prefix}search/t/") and rel != f"{prefix}search/index.json"}
        out[f"{prefix}search contents"] = _index_contents(site / prefix, raw.digest())
    return out


_CONTENTS: dict[bytes, bytes] = {}
"""What ``index_contents`` read from search files with these bytes (keyed by their digest): the random walks
compare sites whose indexes are mostly byte for byte the ones decoded a step before."""


def _index_contents(site: Path, raw: bytes) -> bytes:
    from papernotes.site.search.contents import index_contents

    if raw not in _CONTENTS:
        _CONTENTS[raw] = repr(index_contents(site)).encode()
    return _CONTENTS[raw]

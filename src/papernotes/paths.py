"""Path rules: which site-relative URLs a build may write (pure).

Used where URLs are decided: the resolve stage checks every note's URL, its
topics' pages and its ``aliases:`` here, and the redirect kind re-checks the
aliases it turns into pages; ``disk.Staging`` checks every file it writes or
removes with ``safe_relpath`` as a last guard.

In: a URL segment (venue, domain, slug, topic slug) or an alias as written in a
note. Out: the normalised URL, or ``UnsafePath`` saying why it is refused (the
caller makes it a ``path:line: error:`` diagnostic for that note or alias).

Notes are untrusted: a segment may not step out of its folder (``..``, ``/``,
``\\``, ``%2e%2e``), may not hide characters a file system or a browser treats
specially (control characters, NUL, ``?``, ``#``, ``%``), may not exceed the
file-name limit, and may not take a name the site itself writes (``index.html``,
``assets/``, ``search/``, the manifest, the build marker…).
"""
from __future__ import annotations

import re
from urllib.parse import unquote

NAME_MAX = 255
"""Bytes in one file or folder name (Linux and macOS ``NAME_MAX``)."""
URL_MAX = 1024
"""Bytes in a site-relative URL; leaves the site's own folder room within ``PATH_MAX`` (4096)."""
PATH_MAX = 4095
"""Bytes in an absolute path the publisher writes (Linux ``PATH_MAX`` less the NUL)."""
MAX_ALIASES = 50
"""``aliases:`` entries per note; the rest are refused."""

RESERVED_TOP = frozenset({
    "assets", "search", "topics", "domains", "feeds", "en", "zh",  # folders the site generates or keeps for itself
    "sitemaps", "bib",
    "index.html", "404.html", "papernotes-manifest.json", ".papernotes-site",  # files at the site root
    "sitemap.xml", "robots.txt",
})
"""First URL segments no venue or alias may take (compared case-insensitively: some file systems fold case)."""

_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff/\\?#%]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class UnsafePath(ValueError):
    """A URL segment or alias that the site must not write; ``key`` names the front-matter field at fault."""

    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key


def _shown(text: str, limit: int = 60) -> str:
    """``text`` for a message: control characters escaped, long values cut."""
    short = text if len(text) <= limit else f"{text[:limit]}…"
    return repr(short)


def _describe(char: str) -> str:
    if char in "/\\":
        return f"a {'slash' if char == '/' else 'backslash'}"
    if char in "?#%":
        return f"{char!r} (it changes what a URL means)"
    if "\ud800" <= char <= "\udfff":
        return "bytes that are not UTF-8"
    return f"the control character U+{ord(char):04X}"


def check_segment(value: str, what: str, key: str = "") -> str:
    """``value`` as one folder name of the site, or ``UnsafePath``; ``what`` names it in the message."""
    if value in ("", ".", ".."):
        raise UnsafePath(f"{what} {value!r} cannot be a folder name", key)
    m = _FORBIDDEN.search(value)
    if m is not None:
        raise UnsafePath(f"{what} {_shown(value)} contains {_describe(m.group())}", key)
    size = len(value.encode("utf-8"))
    if size > NAME_MAX:
        raise UnsafePath(f"{what} {_shown(value)} is {size} bytes long; a file name holds at most {NAME_MAX}", key)
    if value.casefold() == "index.html":
        raise UnsafePath(f"{what} {value!r} is the file name of every page", key)
    return value


def check_url(url: str, what: str, key: str = "") -> str:
    """A site-relative URL made of checked segments: total length and reserved first segment.

    ``what`` names the URL in the message, e.g. ``"alias 'old/place'"``.
    """
    size = len(url.encode("utf-8"))
    if size > URL_MAX:
        raise UnsafePath(f"{what}: the URL is {size} bytes long; at most {URL_MAX}", key)
    first = url.split("/", 1)[0]
    if first.casefold() in RESERVED_TOP:
        raise UnsafePath(f"{what} would take {first!r}, a name the site uses itself", key)
    return url


def note_url(venue: str, domain: str, slug: str) -> str:
    """``{venue}/{domain}/{slug}/``, every part checked; ``UnsafePath.key`` is the field at fault."""
    check_segment(venue, "venue", "venue")
    check_segment(domain, "domain", "domain")
    check_segment(slug, "slug", "slug")
    return check_url(f"{venue}/{domain}/{slug}/", f"venue {venue!r}", "venue")


def alias_url(alias: str) -> str:
    """An ``aliases:`` entry as the site-relative folder URL of its redirect page (``a/b/``), or ``UnsafePath``.

    Leading and trailing slashes are optional; percent-escapes are decoded once
    (a server serves ``%E4%B8%AD`` from the folder ``中``), so ``%2e%2e`` is ``..``.
    """
    text = alias.strip()
    what = f"alias {_shown(text)}"
    if (m := _CONTROL.search(text)) is not None:
        raise UnsafePath(f"{what} contains {_describe(m.group())}", "aliases")
    if _SCHEME.match(text) or text.startswith("//"):
        raise UnsafePath(f"{what} must be a path on this site, not a URL", "aliases")
    if "%" in text:
        try:
            decoded = unquote(text, errors="strict")
        except UnicodeDecodeError:
            raise UnsafePath(f"{what} has percent-escapes that are not UTF-8", "aliases") from None
        if "%" in decoded:
            raise UnsafePath(f"{what} is percent-encoded twice", "aliases")
        text = decoded
    path = text.strip("/")
    if not path:
        raise UnsafePath(f"{what} is the site's home page", "aliases")
    for part in path.split("/"):
        check_segment(part, f"{what}: segment", "aliases")
    return check_url(path + "/", what, "aliases")


def safe_relpath(rel: str) -> bool:
    """True when the file path ``rel`` stays inside the site root: the publisher's last check before a write.

    Pure string test (no file system access): relative, ``/``-separated, no empty,
    ``.`` or ``..`` part, no NUL or backslash, each name within ``NAME_MAX``.
    """
    if not rel or rel[0] == "/" or "\0" in rel or "\\" in rel or len(rel) > PATH_MAX:
        return False
    for part in rel.split("/"):
        if part in ("", ".", "..") or len(part.encode("utf-8", "surrogatepass")) > NAME_MAX:
            return False
    return True

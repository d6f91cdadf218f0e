"""The build cache's records: the typed rows ``cache.py`` reads and writes (and nothing else does).

In: nothing (plain values). Out: ``NoteRow`` (a note file as the parse cache knows it), ``Published``
(what a site published), ``PublishedNote`` (a note file as its site shows it), ``EditionRows`` (what one
edition shows), ``RelatedState`` and ``RelatedRows`` (the related papers' last computation).
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from papernotes.errors import Diagnostic, Severity


@dataclass(frozen=True, slots=True)
class NoteRow:
    """One note file as the parse cache knows it."""

    mtime_ns: int
    size: int
    digest: str
    """SHA-1 of the file's bytes."""
    record: Any
    """``Note.to_row()`` (``None`` when the file did not parse); stored apart, decoded only on demand."""
    problems: tuple[tuple[str, int, str, str, str], ...]
    """The parse diagnostics, encoded."""


@dataclass(frozen=True, slots=True)
class Published:
    """What the last successful build of one site published (everything but the per-note rows)."""

    salt: str
    """Code, config and taxonomy fingerprint the site was built with; another salt means a full rebuild."""
    notes: int
    """Notes on the site."""
    pages: int
    """Pages on the site."""
    stamp: str = ""
    """``shape.settings_stamp`` of the settings the site was built with (cheap to compare; see ``salt``)."""
    scan: str = ""
    """Digest of the corpus scan (every note file's path, mtime and size) the site was built from:
    equal to the current scan means nothing changed. Empty while a publish is under way."""
    problems: tuple[Diagnostic, ...] = ()
    """Diagnostics of the resolve stage (duplicates, unknown taxonomy names)."""
    generation: int = 0
    """The parse cache's generation (``BuildCache.save_notes``) the site was built from: a note file can differ
    from what the site shows only if it was saved or removed since, or unpublished (``unpublish``)."""
    translations: int = 0
    """Translations the site's editions show in place of their original (counted apart from ``notes``: a note and
    its translations are one note); 0 on a one-language site."""
    publish: str = ""
    """The ``publish`` id of the build that wrote the site (``Staging.publish_id``): when the site's marker names
    another (a ``--no-cache`` build, another corpus' build, an older papernotes), this record describes some other
    site than the one on disk, and the next build starts afresh."""


@dataclass(frozen=True, slots=True)
class PublishedNote:
    """A note file as its site shows it; the fields after ``digest`` are ``None`` for a file not on the site."""

    path: str
    digest: str
    """The file digest the site was built from."""
    listing: str | None = None
    """Digest of what other pages show of the note (``resolve.listing_key``)."""
    url: str | None = None
    cell: str | None = None
    """URL of its venue × domain page."""
    position: int | None = None
    """Index on that page (notes are ordered by slug): neighbours are ``position ± 1``."""
    title: str | None = None
    """Plain title, the label of the links its neighbours' pages make to it."""
    topics: tuple[str, ...] = ()
    """Slugs of its topics (their pages list it)."""
    aliases: tuple[str, ...] = ()
    """URLs of the redirect pages its ``aliases`` made."""


@dataclass(frozen=True, slots=True)
class EditionRows:
    """What one edition of a site with several languages shows: a row per shown note file (a translation where
    the edition shows one, at its original's URL and place), kept under ``edition_key``."""

    notes: list[PublishedNote]
    shown: dict[str, str] | None = None
    """Original's path -> translation's path, for every note the edition shows translated (``None``: unchanged)."""
    urls: frozenset[str] | None = None
    """Every directory page of the edition, without its prefix (``None``: unchanged)."""


def edition_key(site: str, lang: str) -> str:
    """The key the rows of one edition of ``site`` are kept under."""
    return f"{site}@{lang}"


class RelatedState(NamedTuple):
    """What the next related-papers update needs of the last computation (``site.related.update``)."""

    paths: tuple[str, ...]
    digests: tuple[str, ...]
    """Each path's input digest."""
    norms: Any
    rows: Any
    cands: Any


class RelatedRows(NamedTuple):
    """The last computation's lists, packed (``PackedRows.pack``), and the digest of the inputs they were made from."""

    digest: str
    paths: Any
    flat: bytes


def columns(files: Sequence[tuple[str, int, int]]) -> tuple[str, bytes, bytes]:
    """``(path, mtime_ns, size)`` rows as three columns: the paths joined by NUL, two int64 arrays."""
    if not files:
        return "", b"", b""
    # comprehensions: ``zip(*files)`` makes an iterator per file (0.07 s at 50,000 files)
    return ("\0".join([f[0] for f in files]), array("q", [f[1] for f in files]).tobytes(),
            array("q", [f[2] for f in files]).tobytes())


def rows(packed: tuple[str, bytes, bytes]) -> list[tuple[str, int, int]]:
    """``columns`` unpacked: the ``(path, mtime_ns, size)`` rows, in the same order."""
    paths, mtimes, sizes = packed
    return list(zip(paths.split("\0"), array("q", mtimes), array("q", sizes), strict=True)) if paths else []


def encode_problem(d: Diagnostic) -> tuple[str, int, str, str, str]:
    return (d.path, d.line, d.message, d.severity.value, d.code)


def decode_problem(row: Sequence[Any]) -> Diagnostic:
    path, line, message, severity, code = row
    return Diagnostic(path, line, message, Severity(severity), code)

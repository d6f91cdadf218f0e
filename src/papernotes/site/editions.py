"""Plan stage, editions: one site per language from one corpus (pure).

A site with ``languages = ["zh", "en"]`` is published as two editions: the site
language's at ``/``, the other under ``/en/`` (or ``/zh/``), with the same URLs
below the prefix. Each edition is planned like a one-language site, by the same
page kinds, from its own entries:

In: the resolved entries (originals only, ``site.resolve`` skips translations)
and the corpus's translations (``Note`` records of ``foo.en.md``). Out, per
edition: its entries, each original replaced by its translation into the
edition's language when there is one (same URL, venue, domain, topics and order,
so counts agree across editions); a note without one keeps its own text (its
``lang`` marks it on the pages) or, with ``untranslated = "hide"``, is left out
of the editions other than the site language's. After planning, ``publish``
moves each edition's pages under its prefix and gives every page its
alternates: the same URL in the other editions, or their home when they lack it
(and from the 404 page, which stands for any missing page). Related papers are
the originals' (``edition_related``): the same papers in every edition, each
shown in the edition's language where translated.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from papernotes.corpus.model import Entry, Note
from papernotes.site.contexts import Alternate, Page


@dataclass(frozen=True, slots=True)
class Edition:
    """One language's copy of the site."""

    lang: str
    """Language of its interface, taxonomy names and (where translated) notes."""
    prefix: str
    """Where it is published: ``""`` for the site language, else ``{lang}/``."""

    @property
    def default(self) -> bool:
        return not self.prefix


def site_editions(languages: Sequence[str]) -> tuple[Edition, ...]:
    """The editions of ``SiteConfig.editions`` (the site language's first)."""
    return tuple(Edition(lang, f"{lang}/" if i else "") for i, lang in enumerate(languages))


def translations(notes: Iterable[Note], failed: Iterable[str] = ()) -> dict[tuple[str, str], Note]:
    """``(original's path, language)`` -> the translation, for every translation that parsed without errors."""
    bad = set(failed)
    return {(n.translation_of.original, n.lang): n for n in notes
            if n.translation_of is not None and n.path not in bad}


def edition_entries(entries: Iterable[Entry], found: dict[tuple[str, str], Note], edition: Edition,
                    hide_untranslated: bool = False) -> list[Entry]:
    """The entries of ``edition``: each note in the edition's language where it has a translation."""
    out = []
    for entry in entries:
        note = entry.note
        if note.lang != edition.lang:
            translated = found.get((note.path, edition.lang))
            if translated is not None:
                entry = translated_entry(entry, translated)
            elif hide_untranslated and not edition.default:
                continue
        out.append(entry)
    return out


def translated_entry(entry: Entry, translated: Note) -> Entry:
    """``entry`` (an original) shown in its translation ``translated``: same URL, place and topics."""
    recorded = translated.translation_of.digest if translated.translation_of else ""
    # a translation that records no digest may or may not be stale: `check` warns about it
    return replace(entry, note=translated, stale_translation=bool(recorded) and recorded != entry.note.text_digest)


def edition_related(related: Mapping[str, tuple[str, ...]], shown: Iterable[Entry]) -> dict[str, tuple[str, ...]]:
    """The related-papers lists (computed from the originals, by original path) for the notes an edition shows:
    the same papers, by the paths of the texts it shows; a paper the edition leaves out is left out of them."""
    path_of = {(e.note.translation_of.original if e.note.translation_of else e.note.path): e.note.path for e in shown}
    return {path_of[original]: tuple(path_of[p] for p in near if p in path_of)
            for original, near in related.items() if original in path_of}


def publish(planned: Sequence[tuple[Edition, Sequence[Page]]], names: dict[str, str],
            present: Callable[[str, str], bool] | None = None) -> list[Page]:
    """Every edition's pages under its prefix, with alternates; fingerprints cover both.

    ``names``: each language's name in that language (``中文``, ``English``), for the switch.
    ``present(lang, url)``: whether the ``lang`` edition has the page ``url``; by default, whether
    it is among that edition's ``planned`` pages (the whole site was planned).
    """
    if present is None:
        urls = {edition.lang: {page.url for page in pages} for edition, pages in planned}

        def present(lang: str, url: str) -> bool:
            return url in urls[lang]

    out: list[Page] = []
    for edition, pages in planned:
        for page in pages:
            alternates = tuple(
                Alternate(other.lang, names[other.lang],
                          other.prefix + (page.url if page.template != "404.html" and present(other.lang, page.url)
                                          else ""))
                for other, _ in planned)
            payload = "\0".join([page.fingerprint, edition.prefix, edition.lang,
                                 *(f"{a.lang}={a.url}" for a in alternates)])
            out.append(replace(page, url=edition.prefix + page.url, edition=edition.prefix, lang=edition.lang,
                               alternates=alternates,
                               fingerprint=hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()))
    return out

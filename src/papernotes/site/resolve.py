"""Resolve stage: parsed notes become site entries.

In: parsed ``Note`` records, their parse diagnostics and the ``Taxonomy``.
Out: ``Entry`` records (taxonomy objects attached, topics assigned, URL fixed)
and the diagnostics of this stage. Notes with errors are left out here, so one
bad file never breaks the site; ``--strict`` turns that into a failed build.

Every URL the site will write for a note is decided and checked here
(``paths.py``): its own page, its topics' pages and its ``aliases:``. A
note whose URL would leave its folder, exceed a file-name limit or take a name
the site uses is an error; a bad or colliding alias is an error for that alias
and the note keeps the others.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from papernotes import paths
from papernotes.classify.rules import note_topics
from papernotes.corpus.model import Entry, Note
from papernotes.errors import Diagnostic, error, warning
from papernotes.site.plan import site_urls
from papernotes.taxonomy import Taxonomy

RESERVED = paths.RESERVED_TOP


def note_url(note: Note) -> str:
    return f"{note.venue}/{note.domain}/{note.slug}/"


def resolve(notes: Iterable[Note], diagnostics: Iterable[Diagnostic], taxonomy: Taxonomy,
            topic_memo: dict[str, tuple[str, ...]] | None = None) -> tuple[list[Entry], list[Diagnostic]]:
    """Entries for every note without errors; ``topic_memo`` (note digest -> topic slugs) saves re-matching rules."""
    memo = topic_memo if topic_memo is not None else {}
    failed = {d.path for d in diagnostics if d.is_error}
    problems: list[Diagnostic] = []
    entries: list[Entry] = []
    by_url: dict[str, Note] = {}
    by_id: dict[str, Note] = {}
    for note in notes:
        if note.translation_of is not None:  # foo.en.md is its original's paper in another language, not a paper
            continue
        if note.path in failed or not (note.title and note.venue and note.domain):
            continue
        try:
            url = paths.note_url(note.venue, note.domain, note.slug)
        except paths.UnsafePath as exc:
            problems.append(error(note.path, note.line_of(exc.key), str(exc), "unsafe-path"))
            continue
        if (other := by_url.get(url)) is not None:
            problems.append(error(note.path, 1, f"same venue, domain and slug as {other.path} (URL {url})", "duplicate-url"))
            continue
        if (other := by_id.get(note.id)) is not None:
            problems.append(error(note.path, note.line_of("id"), f"id {note.id!r} is already used by {other.path}", "duplicate-id"))
            continue
        if note.topics is None and note.digest in memo:
            topics = tuple(taxonomy.topics[slug] for slug in memo[note.digest] if slug in taxonomy.topics)
        else:
            topics = note_topics(note, taxonomy)
            if note.topics is None:
                memo[note.digest] = tuple(t.slug for t in topics)
        try:
            for topic in topics:
                paths.check_segment(topic.slug, "topic")
        except paths.UnsafePath as exc:
            problems.append(error(note.path, note.line_of("topics"), str(exc), "unsafe-path"))
            continue
        venue = taxonomy.venue(note.venue)
        domain = taxonomy.domain(note.domain)
        if (unknown := taxonomy.venue_problem(note.venue)) is not None:
            problems.append(error(note.path, note.line_of("venue"), unknown, "unknown-venue"))
            continue
        if (unknown := taxonomy.domain_problem(note.domain)) is not None:
            problems.append(error(note.path, note.line_of("domain"), unknown, "unknown-domain"))
            continue
        by_url[url] = note
        by_id[note.id] = note
        entries.append(Entry(note, venue, domain, topics, url,
                             (-venue.date.toordinal(), venue.id, domain.slug, note.slug)))
    entries = _with_aliases(entries, problems)
    return entries, problems


def _with_aliases(entries: list[Entry], problems: list[Diagnostic]) -> list[Entry]:
    """``entries`` with each note's aliases normalised (``a/b/``); refused or colliding ones are reported and dropped.

    An alias may not escape the site, exceed a limit, take a name the site uses,
    or take the URL of any other page: a note, a venue, domain or topic page, or
    an earlier note's alias.
    """
    if not any(e.note.aliases for e in entries):
        return entries
    pages = site_urls(entries)
    notes = {e.url: e.note.path for e in entries}
    claimed: dict[str, str] = {}
    out = []
    for entry in entries:
        note = entry.note
        if not note.aliases:
            out.append(entry)
            continue
        line = note.line_of("aliases")
        kept: list[str] = []
        for index, alias in enumerate(note.aliases):
            if index == paths.MAX_ALIASES:
                problems.append(error(note.path, line, f"{len(note.aliases)} aliases; at most {paths.MAX_ALIASES} "
                                      "are kept", "unsafe-path"))
                break
            try:
                url = paths.alias_url(alias)
            except paths.UnsafePath as exc:
                problems.append(error(note.path, line, str(exc), "unsafe-path"))
                continue
            if url == entry.url:
                problems.append(warning(note.path, line, f"alias {alias!r} is the note's own URL; ignored", "alias"))
            elif url in notes:
                problems.append(error(note.path, line, f"alias {alias!r} is the URL of {notes[url]}", "alias-collision"))
            elif url in pages:
                problems.append(error(note.path, line, f"alias {alias!r} is the URL of a page of the site",
                                      "alias-collision"))
            elif url in claimed:
                owner = "another alias of this note" if claimed[url] == note.path else f"an alias of {claimed[url]}"
                problems.append(error(note.path, line, f"alias {alias!r} is already {owner}", "alias-collision"))
            else:
                claimed[url] = note.path
                kept.append(url)
        if tuple(kept) != note.aliases:
            entry = replace(entry, note=replace(note, aliases=tuple(kept)))
        out.append(entry)
    return out


def listing_key(entry: Entry) -> tuple[object, ...]:
    """Everything about a note that pages other than its own show (listings, neighbours, search, links).

    When no note's listing key changed, a rebuild only re-renders the changed notes' own pages. The
    language is in it: a site with several editions marks untranslated notes in its listings, and which
    file an edition shows for a note depends on it.
    """
    note = entry.note
    return (note.path, note.id, entry.url, entry.order, note.lang, note.title, note.title_html, note.summary,
            note.summary_html, tuple(t.slug for t in entry.topics), note.keywords, note.authors, note.aliases,
            note.arxiv_id, str(note.extra.get("date", "")))  # related lists drop duplicates by arXiv id; feeds date

"""Resolve stage: parsed notes become site entries.

In: parsed ``Note`` records, their parse diagnostics and the ``Taxonomy``.
Out: ``Entry`` records (taxonomy objects attached, topics assigned, URL fixed)
and the diagnostics of this stage. Notes with errors are left out here, so one
bad file never breaks the site; ``--strict`` turns that into a failed build.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from papernotes.classify.rules import note_topics
from papernotes.corpus.model import Entry, Note
from papernotes.errors import Diagnostic, error, warning
from papernotes.taxonomy import Taxonomy

RESERVED = {"assets", "search", "topics", "domains", "404.html", "feeds", "en", "zh"}


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
        if note.path in failed or not (note.title and note.venue and note.domain):
            continue
        if note.venue in RESERVED or note.venue.lower() in RESERVED:
            problems.append(error(note.path, note.line_of("venue"), f"venue {note.venue!r} is a reserved name", "schema"))
            continue
        url = note_url(note)
        if (other := by_url.get(url)) is not None:
            problems.append(error(note.path, 1, f"same venue, domain and slug as {other.path} (URL {url})", "duplicate-url"))
            continue
        if (other := by_id.get(note.id)) is not None:
            problems.append(error(note.path, note.line_of("id"), f"id {note.id!r} is already used by {other.path}", "duplicate-id"))
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
        if note.topics is None and note.digest in memo:
            topics = tuple(taxonomy.topics[slug] for slug in memo[note.digest] if slug in taxonomy.topics)
        else:
            topics = note_topics(note, taxonomy)
            if note.topics is None:
                memo[note.digest] = tuple(t.slug for t in topics)
        entries.append(Entry(note, venue, domain, topics, url,
                             (-venue.date.toordinal(), venue.id, domain.slug, note.slug)))
    return entries, problems


def listing_key(entry: Entry) -> tuple[object, ...]:
    """Everything about a note that pages other than its own show (listings, neighbours, search, links).

    When no note's listing key changed, a rebuild only re-renders the changed notes' own pages.
    """
    note = entry.note
    return (note.path, note.id, entry.url, entry.order, note.title, note.title_html, note.summary, note.summary_html,
            tuple(t.slug for t in entry.topics), note.keywords, note.authors, note.aliases,
            note.arxiv_id, str(note.extra.get("date", "")))  # related lists drop duplicates by arXiv id; feeds date


def group_by(entries: Iterable[Entry], key) -> dict:  # type: ignore[no-untyped-def]
    groups: dict = defaultdict(list)
    for entry in entries:
        groups[key(entry)].append(entry)
    return groups

"""Classify stage (rules): the topics a note belongs to, and the rule counts the learned model reads.

In: a ``Note`` and the ``Taxonomy``. Out: the topics the note belongs to — its own ``topics:`` or every topic
whose rule phrases it holds as whole terms (``papernotes.phrases``) in the fields the topic reads — and, for
the learned model, the number of distinct rule phrases of each domain in its title, keywords and summary.
Pure functions.
"""
from __future__ import annotations

from papernotes.corpus.model import Note
from papernotes.taxonomy import Taxonomy, Topic


def rule_text(note: Note) -> str:
    """The text the rules look at: title, keywords (one per line) and one-line summary."""
    return "\n".join((note.title, "\n".join(note.keywords), note.summary))


def topic_hits(note: Note, taxonomy: Taxonomy) -> dict[str, tuple[str, ...]]:
    """Each topic whose rules the note's title, keywords or summary hold (only the fields a topic reads, when
    it names them), with the phrases found, in the taxonomy's order."""
    index = taxonomy.topic_index
    fields = {"title": note.title, "keywords": "\n".join(note.keywords), "summary": note.summary}
    everywhere = index.hits(rule_text(note))
    found: dict[str, list[str]] = {}
    for hit in everywhere:
        topic = taxonomy.topics[hit.owner]
        if topic.fields and not any(hit in index.hits(fields[f]) for f in topic.fields if f in fields):
            continue
        found.setdefault(hit.owner, []).append(hit.phrase)
    return {slug: tuple(found[slug]) for slug in taxonomy.topics if slug in found}


def note_topics(note: Note, taxonomy: Taxonomy) -> tuple[Topic, ...]:
    """Topics written in the note win (deduplicated, in order); otherwise every topic whose rules match."""
    if note.topics is not None:
        seen: dict[str, Topic] = {}
        for name in note.topics:
            topic = taxonomy.topic(name)
            seen.setdefault(topic.slug, topic)
        return tuple(seen.values())
    return tuple(taxonomy.topics[slug] for slug in topic_hits(note, taxonomy))


def rule_domain_scores(note: Note, taxonomy: Taxonomy) -> dict[str, int]:
    """Number of distinct rule phrases (hints aside) of each domain found in the note's text."""
    phrases: dict[str, set[str]] = {}
    for hit in taxonomy.domain_index.hits(rule_text(note)):
        if hit.weight >= 1.0:
            phrases.setdefault(hit.owner, set()).add(hit.phrase)
    return {slug: len(found) for slug, found in phrases.items()}

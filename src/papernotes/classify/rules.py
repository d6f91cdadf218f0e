"""Classify stage (rules): topics and domain guesses from the taxonomy's match rules.

In: a ``Note`` and the ``Taxonomy``. Out: the topics the note belongs to and,
for notes without a domain, rule scores per domain. Pure functions; the learned
model that complements these rules lives in ``classify_model``.
"""
from __future__ import annotations

from papernotes.corpus.model import Note
from papernotes.taxonomy import Taxonomy, Topic


def rule_text(note: Note) -> str:
    """The text the rules look at (case-folded): title, keywords and one-line summary."""
    return "\n".join((note.title, " ".join(note.keywords), note.summary)).casefold()


def note_topics(note: Note, taxonomy: Taxonomy) -> tuple[Topic, ...]:
    """Topics written in the note win (deduplicated, in order); otherwise every rule that matches."""
    if note.topics is not None:
        seen: dict[str, Topic] = {}
        for name in note.topics:
            topic = taxonomy.topic(name)
            seen.setdefault(topic.slug, topic)
        return tuple(seen.values())
    found = {owner for owner, _ in taxonomy.topic_index.hits(rule_text(note))}
    return tuple(topic for topic in taxonomy.topics.values() if topic.slug in found)


def rule_domain_scores(note: Note, taxonomy: Taxonomy) -> dict[str, int]:
    """Number of distinct rule phrases of each domain found in the note's text."""
    phrases: dict[str, set[str]] = {}
    for owner, phrase in taxonomy.domain_index.hits(rule_text(note)):
        phrases.setdefault(owner, set()).add(phrase)
    return {slug: len(found) for slug, found in phrases.items()}

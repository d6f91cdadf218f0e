"""Classify stage (rules): topics and domain guesses from the taxonomy's match rules.

In: a ``Note`` and the ``Taxonomy``. Out: the topics the note belongs to and,
for notes without a domain, rule scores per domain. Pure functions; the learned
model that complements these rules lives in ``classify_model``.
"""
from __future__ import annotations

import re

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


_EMPTY_VALUES = ("", '""', "''", "null", "~", "Null", "NULL")
_DOMAIN_LINE = re.compile(r"domain:[ \t]*(?P<value>.*?)(?P<comment>[ \t]+#.*)?[ \t]*$")


def with_domain(text: str, slug: str) -> str | None:
    """``text`` with ``domain: slug`` written into its front matter, or ``None`` when it already names one.

    Used by ``classify --apply``. Only notes without a domain change: a missing
    ``domain`` key is added as the last front-matter line, an empty one
    (``domain:``, ``domain: ""``, ``domain: null``) gets the value. Every other
    byte, line endings and a BOM included, is kept. ``None`` also when the text
    has no closed front matter or a ``domain`` key with any other value.
    """
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    first = lines[0].removeprefix("\ufeff") if lines else ""
    if first.rstrip() != "---":
        return None
    newline = first[len(first.rstrip("\r\n")):] or "\n"
    for index in range(1, len(lines)):
        line = lines[index]
        bare = line.rstrip("\r\n")
        if bare.rstrip() in ("---", "..."):
            return "".join(lines[:index]) + f"domain: {slug}{newline}" + "".join(lines[index:])
        if bare.startswith("domain:"):
            m = _DOMAIN_LINE.match(bare)
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if m is None or m["value"] not in _EMPTY_VALUES or (
                    following[:1] in (" ", "\t", "-") and following.strip() != "---"):
                return None  # a value here, or a nested block on the next lines
            return "".join(lines[:index]) + f"domain: {slug}{m['comment'] or ''}{line[len(bare):]}" + "".join(lines[index + 1:])
    return None

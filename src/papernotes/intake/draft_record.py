"""Draft stage, the record of a draft: what the last draft wrote in each section, and what a person changed since.

In: a note's front matter (``draft_digest``) and Markdown body. Out: the body cut into its ``##``
sections, a short digest of a section's text, and the sections edited since the draft. Light on purpose
(no reader, no config): the site asks it whether a drafted note's page says "edited by hand since", and
``redraft`` which sections a redraft keeps.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from papernotes.corpus.model import SECTIONS
from papernotes.corpus.sections import split_body

DIGEST_KEY = "draft_digest"
"""Front-matter key of the record: canonical section key -> digest of the text the last draft wrote there."""
_RANK = {key: i for i, key in enumerate(SECTIONS)}


def digest(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:8]


def record_of(front: Mapping[Any, Any]) -> dict[str, str]:
    """The ``draft_digest`` record; ``{}`` when absent or not a mapping of text."""
    value = front.get(DIGEST_KEY)
    return {str(k): v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


def edited_since(front: Mapping[Any, Any], body: str) -> tuple[str, ...]:
    """The sections the last draft wrote that a person changed (or removed) since: what the note page calls
    "edited by hand" (``summary`` also when the front matter's summary changed)."""
    record = record_of(front)
    written = {p.key: digest(p.content) for p in split_body(body)[1] if p.key in record}
    edited = {key for key, value in record.items() if written.get(key) != value}
    summary = front.get("summary")
    if "summary" in record and isinstance(summary, str) and summary.strip() and record["summary"] != digest(summary):
        edited.add("summary")
    return tuple(sorted(edited, key=lambda k: _RANK.get(k, len(_RANK))))

"""Draft stage, the preview: what a redraft would change in a note, section by section (``draft --diff``).

In: a note's text now and the text a draft would write (``DraftResult.previews``).
Out: unified diffs, one per front-matter key and per ``##`` section that would
change, each headed by what it is; nothing is written. Sections are cut by the
same splitter the redraft merges with (``redraft.split_body``).
"""
from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from papernotes.corpus.frontmatter import read
from papernotes.corpus.sections import split_body

SHOWN_KEYS = ("summary", "keywords", "ratings", "lang", "status", "draft_engine", "draft_model")
"""Front-matter keys a reader judges a redraft by (bookkeeping such as ``draft_digest`` left out)."""


def _lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, dict):
        return [f"{k}: {v}" for k, v in value.items()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value).split("\n")


def _diff(before: list[str], after: list[str]) -> list[str]:
    """The hunks of a unified diff (``@@`` lines, `` ``/``-``/``+`` lines), without its file header."""
    return list(difflib.unified_diff(before, after, n=2, lineterm=""))[2:]


def section_diffs(before: str, after: str) -> Iterator[tuple[str, list[str]]]:
    """``(what, diff lines)`` for each front-matter key and section that differs, in the note's order."""
    old_front, old_body, _ = read(before)
    new_front, new_body, _ = read(after)
    for key in SHOWN_KEYS:
        if lines := _diff(_lines(old_front.get(key)), _lines(new_front.get(key))):
            yield key, lines
    old_pre, old_parts = split_body(old_body)
    new_pre, new_parts = split_body(new_body)
    old = {p.key or p.heading: p for p in old_parts}  # a canonical section is itself in either language
    new = {p.key or p.heading: p for p in new_parts}
    if lines := _diff(old_pre.split("\n") if old_pre else [], new_pre.split("\n") if new_pre else []):
        yield "(before the first section)", lines
    for key in dict.fromkeys([*new, *old]):
        before_part, after_part = old.get(key), new.get(key)
        lines = _diff(before_part.content.split("\n") if before_part and before_part.content else [],
                      after_part.content.split("\n") if after_part and after_part.content else [])
        headings = dict.fromkeys(p.heading for p in (before_part, after_part) if p is not None)
        if lines or len(headings) > 1:
            yield "## " + " → ".join(headings), lines

"""Draft stage, what a draft may replace: which notes need one, which sections are the person's, the body it leaves.

In: a note's front matter and Markdown body, and ``--force``. Out: a
``Decision`` (draft the note, keeping which canonical sections, or skip it and
why) and, once the draft is made, the note's new body and the record of what
the draft wrote.

A note needs a draft when it is ``status: stub``, when it has canonical
headings (``corpus.model.SECTIONS``, zh or en, found as ``corpus.parse`` finds
them) but none of them holds text — what ``papernotes new`` makes — or when its
body is empty. Empty means blank, or only the placeholder lines the scaffold
writes (``- 新颖性: ``). A note with text of its own and no draft behind it
(no ``draft_engine``) is never drafted unless set back to a stub.

What the last draft wrote is recorded in the front matter as ``draft_digest``:
a short SHA-1 of each section it wrote (whitespace folded). A section whose
text no longer matches is the person's: a redraft keeps it where it is, and
``--force`` replaces it too. With no record (a note written by hand, or
drafted before the record existed) every section with text is the person's.
A draft that would keep every section is not made: the note is skipped.

A redraft replaces each canonical section in place, the first time its heading
appears; later copies of a replaced section (the doubled headings an earlier
redraft left) go, text of the person's own stays where it is, and sections the
body lacks go in their canonical place.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from papernotes.corpus.model import SECTIONS
from papernotes.corpus.sections import split_body
from papernotes.intake.draft_record import digest, record_of
from papernotes.intake.scaffold import RATING_LINES
from papernotes.text import is_cjk

ZH_SHARE = 0.2
"""Share of CJK characters among letters from which text is Chinese. Measured: the 3,248 Chinese reference
notes 0.28 at the lowest (median 0.66), English notes under 0.01, an extractive zh draft of an English
abstract (Chinese marks, English quotes; headings left out) 0.04-0.05."""
SECTION_KEYS = tuple(key for key in SECTIONS if key not in ("summary", "ratings"))
"""The sections every draft writes besides the summary (ratings only a model's)."""
_RANK = {key: i for i, key in enumerate(SECTIONS)}
_PLACEHOLDERS = frozenset(line.strip() for lines in RATING_LINES.values() for line in lines)

SKIP_DRAFTED = "already drafted (use --force to redraft)"
SKIP_OWN = "written by hand (set `status: stub` to draft it; sections with text are kept)"
SKIP_EDITED = "every section has text the last draft did not write (use --force to replace it)"


def is_empty(content: str) -> bool:
    """Blank, or only the scaffold's placeholder lines."""
    return all(not line.strip() or line.strip() in _PLACEHOLDERS for line in content.split("\n"))


@dataclass(frozen=True, slots=True)
class Decision:
    skip: str = ""
    """Why the note is not drafted; ``""``: it is."""
    keep: tuple[str, ...] = ()
    """Canonical keys whose sections (or front-matter ``summary``) are the person's and stay as they are."""


def decide(front: Mapping[Any, Any], body: str, force: bool) -> Decision:
    """Whether a note gets a draft now, and which of its sections that draft leaves alone."""
    _, parts = split_body(body)
    canonical = [p for p in parts if p.key]
    filled = [p for p in canonical if not is_empty(p.content)]
    if str(front.get("status", "")).strip() != "stub" and (filled or (not canonical and body.strip())):
        if not isinstance(front.get("draft_engine"), str):
            return Decision(SKIP_OWN)
        return Decision() if force else Decision(SKIP_DRAFTED)
    if force:
        return Decision()
    record = record_of(front)
    keep = {p.key for p in filled if record.get(p.key) != digest(p.content)}
    summary = front.get("summary")
    if isinstance(summary, str) and summary.strip() and record.get("summary") != digest(summary):
        keep.add("summary")
    if keep >= {"summary", *SECTION_KEYS}:
        return Decision(SKIP_EDITED)
    return Decision(keep=tuple(k for k in SECTIONS if k in keep))


def merge(body: str, drafted: Mapping[str, str], keep: Iterable[str]) -> list[tuple[str, str]]:
    """``(key, text)`` of each part of the new body, in order: ``key`` is the canonical key of a part the
    draft wrote (``drafted``: key -> part text, heading included) and ``""`` for text the note keeps."""
    kept = set(keep)
    preamble, parts = split_body(body)
    out: list[tuple[str, str, int]] = []
    placed: set[str] = set()
    for part in parts:
        if part.key in drafted and part.key not in kept:
            if part.key not in placed:
                out.append((part.key, drafted[part.key], _RANK[part.key]))
                placed.add(part.key)
        else:
            out.append(("", part.text, _RANK.get(part.key, -1)))
    for key in SECTIONS:
        if key not in drafted or key in placed or key in kept:
            continue
        rank = _RANK[key]
        at = next((i for i, (_, _, r) in enumerate(out) if r > rank), None)
        if at is None:
            at = max((i + 1 for i, (_, _, r) in enumerate(out) if r >= 0), default=0)
        out.insert(at, (key, drafted[key], rank))
    result = [(key, text) for key, text, _ in out]
    if preamble:  # text before the first heading stays first; a body without headings goes after the draft
        result.insert(0 if parts else len(result), ("", preamble))
    return result


def heading_language(body: str) -> str:
    """``zh`` or ``en``: the language most of the body's canonical headings are written in; ``""``: none is."""
    votes = {"zh": 0, "en": 0}
    for part in split_body(body)[1]:
        if part.key:
            zh, en, _ = SECTIONS[part.key]
            name = part.heading.casefold()
            votes["zh"] += name.startswith(zh)
            votes["en"] += name.startswith(en.casefold())
    return "" if votes["zh"] == votes["en"] else max(votes, key=votes.__getitem__)


def language(text: str) -> str:
    """``zh`` when CJK characters are at least ``ZH_SHARE`` of the letters of ``text``, else ``en``."""
    cjk = sum(map(is_cjk, text))
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    return "zh" if cjk and cjk >= ZH_SHARE * (cjk + latin) else "en"


def prose(parts: Iterable[tuple[str, str]]) -> str:
    """The text of body parts without their heading lines (headings follow the draft's language, not the text's)."""
    return "\n".join(line for _, text in parts for line in text.split("\n") if not line.startswith("#"))
